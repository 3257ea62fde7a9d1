"""Sentences saying the contract's price is fixed, so it is not adjusted: 「投标报价应是固定不变的，不得以任何理由予以
变更」, 「签约合同价为固定价格」, 「固定总价包干」, 「本项目合同价不随国家政策或法规、标准及市场因素的变化而进行调整」,
「本项目约定的服务费用金额不变」.

Left out: a condition (「如果投标人…没有列明…价格不作调整」: the price of one omission), Taiwan's 固定價格決標,
an award at a price fixed in advance (the price is not competed for), which says nothing about adjusting it, and a
rule by which prices are adjusted (「…之競標調整原則：…依…比例調整之，不隨得標廠商標價調整」).
"""

from __future__ import annotations

import re

_PRICE = re.compile(r"报价|价|價|费用|費用")
_FIXED = re.compile(
    r"固定不[变變]|固定[价價]格|固定[总總][价價]|固定[单單][价價]|包干|不[作予再](?:任何)?[调調]整|不[随隨因].{0,30}[调調]整"
    r"|不会因.{0,30}调整|不會因.{0,30}調整|不得以任何理由予以[变變]更|不[调調][价價]"
    r"|(?:价格|價格|价款|價款|金额|金額|总价|總價|单价|單價|费用|費用)(?:均|都|仍|亦)?不[变變]"
)
_LEFT_OUT = re.compile(r"如果|如|若|除非|[決决][標标]|[評评]比|可以[调調]整|予以[调調]整|[调調]整之|[调調]整原[则則]")
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


# A sentence that opens with a case (「無底價者，依…編列，不隨得標廠商標價調整」): the price of that case only.
_CASE_FIRST = re.compile(r"^[^，,。；;]{1,12}者[，,]")


_CLAUSE = re.compile(r"[^，,；;：:]+")
MAX_CLAUSE = 40  # characters: a clause saying the price is fixed is short (「2.本合同实行固定总价」)


def says_fixed_price(sentence: str) -> bool:
    """Whether ``sentence`` (one line) says the price is fixed and not adjusted, with no condition and no award:
    the whole sentence, or one of its clauses with none of those words in it or before it (a sentence that goes on
    to list what the price covers, 「2.本合同实行固定总价，合同总价包括但不限于：…如技术…」, or to a case of its own
    after it, 「…，本项目约定的服务费用金额不变，…若乙方不提供服务的，…」)."""
    sentence = sentence.strip()
    if _CASE_FIRST.match(sentence):
        return False
    if len(sentence) <= LONGEST and not _LEFT_OUT.search(sentence) and _fixed(sentence):
        return True
    for m in _CLAUSE.finditer(sentence):
        if _LEFT_OUT.search(sentence, 0, m.end()):
            return False
        if len(m.group()) <= MAX_CLAUSE and _fixed(m.group()):
            return True
    return False


def _fixed(text: str) -> bool:
    return _FIXED.search(text) is not None and _PRICE.search(text) is not None
