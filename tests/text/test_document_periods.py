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
        (  # the documents as the subject (成都)
            "磋商文件自2026年6月30日至2026年7月6日每天上午9:00-12:00，下午13:00-17:00（北京时间）节假日除外"
            "在我司指定网站(http://sale.scbid.net)获取，具体获取流程详见该网站的“标书领取操作手册”。",
            "2026年6月30日至2026年7月6日",
            "2026-06-30",
        ),
        (  # the time of the sale, 为 the period (中国移动安徽)
            "采购文件售卖时间为 2025年 07 月 02 日 18 时 00 分至 2025 年 07 月 07 日 18 时 00 分（北京时间，下同）",
            "2025年 07 月 02 日 18 时 00 分至 2025 年 07 月 07 日 18 时 00 分",
            "2025-07-02",
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
        "投标文件自2025年7月1日至2025年7月3日递交。",  # the bids handed in, no document obtained
        "开标时间为2025年7月10日9时至10时，请于现场领取招标文件。",  # a time of day, not a period's end
    ],
)
def test_no_period_to_obtain_the_documents(sentence: str) -> None:
    assert obtaining_period(sentence) is None
