"""Clauses setting the damages for late performance at a rate (text/delay_damages.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.delay_damages import delay_damages


@pytest.mark.parametrize(
    "sentence",
    [
        "乙方逾期交货的，应向甲方支付赔偿金，其标准为每逾期一天，按合同总额的万分之三计算。",
        "每逾期1天，按合同总价0.5%支付违约金，逾期超过10天，甲方有权解除合同并索赔。",
        "2.乙方未按时完成服务或提交成果的，每逾期一日，应按合同总价款的万分之五向甲方支付违约金。",
        "（1）从迟交的第一周到第四周，每周迟延交付违约金为迟交合同设备价格的 0.5%；",
        "（5）如中标人延迟交货的，每出现一次须支付该批货款总额1%的违约金，且采购人有权于当月结算应付款项中予以扣除。",
        "並於 2 日內完成修復，每逾1 日，計罰3,000 元整，",
        "逾期履約者，每日依契約價金總額 1 ‰計算逾期違約金。",
    ],
)
def test_a_rate_of_damages_for_delay(sentence: str) -> None:
    assert delay_damages(sentence) == " ".join(sentence.split())


@pytest.mark.parametrize(
    "sentence",
    [
        "甲方逾期付款的，每日按应付款项的万分之五向乙方支付违约金。",  # the purchaser pays late
        "中标人逾期未提交履约保证金的，每日扣除投标保证金的1%。",  # a bond's forfeit
        "逾期违约金的计算方法和最高限额在专用合同条款中约定。",  # left to another document
        "逾期违约金累计不超过合同总价的10%。",  # a cap alone, no rate per day
        "乙方应每日按时提交工作日志，违约金详见合同。",  # no delay, no rate
    ],
)
def test_no_rate_where_the_clause_says_another_thing(sentence: str) -> None:
    assert delay_damages(sentence) is None
