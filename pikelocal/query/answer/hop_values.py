"""The values a system-driven hop compares or computes: dates read from text and compared, countries named by their
name or their people's ("Dutch", "the Netherlands"), and a day counted from another by a period ("30 days after 1
March 2025"). Pure: no model.

A date is (year, month, day), month and day optional ("1930", "March 1930", "17 February 1948", "December 17,
1894", "c. 1520", "25 BC"). Two dates compare on what both state: equal years with a month missing on either side
do not decide. A life's span in a sentence ("David Butler (December 17, 1894 – June 14, 1979) was …", "(born 1951
in Timişoara)") says which date is the birth and which the death, whichever of the two the model answered with.
"""

from __future__ import annotations

import calendar
import datetime
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pikelocal.domain.review import Value
from pikelocal.text.dates import MONTHS

_MONTH_NAMES = "|".join(sorted((m.capitalize() for m in MONTHS), key=len, reverse=True))
_ERA = r"(?:\s*(?P<era{n}>BC|BCE|AD|CE)\b)?"
_ORDINAL = r"(?:st|nd|rd|th)?"


def _month(n: int) -> str:
    return rf"(?P<month{n}>{_MONTH_NAMES})\.?"


def _year(n: int) -> str:
    return rf"(?P<year{n}>\d{{1,4}})(?![\d]|[,.]\d)" + _ERA.format(n=n)


_DATE = re.compile(
    rf"(?<![\w,.])(?:(?P<day1>\d{{1,2}}){_ORDINAL}\s+{_month(1)}\s*,?\s+{_year(1)}"  # 17 February 1948
    rf"|{_month(2)}\s+(?P<day2>\d{{1,2}}){_ORDINAL}\s*,?\s+{_year(2)}"  # December 17, 1894
    rf"|{_month(3)}\s*,?\s+{_year(3)}"  # March 1930
    rf"|(?P<year4>\d{{3,4}})(?![\d]|[,.]\d)"
    + _ERA.format(n=4)  # 1930, 1520 BC
    + r"|(?P<year5>\d{1,2})\s*(?P<era5>BC|BCE|AD|CE)\b)"  # 25 BC
)
_SPAN = re.compile(r"\(([^()]*)\)")
_DASH = re.compile(r"\s*[–—―-]\s*|\s+to\s+")
_BORN = re.compile(r"\b(?:born|b\.)\s", re.IGNORECASE)
_DIED = re.compile(r"\b(?:died|d\.)\s", re.IGNORECASE)


@dataclass(frozen=True)
class Date:
    """A date as far as the text states it; ``text`` as it stood."""

    year: int
    month: int | None = None
    day: int | None = None
    text: str = ""


def dates_in(text: str) -> list[Date]:
    """Every date the text states, in order (a bare year of three or four digits counts)."""
    out: list[Date] = []
    for m in _DATE.finditer(text):
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        year = next(g[f"year{n}"] for n in range(1, 6) if f"year{n}" in g)
        era = next((g[f"era{n}"] for n in range(1, 6) if f"era{n}" in g), "")
        month_name = next((g[f"month{n}"] for n in range(1, 4) if f"month{n}" in g), None)
        day = g.get("day1") or g.get("day2")
        value = -int(year) if era in ("BC", "BCE") else int(year)
        month = MONTHS[month_name.lower()] if month_name else None
        out.append(Date(value, month, int(day) if day else None, m.group(0).strip()))
    return out


def first_date(text: str) -> Date | None:
    found = dates_in(text)
    return found[0] if found else None


def life_span(text: str) -> tuple[Date | None, Date | None] | None:
    """(birth, death) from the first bracketed life span of a sentence ("(1894 – 1979)", "(born 1951 in …)",
    "(died 5 May 1920)", a lone date just after the name: the birth); None when the text has none."""
    for m in _SPAN.finditer(text):
        inside = m.group(1)
        parts = _DASH.split(inside, maxsplit=1)
        if len(parts) == 2:
            birth, death = first_date(parts[0]), first_date(parts[1])
            if birth is not None and death is not None:
                return birth, death
        found = first_date(inside)
        if found is None:
            continue
        if _DIED.search(inside) and not _BORN.search(inside):
            return None, found
        if _BORN.search(inside) or (m.start() < 80 and len(dates_in(inside)) == 1 and not _DIED.search(inside)):
            return found, None  # "(born 1951 in …)"; a lone date after the name: "Vrindavan Lal Verma( 9 January 1889)"
    return None


