"""What the system computes at the end of a chain, from values as ``text/values.py`` reads them: a day counted
from another by a period (calendar days, weeks, months, years; ROC dates; working days not counted), and whether
two documents' amounts are the same. No model."""

from __future__ import annotations

import datetime

import pytest

from pikelocal.query.answer.hop_values import add_period, as_day
from pikelocal.text.values import normalise, same_value


@pytest.mark.parametrize(
    ("anchor", "period", "end"),
    [
        ("本合同于2025年3月1日签订", "合同签订之日起30日内", datetime.date(2025, 3, 31)),
        ("The contract was signed on 2 June 2025.", "within 14 days after the signing", datetime.date(2025, 6, 16)),
        ("The contract was signed on 2 June 2025.", "within 3 weeks after the signing", datetime.date(2025, 6, 23)),
        ("验收合格日期为2025年7月1日", "验收合格之日起2个月内", datetime.date(2025, 9, 1)),
        ("民國114年3月1日簽約", "簽約之日起三十日內", datetime.date(2025, 3, 31)),  # ROC 114 = 2025
        ("中華民國114年1月31日決標", "決標後1個月內", datetime.date(2025, 2, 28)),  # no 31 February: its last day
        ("2024-02-29", "1 year", datetime.date(2025, 2, 28)),
        ("2025/12/20", "两周", datetime.date(2026, 1, 3)),  # across a year's end
    ],
)
def test_a_day_counted_from_another(anchor: str, period: str, end: datetime.date) -> None:
    start = normalise(anchor, "date")
    duration = normalise(period, "duration")
    assert start is not None and duration is not None
    day = as_day(start)
    assert day is not None and add_period(day, duration) == end


@pytest.mark.parametrize("period", ["10个工作日内", "within 5 business days", "十個工作天內"])
def test_working_days_are_not_counted(period: str) -> None:
    duration = normalise(period, "duration")
    assert duration is not None and add_period(datetime.date(2025, 3, 1), duration) is None


def test_a_date_stated_only_to_the_month_is_no_day() -> None:
    month = normalise("2025年3月", "date")
    assert month is not None and as_day(month) is None


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("金额为人民币伍万元整（¥50,000）", "金额为人民币50,000元", True),
        ("a bid bond of AUD 20,000", "A bid bond of AUD 20,000 is enclosed", True),
        ("新臺幣35萬900元", "350,900元", True),
        ("人民币5万元", "人民币50,500元", False),
        ("AUD 20,000", "USD 20,000", False),  # the same number in another currency
    ],
)
def test_two_documents_amounts_compare_by_value(a: str, b: str, same: bool) -> None:
    va, vb = normalise(a, "amount"), normalise(b, "amount")
    assert va is not None and vb is not None and same_value(va, vb) is same
