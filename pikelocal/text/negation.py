"""Negation and polarity, one list per language: the words that turn what follows them into its opposite
("投标人不得分包", "showed no remorse", "has not sought to appeal", "勿超過"), and the words a yes or a no answer
opens with (是/否, 正确/错误, 不允许, yes/no, true/false).

The negations serve two readers: a statement read term by term, each term negated when a negation stands a few
words before it (``query/answer/polarity.py``: the English words as tokens, the Chinese ones as ``ZH_NEGATION``),
and the check of a yes/no answer, which asks only whether a sentence says no at all (``NEGATION``); they are matched
in simplified characters (callers simplify first). The answer words (both scripts) read a reply's yes or no
(``values.normalise``) and a form's ticked box (``review/ticks.py``).

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

# The words a "no" and a "yes" answer open with, in the order they are tried (不正确 before 不, and a no before a
# yes: 不正确 is no, not 正确).
NO_ANSWERS_ZH: tuple[str, ...] = (
    "不正确", "不正確", "不是", "不对", "不對", "错误", "錯誤", "否", "不", "无", "無", "没有", "沒有", "非", "未",
)  # fmt: skip
NO_ANSWERS_EN: tuple[str, ...] = ("no", "not", "false", "incorrect", "none")
YES_ANSWERS_ZH: tuple[str, ...] = (
    "是", "对", "對", "正确", "正確", "可以", "允许", "允許", "接受", "需要", "须", "須", "必须", "必須",
    "应当", "應當", "有",
)  # fmt: skip
YES_ANSWERS_EN: tuple[str, ...] = ("yes", "true", "correct")
NO_ANSWER = re.compile("(?:" + "|".join(NO_ANSWERS_ZH) + ")|(?i:" + "|".join(NO_ANSWERS_EN) + r")\b")
YES_ANSWER = re.compile("(?:" + "|".join(YES_ANSWERS_ZH) + ")|(?i:" + "|".join(YES_ANSWERS_EN) + r")\b")