def span_places(text: str) -> tuple[str, str]:
    """(birth place, death place) from the first bracketed life span that names one: "(3 November 1624 in
    Solothurn, Switzerland – 19 May 1707 in Paris)", "(born 1951 in Timişoara, Romania)"; "" where it names none."""
    for m in _SPAN.finditer(text):
        halves = _DASH.split(m.group(1), maxsplit=1)
        if first_date(halves[0]) is None:
            continue
        places = [_place_after_date(h) for h in halves]
        if len(places) == 1:
            places.append("")
            if _DIED.search(m.group(1)) and not _BORN.search(m.group(1)):
                places.reverse()
        if any(places):
            return places[0], places[1]
    return "", ""


def _place_after_date(half: str) -> str:
    """What follows the date of one half of a life span, when it is a name: "3 November 1624 in Solothurn",
    "20 December 1795, Stockholm", "August 21, 1901 Oklahoma City, Oklahoma"."""
    found = _DATE.search(half)
    if found is None:
        return ""
    rest = re.match(r"[\s,]*(?:in\s+)?([A-Z][^;()]*)$", half[found.end() :])
    return rest.group(1).strip(" ,.") if rest else ""


Order = Literal["earlier", "later", "same"]


def compare_dates(a: Date, b: Date) -> Order | None:
    """Which of two dates is earlier, on what both state; None when they do not decide (the same year, and a month
    or day missing on either side, or equal)."""
    for x, y in ((a.year, b.year), (a.month, b.month), (a.day, b.day)):
        if x is None or y is None:
            return None
        if x != y:
            return "earlier" if x < y else "later"
    return None


# ---- countries ---------------------------------------------------------------------------------------------------

# A country and the words that name it or its people (capitalised as written in prose).
_COUNTRIES: tuple[tuple[str, ...], ...] = (
    ("United States", "American", "USA", "U.S.", "US", "United States of America", "America"),
    ("United Kingdom", "British", "UK", "English", "England", "Scottish", "Scotland", "Welsh", "Wales", "Britain"),
    ("Netherlands", "Dutch", "Holland"),
    ("Germany", "German"),
    ("West Germany", "West German"),
    ("East Germany", "East German"),
    ("France", "French"),
    ("Italy", "Italian"),
    ("Spain", "Spanish"),
    ("Portugal", "Portuguese"),
    ("Mexico", "Mexican"),
    ("Argentina", "Argentine", "Argentinian", "Argentinean"),
    ("Brazil", "Brazilian"),
    ("Chile", "Chilean"),
    ("Colombia", "Colombian"),
    ("Peru", "Peruvian"),
    ("Venezuela", "Venezuelan"),
    ("Cuba", "Cuban"),
    ("Uruguay", "Uruguayan"),
    ("Bolivia", "Bolivian"),
    ("Canada", "Canadian"),
    ("Australia", "Australian"),
    ("New Zealand", "New Zealander"),
    ("Ireland", "Irish"),
    ("Belgium", "Belgian"),
    ("Switzerland", "Swiss"),
    ("Austria", "Austrian"),
    ("Sweden", "Swedish"),
    ("Norway", "Norwegian"),
    ("Denmark", "Danish"),
    ("Finland", "Finnish"),
    ("Iceland", "Icelandic"),
    ("Poland", "Polish"),
    ("Czech Republic", "Czech", "Czechia"),
    ("Czechoslovakia", "Czechoslovak", "Czechoslovakian"),
    ("Slovakia", "Slovak"),
    ("Hungary", "Hungarian"),
    ("Romania", "Romanian"),
    ("Bulgaria", "Bulgarian"),
    ("Greece", "Greek"),
    ("Turkey", "Turkish"),
    ("Russia", "Russian"),
    ("Soviet Union", "Soviet", "USSR"),
    ("Ukraine", "Ukrainian"),
    ("Yugoslavia", "Yugoslav", "Yugoslavian"),
    ("Serbia", "Serbian"),
    ("Croatia", "Croatian"),
    ("Slovenia", "Slovenian", "Slovene"),
    ("Estonia", "Estonian"),
    ("Latvia", "Latvian"),
    ("Lithuania", "Lithuanian"),
    ("Georgia", "Georgian"),
    ("Armenia", "Armenian"),
    ("Israel", "Israeli"),
    ("Lebanon", "Lebanese"),
    ("Egypt", "Egyptian"),
    ("Iran", "Iranian", "Persian"),
    ("Iraq", "Iraqi"),
    ("India", "Indian", "Tamil", "Telugu", "Malayalam", "Kannada", "Hindi", "Marathi", "Bollywood"),
    ("Pakistan", "Pakistani"),
    ("Bangladesh", "Bangladeshi"),
    ("Sri Lanka", "Sri Lankan", "Sinhala", "Sinhalese"),
    ("Nepal", "Nepali", "Nepalese"),
    ("China", "Chinese"),
    ("Hong Kong", "Hong Konger"),
    ("Taiwan", "Taiwanese"),
    ("Japan", "Japanese"),
    ("South Korea", "South Korean", "Korean", "Korea"),
    ("North Korea", "North Korean"),
    ("Philippines", "Filipino", "Philippine"),
    ("Indonesia", "Indonesian"),
    ("Malaysia", "Malaysian"),
    ("Singapore", "Singaporean"),
    ("Thailand", "Thai"),
    ("Vietnam", "Vietnamese"),
    ("Nigeria", "Nigerian"),
    ("South Africa", "South African"),
    ("Kenya", "Kenyan"),
    ("Ghana", "Ghanaian"),
    ("Morocco", "Moroccan"),
    ("Algeria", "Algerian"),
    ("Tunisia", "Tunisian"),
)
# The longer names first, so "West German" is not read as "German" and "South Korean" not as "Korean".
_NAMES = sorted(((name, row[0]) for row in _COUNTRIES for name in row), key=lambda p: len(p[0]), reverse=True)
_COUNTRY = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n, _ in _NAMES) + r")(?![\w])")
_OF = {name: country for name, country in _NAMES}


