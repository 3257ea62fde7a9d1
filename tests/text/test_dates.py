"""Dates as documents write them: one table of forms, each read to the day it names, worked out by hand (民國114年 is
1911 + 114 = 2025; 15/12/2025 is day first; "99年" is a year of the Republic only in a Taiwanese text)."""

from __future__ import annotations

import pytest

from pikelocal.text.dates import MONTHS, counted_deadline, date_spans
from pikelocal.text.values import prepare

# text, Taiwanese?, the dates it names (normal forms, left to right)
FORMS: list[tuple[str, bool, list[str]]] = [
    ("2025年12月15日", False, ["2025-12-15"]),
    ("二〇二五年十二月十五日", False, ["2025-12-15"]),
    ("民國114年12月15日", True, ["2025-12-15"]),
    ("中華民國一百十四年十二月十五日", True, ["2025-12-15"]),
    ("114 年 12 月 15\n日", True, ["2025-12-15"]),
    ("2025年12月", False, ["2025-12"]),
    ("99年3月1日", True, ["2010-03-01"]),  # a bare two-digit year in a Taiwanese text
    ("99年3月1日", False, []),
    ("2025 年 10 月 日", False, []),  # a form's day left blank
    ("2025-12-15", False, ["2025-12-15"]),
    ("2025/12/15", False, ["2025-12-15"]),
    ("114/12/15", False, ["2025-12-15"]),  # a slash: ROC anywhere
    ("114.12.15", False, []),  # with a dot only in a Taiwanese text
    ("114.12.15", True, ["2025-12-15"]),
    ("15/12/2025", False, ["2025-12-15"]),  # day first
    ("12/15/2025", False, ["2025-12-15"]),  # 15 cannot be a month
    ("15 December 2025", False, ["2025-12-15", "2025-12"]),  # "December 2025" is read too; values keep the longest
    ("15th day of December, 2025", False, ["2025-12-15", "2025-12"]),
    ("December 15, 2025", False, ["2025-12-15"]),
    ("Sept. 1 2025", False, ["2025-09-01"]),
    ("DEC 2025", False, ["2025-12"]),
    ("2025-02-30", False, []),  # no such day
]


@pytest.mark.parametrize(("text", "traditional", "normals"), FORMS)
def test_a_written_date_reads_as_the_day_it_names(text: str, traditional: bool, normals: list[str]) -> None:
    assert [normal for _s, _e, normal in date_spans(prepare(text), traditional)] == normals


def test_a_span_stands_where_the_date_is_written() -> None:
    text = "於１１４年１２月１５日前"
    start, end, _ = next(date_spans(prepare(text), True))
    assert text[start:end] == "１１４年１２月１５日"


@pytest.mark.parametrize(("name", "number"), [("january", 1), ("jan", 1), ("may", 5), ("sep", 9), ("sept", 9)])
def test_one_table_of_english_months(name: str, number: int) -> None:
    assert MONTHS[name] == number


@pytest.mark.parametrize(
    ("text", "number", "phrase"),
    [
        ("时间：投标截止日10日前", "10", "投标截止日10日前"),
        ("投标截止时间 10 日前以书面 形式提出。", "10", "投标截止时间 10 日前"),  # spaced, as PDF text is
        ("均应在磋商响应截止期 5 天以前，按公告的地址通知", "5", "均应在磋商响应截止期 5 天以前"),
        ("应当在获取招标文件之日起7个工作日内提出", "7", "应当在获取招标文件之日起7个工作日内"),
        ("於開標日三日前以書面提出", "3", "於開標日三日前"),
        ("截止投標日前 3 年內之實績", "3", None),  # a window of years for experience, no deadline
        ("验收合格后 10 日内付款", "10", None),  # counted from no event of the procedure
        ("投标截止时间 10 日前", "5", None),  # another count
        ("请于 10 日前提交", "10", None),  # no event named in its clause
    ],
)
def test_a_deadline_counted_from_an_event(text: str, number: str, phrase: str | None) -> None:
    span = counted_deadline(text, number)
    assert (text[span[0] : span[1]] if span else None) == phrase
