"""Sentences inviting bidders to obtain the tender documents within a period (text/document_periods.py), as notices
print them; a deadline, a registration alone or a date with no period is none."""

from __future__ import annotations

import pytest

from pikelocal.text.document_periods import obtaining_period


@pytest.mark.parametrize(
    ("sentence", "period", "start"),
    [
        (
            "4.1凡有意参加投标者，请于2024年12月20日08时30分至2024年12月24日23时59分(北京时间，下同)，"
            "登录宝华智慧招标共享平台下载电子招标文件。",
            "2024年12月20日08时30分至2024年12月24日23时59分",
            "2024-12-20",
        ),
        (
            "有意参加本次招标的潜在投标人，请于2026年4月30日16:00时至2026年5月12日16:00时（法定节假日除外）"
            "在上海国际招标有限公司网站在线领购招标文件。",
            "2026年4月30日16:00时至2026年5月12日16:00时",
            "2026-04-30",
        ),
        (
            "2.合格供应商可在 2025-06-10   9:00 至 2025-06-16   17:00 的时间内下载（获取）采购 文件"
            "并按照采购文件要求进行响应。",
            "2025-06-10 9:00 至 2025-06-16 17:00",
            "2025-06-10",
        ),
    ],
)
def test_the_period_to_obtain_the_documents(sentence: str, period: str, start: str) -> None:
    found = obtaining_period(sentence)
    assert found is not None and (found.text, found.start.normal) == (period, start)


@pytest.mark.parametrize(
    "sentence",
    [
        "所有投标文件应于2026年5月25日9:30时（北京时间）前递交到上海市静安区延安西路358号会议室。",  # a deadline
        "请于2026年6月8日9时00分至2026年6月9日17时00分报名。",  # registration, no document obtained
        "请于2025年6月10日前下载招标文件。",  # a day, no period
        "4.2 完成注册登记后，请于 2025 年 月 日至 2025 年 月 日24：00时止下载招标文件",  # a template's blanks
    ],
)
def test_no_period_to_obtain_the_documents(sentence: str) -> None:
    assert obtaining_period(sentence) is None