def countries_in(text: str) -> frozenset[str]:
    """The countries the text names, by name or by their people's ("a 2014 Dutch comedy film" → Netherlands)."""
    out: set[str] = set()
    taken: list[tuple[int, int]] = []
    for m in _COUNTRY.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        taken.append((m.start(), m.end()))
        out.add(_OF[m.group(1)])
    return frozenset(out)


def same_country(a: Iterable[str], b: Iterable[str]) -> bool:
    return bool(set(a) & set(b))


def pick_date(answer: str, context: str, attribute: str) -> Date | None:
    """The date a hop answers with, read from its quote's sentence: the model's answer names the year (and maybe
    more); the sentence must state that year. A life span in the sentence decides which of its two dates is the
    birth and which the death, whichever one the model answered with; a birth date asked for a death the sentence
    does not state is no answer."""
    said = first_date(answer)
    if said is None:
        return None
    stated = dates_in(context)
    if not any(d.year == said.year for d in stated):
        return None
    if attribute in ("birth", "death") and (span := life_span(context)) is not None:
        birth, death = span
        ends = [d for d in (birth, death) if d is not None]
        if any(d.year == said.year for d in ends):
            return birth if attribute == "birth" else death
    same = [d for d in stated if d.year == said.year]
    return _fullest(same, said)


def _fullest(found: Sequence[Date], said: Date) -> Date:
    """Of the sentence's dates with the answer's year, the one agreeing with the answer's month and day, the most
    stated first."""
    agreeing = [d for d in found if said.month in (None, d.month) and said.day in (None, d.day)] or list(found)
    return max(agreeing, key=lambda d: (d.month is not None, d.day is not None))


# ---- a date counted from another ---------------------------------------------------------------------------------

_CALENDAR_DAYS = {"days": 1, "day": 1, "weeks": 7, "week": 7}
_CALENDAR_MONTHS = {"months": 1, "month": 1, "years": 12, "year": 12}


def as_day(value: Value) -> datetime.date | None:
    """A date value (its normal form "2025-03-01", an ROC date already counted in the Gregorian calendar) as a day;
    None for a date stated only to the month or year."""
    if value.kind != "date":
        return None
    try:
        return datetime.date.fromisoformat(value.normal)
    except ValueError:
        return None


def add_period(start: datetime.date, period: Value) -> datetime.date | None:
    """The day ``period`` (a duration read by ``text/values.py``: "30 days", "2 weeks", "3 months", "1 year") after
    ``start``: "之日起30日内" from 1 March ends on 31 March. Months and years keep the day of the month (the last day
    where the month is shorter). None for working days (they depend on the holidays) and any other unit."""
    if period.kind != "duration":
        return None
    count = period.normal.split(" ", 1)[0]
    if not count.isdigit():
        return None
    n = int(count)
    if period.unit in _CALENDAR_DAYS:
        return start + datetime.timedelta(days=n * _CALENDAR_DAYS[period.unit])
    if period.unit in _CALENDAR_MONTHS:
        months = start.month - 1 + n * _CALENDAR_MONTHS[period.unit]
        year, month = start.year + months // 12, months % 12 + 1
        return datetime.date(year, month, min(start.day, calendar.monthrange(year, month)[1]))
    return None
