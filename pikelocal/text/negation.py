"""Negation, one list per language: the words that turn what follows them into its opposite ("投标人不得分包",
"showed no remorse", "has not sought to appeal", "勿超過").

Two readers use the lists: a statement read term by term, each term negated when a negation stands a few words
before it (``query/answer/polarity.py``: the English words as tokens, the Chinese ones as ``ZH_NEGATION``), and
the check of a yes/no answer, which asks only whether a sentence says no at all (``NEGATION``). Chinese is matched in
simplified characters: callers simplify first.

Pure: stdlib ``re`` only.
"""

from __future__ import annotations

import re

# Longer words first where one begins with another (不得 before 不): a match takes the whole word.
ZH_NEGATIONS: tuple[str, ...] = (
    "不得", "不可", "不能", "不予", "不应", "不须", "不需", "不必", "禁止", "严禁", "没有",
    "不", "未", "无", "非", "勿",
)  # fmt: skip
EN_NEGATIONS: tuple[str, ...] = (
    "not", "no", "never", "neither", "nor", "without", "cannot", "none", "unless", "except",
)  # fmt: skip
EN_CONTRACTION = "n't"  # can't, doesn't: a negation joined to its verb

ZH_NEGATION = re.compile("|".join(sorted(ZH_NEGATIONS, key=len, reverse=True)))
# Any negation, Chinese or English (whole English words, any case).
NEGATION = re.compile(
    ZH_NEGATION.pattern + r"|\b(?:" + "|".join(EN_NEGATIONS) + r")\b|" + re.escape(EN_CONTRACTION) + r"\b",
    re.IGNORECASE,
)
