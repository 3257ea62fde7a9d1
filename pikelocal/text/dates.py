"""Dates as documents write them, in one place: the Gregorian calendar in Chinese (2025年12月15日,
二〇二五年十二月十五日), in digits (2025-12-15, 15/12/2025) and in English (15 December 2025, December 15, 2025,
Dec. 2025), and the years of the Republic of China that Taiwanese documents count in (民國114年, 114/12/15:
Gregorian = ROC + 1911).

One table of English month names (``MONTHS``: names, abbreviations, numbers) serves every reader of English dates.
``date_spans`` reads a text whose characters ``values.prepare`` mapped (half-width digits, simplified 民国 and 号),
so its offsets are those of the text as written.

Pure functions over text (stdlib and ``re`` only).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from pikelocal.text.numerals import GAP, digits_value, parse_number

MONTH_NAMES: tuple[str, ...] = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december",
)  # fmt: skip
# Every way English writes a month, lower case → its number: the name, its first three letters, "sept".
MONTHS: dict[str, int] = (
    {m: i for i, m in enumerate(MONTH_NAMES, 1)} | {m[:3]: i for i, m in enumerate(MONTH_NAMES, 1)} | {"sept": 9}
)
ROC_EPOCH = 1911  # a year of the Republic of China + 1911 = the Gregorian year
# A period of years counted back from an event, in simplified script: the words right before its number
# ("截止投标日前 3 年内", "自查询日往前推算三年内", "in the 3 years preceding the deadline" reads "preceding" after
# it). A window in which experience or a record is counted, not a deadline of the procedure.
COUNTED_BACK = re.compile(r"(?:日前|往前推算|往前推|回溯)\s*$")
YEARS = re.compile(r"年|(?<![a-z])years?(?![a-z])", re.I)
_ROC_MAX = 200  # a year of at most three digits up to this is a year of the Republic

# A month as written in prose: Title case or upper case, the longest name first ("Sept" before "Sep").
_MON = "(?P<mon>" + "|".join(n for m in sorted(MONTHS, key=len, reverse=True) for n in (m.title(), m.upper())) + ")"
_MON = rf"(?<![A-Za-z]){_MON}(?![A-Za-z])\.?"

# between a date's year and month, or month and day: a gap, or a table's cell border (「| 2026年 | 12月 | 16日 |」, a
# Word table printing a date one part a cell)
_PART_GAP = rf"(?:{GAP}|[ \t]*\|[ \t]*)"
_DATE_ZH = re.compile(
    rf"(?P<roc>(?:中华)?民国{GAP})?(?<![\d.])(?P<y>\d{{2,4}}|[〇零一二三四五六七八九十百]{{2,7}})(?!\d){GAP}年{_PART_GAP}"
    rf"(?P<m>1[ \t][0-2]|\d{{1,2}}|十[一二]?|[一二三四五六七八九])(?!\d){GAP}月"
    rf"(?:{_PART_GAP}(?P<d>[12][ \t]\d|3[ \t][01]|\d{{1,2}}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
    rf"(?!\d){GAP}[日号])?"
)
_BLANK_DAY = re.compile(r"[ \t_＿]*[日号]")
_DATE_ISO = re.compile(r"(?<![\d.\-/])(?P<y>\d{4})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})(?!\d)(?!(?P=s)\d)")
_DATE_ROC = re.compile(r"(?<![\d.\-/])(?P<y>\d{3})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})(?!\d)(?!(?P=s)\d)")
_DATE_DMY = re.compile(r"(?<![\d.\-/])(?P<a>\d{1,2})(?P<s>[-/.])(?P<b>\d{1,2})(?P=s)(?P<y>\d{4})(?!\d)")
_DATE_EN_DMY = re.compile(
    rf"(?<![\d.])(?P<d>\d{{1,2}})(?:st|nd|rd|th)?{GAP}(?:day{GAP}of{GAP})?{_MON},?{GAP}(?P<y>\d{{4}})(?!\d)"
)
_DATE_EN_MDY = re.compile(rf"{_MON}{GAP}(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d),?{GAP}(?P<y>\d{{4}})(?!\d)")
_DATE_EN_MY = re.compile(rf"{_MON},?{GAP}(?P<y>\d{{4}})(?!\d)")

# A span [start, end) and the date's normal form (YYYY-MM-DD, or YYYY-MM without a day).
DateSpan = tuple[int, int, str]


def date_spans(prepared: str, traditional: bool) -> Iterator[DateSpan]:
    """Every date of a prepared text, Chinese, numeric and English, each as [start, end) and its normal form; spans
    may overlap (the caller chooses among them). ``traditional``: the text is Taiwanese, so a bare two-digit year
    ("99年") and a dated 114-12-15 count from the founding of the Republic."""
    yield from _dates_zh(prepared, traditional)
    yield from _dates_numeric(prepared, traditional)
    yield from _dates_en(prepared)


def _year(written: str, roc: bool, traditional: bool) -> int | None:
    """A Gregorian year from a year as written: 2025, 二〇二五; 114 (three digits, at most 200), 民國114, 民國九十九,
    or 99 in a Taiwanese text are years of the Republic. Two digits elsewhere: None."""
    if written.isdigit():
        n, digits = int(written), len(written)
    elif (by_digit := digits_value(written)) is not None:
        n, digits = by_digit, len(written)
    else:
        parsed = parse_number(written)
        if parsed is None:
            return None
        n, digits = int(parsed), len(str(int(parsed)))
    if digits == 4 and 1800 <= n <= 2200:
        return n
    if 1 <= n <= _ROC_MAX and (roc or digits == 3 or (traditional and digits == 2)):
        return n + ROC_EPOCH
    return None


def _small(written: str) -> int | None:
    """A month or day number: 12, 十二, 三十一; 1 1 (PDF text splits a two-digit month: 「2027 年1 1月10日」)."""
    written = written.replace(" ", "").replace("\t", "")
    if written.isdigit():
        return int(written)
    parsed = parse_number(written)
    return int(parsed) if parsed is not None else None


def _span(start: int, end: int, year: int | None, month: int | None, day: int | None) -> DateSpan | None:
    """A date's span and normal form, or None where no such day exists."""
    if year is None or month is None:
        return None
    try:
        date(year, month, day or 1)
    except ValueError:
        return None
    return start, end, f"{year:04d}-{month:02d}" + (f"-{day:02d}" if day else "")


