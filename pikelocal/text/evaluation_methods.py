"""Sentences naming the method bids are evaluated by: 「本项目采用“综合评分法 ”评标」, 「29 评标方法：综合评分法」,
「第四章 评标办法（综合评估法，总分100分）」, 「並準用最有利標」, 「優勝廠商評定方式：序位法」, a form's 「■1.最低標」.

Procurement law names the methods (the mainland's 综合评分法, 综合评估法, 最低评标价法,
经评审的最低投标价法, 性价比法, and for works 合理价格法 and 合理低价法; Taiwan's 最有利標, 序位法,
總評分法, 評分及格最低標, 最低標), so the method is one of a closed list, and the sentence one that applies
it to this procurement: a verb (采用, 采取, 準用, 为) or a label's colon or bracket before it.
Left out: a rule of law or a condition
(「采用综合评分法的，评审标准中的分值设置应当与评审因素的量化指标相对应」),
a definition (「综合评分法，是指…」), a law's or a chapter's title alone, the procurements a rule
is for (「…最有利標決標及評分及格最低標之採購」) and a sentence naming two methods.
"""

from __future__ import annotations

import re

from pikelocal.text.ticked_options import TICKED

# Longest first where one holds another (評分及格最低標 before 最低標).
METHODS = (
    "经评审的最低投标价法",
    "最低评标价法",
    "综合评分法",
    "综合评估法",
    "综合评标法",
    "性价比法",
    "合理价格法",
    "合理低价法",
    "有效最低价法",
    "最低价法",
    "評分及格最低標",
    "最有利標",
    "序位法",
    "總評分法",
    "最低標",
)
_METHOD = "|".join(re.escape(m) for m in METHODS)
# Applied to this procurement: a verb, a label's colon or opening bracket (quotes and spaces between allowed), or a
# form's ticked option (「■1.最低標」).
_APPLIED = re.compile(
    rf"(?:采用|采取|採用|採取|準用|准用|实行|為|为|[：:（(]|[{TICKED}]\s*(?:\d{{1,2}}\s*[.、．]|[(（]\d{{1,2}}[)）])?)"
    rf"[\s“”\"「」『』]*(?P<method>{_METHOD})"
)
# A rule of law or condition (「采用综合评分法的，…」), a definition, a law's name, the procurements a rule is for
# (「適用/準用/參考最有利標決標及評分及格最低標之採購」, 「本採購非屬適用或準用最有利標…決標之採購案」).
_LEFT_OUT = re.compile(
    rf"(?:{_METHOD})[\s”\"」』]*的|是指|係指|如果|若|《|(?:{_METHOD})[^，,。；;：:]{{0,12}}之(?:採購|采购)"
)
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def evaluation_method(sentence: str) -> str | None:
    """The evaluation method ``sentence`` (one line) applies to this procurement, as printed, or None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence):
        return None
    if len({m.group() for m in re.finditer(_METHOD, sentence)}) > 1:
        return None  # two methods named: a list or a comparison, not the one applied
    found = _APPLIED.search(sentence)
    return found.group("method") if found else None
