"""Which way a figure binds (``text/bounds.py``): a table of forms as tenders print them, each read by hand."""

from __future__ import annotations

import pytest

from pikelocal.text.bounds import bound_of, reached_case
from pikelocal.text.values import SPAN_KINDS, values_in


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("投标有效期为自投标截止之日起不少于90日历天", ["min"]),
        ("质保期须不少于3年", ["min"]),
        ("注册资本须不低于人民币500万元", ["min"]),
        ("最低分不能低于该项满分的 60%", ["min"]),  # 不能 as 不得
        ("每次服务时间不能超过 4 小时", ["max"]),
        ("具有5年以上项目管理经验", ["min"]),
        ("合同签订后30日历天内完成交货", ["max"]),
        ("预付款不超过合同金额的30%", ["max"]),  # a base between the bound word and the value
        ("投标报价不得超过最高限价人民币380万元", ["max"]),
        ("须于2026年4月20日上午9:30前递交", ["max"]),  # a time of day between the date and 前
        ("接到报修后须在2小时内响应，24小时内到达现场", ["max", "max"]),
        ("履约保证金为合同金额的10%", [""]),  # stated, not bounded
        ("正本1份、副本4份", ["", ""]),
        ("不少于90日历天，最迟2026年5月1日", ["min", "max"]),  # each value its own bound, the comma between them
        ("保固期間不得短於2年", ["min"]),
        ("The bid shall remain valid for at least 90 days", ["min"]),
        ("Delivery within 30 days of the order", ["max"]),
        ("no later than 31 May 2026", ["max"]),
        ("a performance bond of 10% of the contract price", [""]),
    ],
)
def test_bound_of_each_value(text: str, expected: list[str]) -> None:
    assert [bound_of(text, s, e) for s, e, _v in values_in(text, SPAN_KINDS)] == expected


@pytest.mark.parametrize(
    ("text", "figure", "reached"),
    [
        ("如因甲方原因导致工期延误超过3个月的，乙方有权暂停施工。", "3个月", True),
        ("契約執行期間得標廠商受罰累計達契約含稅總價 20%者，本公司得沒入履約保證金。", "20%", True),
        ("延误超过约定工期3天以上（包括3天）的，甲方有权要求乙方支付违约金。", "3天", True),
        ("履约保证金数额不超过合同金额的10%的，按实际收取。", "10%", False),  # 不超过: a ceiling, no case
        ("中标人应提交合同金额10%的履约保证金。", "10%", False),
    ],
)
def test_a_figure_a_case_reaches(text: str, figure: str, reached: bool) -> None:
    start = text.index(figure)
    assert reached_case(text, start, start + len(figure)) is reached