def _dates_zh(prepared: str, traditional: bool) -> Iterator[DateSpan]:
    """2025年12月15日 · 二〇二五年十二月十五日 · 民國114年12月15日 · 114 年 12 月 15\\n日 · 2025年12月. A month whose
    day was left blank ("2025 年 10 月 日", a form never filled in) is no date."""
    for m in _DATE_ZH.finditer(prepared):
        if not m["d"] and _BLANK_DAY.match(prepared, m.end()):
            continue
        year = _year(m["y"], bool(m["roc"]), traditional)
        day = _small(m["d"]) if m["d"] else None
        found = _span(m.start(), m.end(), year, _small(m["m"]), day)
        if found is not None and not (m["d"] and day is None):
            yield found


def _dates_numeric(prepared: str, traditional: bool) -> Iterator[DateSpan]:
    """2025-12-15 · 2025/12/15 · 2025.12.15 · 114/12/15 (ROC; with - or . only in a Taiwanese text) · 15/12/2025
    (day first, as Chinese, Australian and British documents write it, unless the first number cannot be a month
    and the second cannot be a day: 12/15/2025)."""
    for m in _DATE_ISO.finditer(prepared):
        found = _span(m.start(), m.end(), int(m["y"]), int(m["m"]), int(m["d"]))
        if found is not None:
            yield found
    for m in _DATE_ROC.finditer(prepared):
        if int(m["y"]) <= _ROC_MAX and (m["s"] == "/" or traditional):
            found = _span(m.start(), m.end(), int(m["y"]) + ROC_EPOCH, int(m["m"]), int(m["d"]))
            if found is not None:
                yield found
    for m in _DATE_DMY.finditer(prepared):
        a, b = int(m["a"]), int(m["b"])
        day, month = (b, a) if b > 12 >= a else (a, b)
        found = _span(m.start(), m.end(), int(m["y"]), month, day)
        if found is not None:
            yield found


def _dates_en(prepared: str) -> Iterator[DateSpan]:
    """15 December 2025 · 15th day of December, 2025 · December 15, 2025 · Dec. 15 2025 · December 2025."""
    for pattern in (_DATE_EN_DMY, _DATE_EN_MDY, _DATE_EN_MY):
        for m in pattern.finditer(prepared):
            day = int(m["d"]) if "d" in m.groupdict() else None
            found = _span(m.start(), m.end(), int(m["y"]), MONTHS[m["mon"].lower()], day)
            if found is not None:
                yield found
