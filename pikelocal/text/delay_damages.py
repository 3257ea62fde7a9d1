"""Clauses setting the damages for late performance at a rate: 「每逾期一天，按合同总额的万分之三计算」,
「每逾期1天，按合同总价0.5%支付违约金」, 「从迟交的第一周到第四周，每周迟延交付违约金为迟交合同设备价格的 0.5%」,
「每逾1 日，計罰3,000 元整」.

A rate is a share (0.5%, 万分之五, 千分之一, 1‰) or an amount, per day, week or time of delay. The clause must name
the delay (逾期, 迟延, 延迟, 延期, 迟交, 遲延) and what is paid (违约金, 赔偿, 罚款, 計罰, 扣除); a bid's or a
performance bond's forfeit, the purchaser's late payment, a cap (最高, 上限, 不超过) alone, or a rule left to
another document (「在专用合同条款中约定」) is none. The model, shown these clauses, answered the cap, another
penalty, or not stated.
"""

from __future__ import annotations

import re

_LATE = re.compile(
    r"逾期|迟延|延迟|延期|迟交|遲延|延遲|逾\s*\d|逾[一二三四五六七八九十]|超过约定|超過約定|未按时|未按時"
)
_PAID = re.compile(r"违约金|違約金|赔偿|賠償|罚款|罰款|处罚|處罰|计罚|計罰|罚金|罰金|扣除|扣款")
# Per day, week or time of delay.
_PER = re.compile(
    r"每\s*(?:逾期|迟延|延迟|延期|迟交|遲延|延遲|逾|出现|出現|发生|發生)?\s*(?:\d+|[一二三四五六七八九十]+)?\s*(?:个|個)?\s*"
    r"(?:日历天|日曆天|工作日|日|天|周|週|星期|小时|小時|次)"
)
_RATE = re.compile(
    r"\d+(?:\.\d+)?\s*[%％‰]|百分之[零一二三四五六七八九十点點.\d]+|千分之[零一二三四五六七八九十点點.\d]+"
    r"|万分之[零一二三四五六七八九十点點.\d]+|萬分之[零一二三四五六七八九十点點.\d]+|\d[\d,，]*(?:\.\d+)?\s*(?:元|万元|萬元)"
)
_LEFT_OUT = re.compile(
    r"保证金|保證金|押標金|专用合同条款中约定|另行约定|另行約定"
    r"|逾期付款|延迟付款|迟延付款|延期付款|逾期支付|遲延付款|逾期未付|遲延給付"  # the purchaser pays late
)
LONGEST = 200  # characters: a longer "sentence" is a table or a list run together


def delay_damages(sentence: str) -> str | None:
    """The clause of ``sentence`` (one line) setting a rate of damages per day, week or time of delay, without its
    spaces, or None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence):
        return None
    if not (_LATE.search(sentence) and _PAID.search(sentence) and _PER.search(sentence) and _RATE.search(sentence)):
        return None
    return " ".join(sentence.split())
