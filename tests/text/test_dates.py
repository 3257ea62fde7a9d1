"""Dates as documents write them: one table of forms, each read to the day it names, worked out by hand (民國114年 is
1911 + 114 = 2025; 15/12/2025 is day first; "99年" is a year of the Republic only in a Taiwanese text)."""

from __future__ import annotations

import pytest

from pikelocal.text.dates import MONTHS, date_spans
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
