"""Values as a reviewer compares them: amounts, dates, durations, percentages and counts read from a text with their
spans, and yes/no, names and free text read from an answer, each in one normal form ("新臺幣35萬900元" →
"350900 TWD", "民國114年12月15日" → "2025-12-15", "百分之三十" → "30%", "三个月" → "3 months").

Pure functions over text (stdlib and ``re`` only: comparing two values must not load OpenCC). The text is first
mapped character for character (full-width → half-width, the traditional forms that numerals, units and dates are
written with → simplified), so every span found in the mapped text stands at the same offsets in the text as
written, and ``Value.text`` is exactly what the document prints.

Spans do not overlap: the readers run over the whole text and the candidates are taken by kind (date, percentage,
amount, duration, count), then longest first, so a date's digits are never also a count and "30%" is never also
an amount.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator
from decimal import ROUND_HALF_UP, Decimal

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text.bounds import EN_AT_LEAST, EN_AT_MOST
from pikelocal.text.dates import date_spans
from pikelocal.text.negation import NO_ANSWER, YES_ANSWER
from pikelocal.text.numerals import (
    ARABIC,
    EN_NUMBER,
    EN_WORD,
    GAP,
    HALF_WIDTH,
    NUMBER,
    any_number,
    en_number,
    parse_number,
)

# The kinds that are read as spans of a text, in the order overlapping candidates are taken.
SPAN_KINDS: tuple[ValueKind, ...] = ("date", "percentage", "amount", "duration", "count")
FIGURE_KINDS: tuple[ValueKind, ...] = ("amount", "date", "duration", "percentage")

# One character for one, so offsets survive: full-width ASCII → ASCII, ideographic space → space, ￥ → ¥, ○ → 〇.
_SAME_LENGTH: dict[int, int] = (
    HALF_WIDTH
    | {0x25CB: 0x3007}
    | str.maketrans(
        "萬億兩貳參叄陸個週臺幣曆國華號點圓頁張輛項處種標冊時鐘頭",
        "万亿两贰叁叁陆个周台币历国华号点元页张辆项处种标册时钟头",
    )
)
# Characters only one script writes; which has more decides whether a bare "99年" is a year of the Republic.
_TRADITIONAL_ONLY = frozenset("萬億國臺與為個這們會時間標證條書還說開關發號資貳參陸週曆處於當應")
_SIMPLIFIED_ONLY = frozenset("万亿国台与为个这们会时间标证条书还说开关发号资贰叁陆周历处于当应")

_PERCENT = re.compile(
    rf"(?P<k>百分之|千分之){GAP}(?P<z>{NUMBER})"
    rf"|(?P<n>{NUMBER}|{EN_NUMBER})[ \t]*(?P<u>%|‰|(?i:per[ \t]?cent|pct)\b)"
)
# A weight written in points, as scoring tables do ("投标报价：26.25分", "（0～25分）", "30 points"): Arabic digits only
# (十分 is "very"), never 分钟 (minutes), 分之 (a fraction), 分期, 分包, 分公司, 分册, 分行, 分值, 分析 and the like.
_POINTS = re.compile(
    rf"(?P<n>{ARABIC})[ \t]*(?:分(?![钟鐘之期别別包項项批公册冊部段局行店机機值析布配享类類解])|(?i:points?|marks?)\b)"
)
# A fraction: 二分之一 (one half), 三分之二; 百分之 and 千分之 are percentages and permilles above.
_FRACTION = re.compile(rf"(?<![百千])(?P<d>{NUMBER}){GAP}分之{GAP}(?P<n>{NUMBER})")

_CURRENCY = {
    **dict.fromkeys(("人民币", "RMB", "CNY", "¥", "yuan"), "CNY"),
    **dict.fromkeys(("新台币", "TWD", "NTD", "NT$"), "TWD"),
    **dict.fromkeys(("USD", "US$", "$", "美元", "dollar", "dollars"), "USD"),
    **dict.fromkeys(("AUD", "A$", "AU$", "澳元", "澳币"), "AUD"),
    **dict.fromkeys(("HKD", "HK$", "港元", "港币"), "HKD"),
    **dict.fromkeys(("EUR", "€", "欧元"), "EUR"),
    **dict.fromkeys(("GBP", "£", "英镑"), "GBP"),
    "日元": "JPY",
    "元": "元",  # 元 alone: a currency the text does not name (人民币 in the mainland, 新臺幣 in Taiwan)
    "块钱": "元",
}
_PREFIX = r"人民币|新台币|(?<![A-Za-z])(?:RMB|CNY|TWD|NTD|NT\$|US\$|USD|AU\$|A\$|AUD|HK\$|HKD|EUR|GBP)|€|£|¥|\$"
_SUFFIX = r"美元|澳元|澳币|港元|港币|欧元|英镑|日元|新台币|人民币|元|块钱|(?:CNY|RMB|TWD|NTD|USD|AUD|HKD|EUR|GBP)\b"
_SUFFIX += r"|(?i:dollars?|yuan)\b"
_AMOUNT = re.compile(
    rf"(?:(?P<pre>{_PREFIX})[ \t]*(?:\(大写\))?[ \t:]*)?(?P<n>{NUMBER})"
    rf"(?:[ \t]*(?P<x>(?i:million|billion|thousand|mn|bn|m|k))\b)?[ \t]*(?P<suf>{_SUFFIX})?(?P<z>整)?"
)
_MULTIPLIER = {"thousand": 10**3, "k": 10**3, "million": 10**6, "mn": 10**6, "m": 10**6, "billion": 10**9, "bn": 10**9}

# A form's blank filled in brackets ("簡報時間為（20）分鐘", "共(3)份"): the number stands between brackets right
# after a word, never at a line's or a clause's start, where "(1)" numbers a list ("（1）日期", "(2)项目").
_FILLED = r"(?:(?<=[\u4e00-\u9fff])(?P<o>[(\[【]))?"
_FILLED_END = r"(?(o)[)\]】])"

_DURATION_ZH = re.compile(
    rf"{_FILLED}(?P<n>{NUMBER}){_FILLED_END}{GAP}(?P<u>个?(?:日历天|日历日|自然日|工作日|工作天|天|日|星期|礼拜|周|半月|月|小时|钟头|分钟|年))"
)
_DURATION_EN = re.compile(
    rf"(?P<n>{EN_NUMBER})[ \t-]+(?:(?P<q>(?i:calendar|working|business|clear|consecutive))[ \t]+)?"
    r"(?P<u>(?i:days?|weeks?|months?|years?|hours?|minutes?))\b"
)
# unit as written → (normal unit, days per unit; None where a unit is no fixed number of days)
_DURATION_UNIT: dict[str, tuple[str, float | None]] = {
    **dict.fromkeys(("日历天", "日历日", "自然日", "天", "日", "day", "calendar day", "clear day"), ("day", 1.0)),
    **dict.fromkeys(("工作日", "工作天", "working day", "business day"), ("working day", None)),
    **dict.fromkeys(("星期", "礼拜", "周", "week"), ("week", 7.0)),
    **dict.fromkeys(("月", "半月", "month"), ("month", None)),
    **dict.fromkeys(("年", "year"), ("year", None)),
    **dict.fromkeys(("小时", "钟头", "hour"), ("hour", 1 / 24)),
    **dict.fromkeys(("分钟", "minute"), ("minute", 1 / 1440)),
}
_MAX_YEARS = 50  # "5年" is a duration, "2025年" and "114年" are years

_COUNT_ZH = re.compile(
    rf"{_FILLED}(?P<n>{NUMBER}){_FILLED_END}[ \t]*"
    r"(?P<u>个|人|名|份|页|家|次|项|件|套|本|台|辆|张|册|位|处|座|种|批|标段|包|支)"
)
_BOUND_WORDS = "|".join(re.escape(w) for w in sorted((*EN_AT_LEAST, *EN_AT_MOST), key=len, reverse=True))
_COUNT_EN = re.compile(
    rf"(?P<b>(?i:{_BOUND_WORDS}))[ \t]+(?P<n>{EN_NUMBER})"
    rf"|(?P<m>{EN_NUMBER})[ \t]+(?P<u>(?i:cop(?:y|ies)|persons?|people|members?|pages?|bidders?|tenderers?"
    r"|originals?|sets?|items?|referees?|references?|lots?))\b"
)
_BARE_NUMBER = re.compile(rf"(?:{NUMBER}|{EN_NUMBER})(?:[ \t]*(?P<x>(?i:million|billion|thousand))\b)?")

_JOINED_AFTER = re.compile(r"[-/:][0-9A-Za-z]")  # 0571-8888, 9:30, 1/2
_JOINED_BEFORE = re.compile(r"[0-9A-Za-z][-/:]$")
_TRIM = " \t\r\n.,;:!?。，、；：！？\"'“”‘’「」『』()（）[]【】*-–—·•"

Found = tuple[int, int, Value]
Reader = Callable[[str, str, bool], Iterator[Found]]


def is_traditional(text: str) -> bool:
    """More characters only traditional script writes than characters only simplified writes: a Taiwanese text,
    whose bare two-digit years ("99年") count from the founding of the Republic (1912)."""
    trad = sum(c in _TRADITIONAL_ONLY for c in text)
    return trad > sum(c in _SIMPLIFIED_ONLY for c in text)


def prepare(text: str) -> str:
    """The text mapped one character for one (offsets unchanged): half-width digits and marks, simplified forms of
    numerals and units (萬 → 万, 兩 → 两, 臺幣 → 台币, 圓 → 元)."""
    return text.translate(_SAME_LENGTH)


def number_text(n: Decimal | float) -> str:
    """A number as normal forms write it: an integer when whole, else up to two decimals (350900, 1.5, 0.33)."""
    q = Decimal(str(n)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    if q == q.to_integral_value():
        return str(int(q))
    return f"{q:f}".rstrip("0").rstrip(".")


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) without the spaces at either end (a pattern's optional tail may have taken some)."""
    while end > start and text[end - 1].isspace():
        end -= 1
    while start < end and text[start].isspace():
        start += 1
    return start, end


def _value(text: str, start: int, end: int, kind: ValueKind, normal: str, number: float | None, unit: str) -> Found:
    """A found value whose ``text`` is the span as written (not as prepared)."""
    start, end = _trimmed(text, start, end)
    return start, end, Value(kind=kind, text=text[start:end], normal=normal, number=number, unit=unit)


def _before(prepared: str, start: int) -> str:
    """The nearest character before ``start`` that is not a space: 第 before a number makes it an ordinal."""
    head = prepared[max(0, start - 8) : start].rstrip()
    return head[-1:] if head else ""


# --- dates -----------------------------------------------------------------------------------------------------


def _dates(text: str, prepared: str, traditional: bool) -> Iterator[Found]:
    """Every date (``text/dates.py``: Chinese, numeric, English, ROC) as a value."""
    for start, end, normal in date_spans(prepared, traditional):
        yield _value(text, start, end, "date", normal, None, "")


# --- percentages, amounts -------------------------------------------------------------------------------------


def _percentages(text: str, prepared: str, traditional: bool) -> Iterator[Found]:
    """30% · 30 % · ３０％ · 百分之三十 · 30 percent · 30 per cent · thirty percent · 千分之五 = 0.5% · 5‰ · 二分之一 =
    50%; a weight
    in points (26.25分, 30 points) is a percentage whose unit is points: its share of a total the text may not
    state."""
    for m in _PERCENT.finditer(prepared):
        n = parse_number(m["z"]) if m["k"] else any_number(m["n"])
        if n is None:
            continue
        if m["k"] == "千分之" or m["u"] == "‰":
            n = n / 10
        yield _value(text, m.start(), m.end(), "percentage", f"{number_text(n)}%", float(n), "%")
    for m in _FRACTION.finditer(prepared):
        d, n = parse_number(m["d"]), parse_number(m["n"])
        if d and n is not None and n <= d:
            share = n * 100 / d
            yield _value(text, m.start(), m.end(), "percentage", f"{number_text(share)}%", float(share), "%")
    for m in _POINTS.finditer(prepared):
        n = any_number(m["n"])
        if n is not None:
            yield _value(text, m.start(), m.end(), "percentage", f"{number_text(n)} points", float(n), "points")


def _amounts(text: str, prepared: str, traditional: bool) -> Iterator[Found]:
    """A number with a currency before or after it: 人民币伍拾万元整 · 35万900元 · 1.5亿元 · 新臺幣350,900元 ·
    ¥50,000 · US$1.5 million · 350,900 dollars. 元 alone names no currency and stays 元."""
    for m in _AMOUNT.finditer(prepared):
        pre, suf, mult = m["pre"], m["suf"], (m["x"] or "").lower()
        currency = _currency(pre) or _currency(suf)
        if currency is None or (mult in ("m", "k", "mn", "bn") and not pre):
            continue
        n = parse_number(m["n"])
        if n is None:
            continue
        n *= _MULTIPLIER.get(mult, 1)
        yield _value(text, m.start(), m.end(), "amount", f"{number_text(n)} {currency}", float(n), currency)


def _currency(written: str | None) -> str | None:
    """The currency a prefix or suffix names (RMB, 新台币, US$, dollars, 元), or None."""
    if not written:
        return None
    return _CURRENCY.get(written) or _CURRENCY.get(written.lower()) or _CURRENCY.get(written.upper())


# --- durations, counts --------------------------------------------------------------------------------------------


def _duration(text: str, start: int, end: int, n: Decimal, unit: str) -> Found:
    """The normal form keeps the unit ("3 months", "15 working days"); the number is in days only where a unit is
    a fixed number of days (days, weeks, hours), else None."""
    name, days = _DURATION_UNIT[unit]
    plural = "" if n == 1 else "s"
    number = float(n) * days if days is not None else None
    return _value(text, start, end, "duration", f"{number_text(n)} {name}{plural}", number, f"{name}s")


# a number times the one before it: 7×24小时, 5 x 8 小时, 7*24
_TIMES_BEFORE = re.compile(r"\d\s*[×xX*＊]\s*$")


def _durations_zh(text: str, prepared: str, traditional: bool) -> Iterator[Found]:
    """240日历天 · 90天 · 28日内 · 15个工作日 · 三个月 · 一个半月 · 2周 · 24小时 · 5年 · 一年半. Not a duration: 15日
    after 月 (a day of the month), 3月 without 个 (March), 2025年 (a year), 5周岁 (an age), 第5日 (an ordinal)."""
    for m in _DURATION_ZH.finditer(prepared):
        unit = m["u"].removeprefix("个")
        n = parse_number(m["n"])
        if n is None or n == 0 or _before(prepared, m.start()) == "第" or _not_a_duration(prepared, m, unit, n):
            continue
        end = m.end()
        if unit == "半月":
            n += Decimal("0.5")
        elif unit == "年" and prepared[end : end + 1] == "半":  # 一年半, 两年半: and a half
            n, end = n + Decimal("0.5"), end + 1
        yield _duration(text, m.start(), end, n, unit)


def _not_a_duration(prepared: str, m: re.Match[str], unit: str, n: Decimal) -> bool:
    """Whether a number before a unit of time names a point instead: the 15th of a month (12月15日, 于15日前), March
    (3月), a year (2025年, 民国5年, 2025年度, 25年12月), an age or anniversary (18周岁, 5周年), or the hours of a
    service's cover (7×24小时, 5*8小时: days by hours, no length of time)."""
    if _TIMES_BEFORE.search(prepared, max(0, m.start() - 6), m.start()):
        return True
    after = prepared[m.end() : m.end() + 1]
    if unit == "日":
        return _before(prepared, m.start()) in ("月", "年", "于")
    if unit == "月":
        return not m["u"].startswith("个")
    if unit == "周":
        return after in ("年", "岁")
    if unit == "年":
        dated = re.match(rf"{GAP}\d{{1,2}}{GAP}月", prepared[m.end() : m.end() + 12])
        return (
            n > _MAX_YEARS
            or after in ("度", "级", "代")
            or bool(dated)
            or "民国" in prepared[max(0, m.start() - 4) : m.start()]
        )
    return False


def _durations_en(text: str, prepared: str, traditional: bool) -> Iterator[Found]:
    """90 days · 30 calendar days · 15 working days · 6 months · 2 years · thirty (30) days · 6-month."""
    for m in _DURATION_EN.finditer(prepared):
        n = en_number(m["n"])
        if n is None or n == 0:
            continue
        qualifier = (m["q"] or "").lower()
        unit = m["u"].lower().rstrip("s")
        key = f"{qualifier} {unit}" if qualifier in ("working", "business", "calendar", "clear") else unit
        yield _duration(text, m.start(), m.end(), n, key)


def _count(text: str, start: int, end: int, n: Decimal, unit: str) -> Found:
    """A count: its normal form is the bare number, its unit the measure word (人, 份, copies)."""
    return _value(text, start, end, "count", number_text(n), float(n), unit)


def _counts(text: str, prepared: str, traditional: bool) -> Iterator[Found]:
    """4人 · 8份 · 30页 · 四家 · not more than four · three (3) copies. An ordinal (第3页) is no count."""
    for m in _COUNT_ZH.finditer(prepared):
        n = parse_number(m["n"])
        if n is not None and _before(prepared, m.start()) != "第":
            yield _count(text, m.start(), m.end(), n, m["u"])
    for m in _COUNT_EN.finditer(prepared):
        n = en_number(m["n"] or m["m"])
        if n is not None:
            yield _count(text, m.start(), m.end(), n, (m["u"] or "").lower())


_READERS: tuple[Reader, ...] = (_dates, _percentages, _amounts, _durations_zh, _durations_en, _counts)


def values_in(
    text: str, kinds: Collection[ValueKind] = FIGURE_KINDS, *, traditional: bool | None = None
) -> list[tuple[int, int, Value]]:
    """Every value of ``kinds`` in ``text`` with its [start, end) span, left to right, without overlaps.

    Every kind is read even when fewer are asked for, so that a value of another kind keeps its text: the digits of
    a date are never counts. ``traditional`` says whether the text is Taiwanese (bare two-digit ROC years); None:
    judged from the text. Yes/no, names and text are answers, not spans: ``normalise`` reads them.
    """
    prepared = prepare(text)
    roc = is_traditional(text) if traditional is None else traditional
    candidates = [(SPAN_KINDS.index(v.kind), s, e, v) for reader in _READERS for s, e, v in reader(text, prepared, roc)]
    candidates.sort(key=lambda c: (c[0], c[1] - c[2], c[1]))  # by kind, then longest, then leftmost
    starts: list[int] = []
    ends: list[int] = []
    taken: list[Found] = []
    for _rank, s, e, value in candidates:
        i = bisect_right(starts, s)
        if (i and ends[i - 1] > s) or (i < len(starts) and starts[i] < e) or s >= e:
            continue
        if _placeholder(prepared[s:e]):
            continue
        starts.insert(i, s)
        ends.insert(i, e)
        taken.insert(i, (s, e, value))
    wanted = set(kinds)
    return [found for found in taken if found[2].kind in wanted]


def _placeholder(span: str) -> bool:
    """A form's blank printed as circles ("服務建議書○頁", "新臺幣○○元", "○年○月○日"): every numeral of the span is
    〇, which stands for zero only beside other digits (二〇二五). 零 alone is a real zero ("得零分")."""
    return {c for c in span if c.isnumeric()} == {"〇"}


def normalise(text: str, kind: ValueKind) -> Value | None:
    """The first value of ``kind`` in an answer or quote, in its normal form; None when the text holds none.

    An amount, percentage or count may also be a bare number that is the whole text ("350,900", "30"; an amount
    then has no unit); a count also the first number that no other value holds ("not more than four" → 4).
    """
    if kind in SPAN_KINDS:
        found = values_in(text, SPAN_KINDS)
        for _s, _e, value in found:
            if value.kind == kind:
                return value
        return _bare(text, kind, found)
    if kind == "yesno":
        return _yesno(text)
    normal = " ".join(text.translate(HALF_WIDTH).split()).strip(_TRIM)
    return Value(kind=kind, text=text.strip(), normal=normal) if normal else None


def _bare(text: str, kind: ValueKind, found: list[Found]) -> Value | None:
    """A value of ``kind`` from a bare number: the whole text for an amount or percentage, the first number outside
    every other value's span for a count."""
    prepared = prepare(text)
    if kind in ("amount", "percentage", "count"):
        start, end = _trimmed(prepared, 0, len(prepared))
        m = _BARE_NUMBER.fullmatch(prepared.rstrip(_TRIM), start)
        n = any_number(m.group(0).removesuffix(m["x"] or "")) if m else None
        if m is not None and n is not None:
            n *= _MULTIPLIER.get((m["x"] or "").lower(), 1)
            normal = f"{number_text(n)}%" if kind == "percentage" else number_text(n)
            unit = "%" if kind == "percentage" else ""
            return Value(kind=kind, text=text[start : m.end()], normal=normal, number=float(n), unit=unit)
    if kind == "count":
        for m in re.finditer(rf"{ARABIC}|\b{EN_WORD}\b", prepared):
            n = any_number(m.group(0))
            if n is not None and _standalone(prepared, m.start(), m.end(), found):
                return Value(kind="count", text=text[m.start() : m.end()], normal=number_text(n), number=float(n))
    return None


_SCALES = (10**3, 10**4, 10**6, 10**8, 10**9)  # 千, 万, million, 亿, billion
_AMOUNT_ONLY: tuple[ValueKind, ...] = ("amount",)
_DATE_ONLY: tuple[ValueKind, ...] = ("date",)


def as_printed(value: Value, quote: str) -> Value:
    """A bare number that a reader copied from ``quote`` without its multiplier and unit ("10" from 「新臺幣10萬元
    整」, "1300" from 「1300 萬元」) read as the quote prints it (100000 TWD); ``value`` itself when it has a unit,
    when no amount of the quote is that number scaled, or when two such amounts disagree."""
    if value.kind != "amount" or value.unit or value.number is None or value.number <= 0:
        return value
    digits = value.text.replace(",", "").strip()
    scaled = [
        v
        for _s, _e, v in values_in(quote, _AMOUNT_ONLY)
        if v.number is not None
        and digits in v.text.replace(",", "").replace(" ", "")
        and any(abs(v.number - value.number * k) < 0.005 for k in _SCALES)
    ]
    return scaled[0] if scaled and all(same_value(scaled[0], v) for v in scaled) else value


# Kinds a bare number may be printed as and still answer an item of a kind (a weight in points is a percentage).
_PRINTED_AS: dict[ValueKind, frozenset[ValueKind]] = {
    "amount": frozenset({"amount"}),
    "date": frozenset({"date"}),
    "duration": frozenset({"duration", "date"}),
    "count": frozenset({"count"}),
    "percentage": frozenset({"percentage"}),
}
_BARE_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def printed_as_other(value: Value, quote: str) -> bool:
    """A bare number the reader copied (no unit of its own) that ``quote`` prints only as a value of another kind:
    "30" for an amount where the quote says 「30 日」内缴纳 (a duration), "5" for a percentage where it says 「5 人」.
    False when the quote prints it as the value's kind too, not as a value at all (a table's bare cell), or when
    the value has a unit."""
    digits = value.text.replace(",", "").strip()
    if value.kind not in _PRINTED_AS or not _BARE_DIGITS.fullmatch(digits):
        return False
    number = re.compile(rf"(?<![\d.]){re.escape(digits)}(?![\d.])")
    printed = [v for _s, _e, v in values_in(quote, SPAN_KINDS) if number.search(v.text.replace(",", ""))]
    # points are a weight (a percentage) and a score (a count: 合格分數 70 分)
    kinds = {v.kind for v in printed} | ({"count"} if any(v.unit == "points" for v in printed) else set())
    return bool(kinds) and not kinds & _PRINTED_AS[value.kind]


_ROC_YEAR = re.compile(r"民[國国]|(?<!\d)\d{2,3}\s*年")


def dates_as_printed(answer: str, quotes: Collection[str]) -> str:
    """An answer's dates written as its quotes' ROC dates are, so that their digits are found there: a date a
    quote prints with an ROC year (「民國 115年1月27日」) answered converted (2026年1月27日), or converted wrongly
    (2015年1月27日: 115 + 1900), becomes 115年1月27日. The second only where no quote holds the answer's own date
    and the quotes hold exactly one ROC date of the same month and day. ``answer`` unchanged elsewhere (a
    Gregorian date is found by its own digits)."""
    found = values_in(answer, _DATE_ONLY)
    if not found:
        return answer
    printed = [v for quote in quotes for _s, _e, v in values_in(quote, _DATE_ONLY)]
    out = answer
    for start, end, value in reversed(found):
        if len(value.normal) != len("2026-01-27") or _ROC_YEAR.search(value.text):
            continue  # a partial date, or one already written with its ROC year
        if any(p.normal == value.normal and not _ROC_YEAR.search(p.text) for p in printed):
            continue  # the quote prints it as the answer does
        roc = {p.normal for p in printed if p.normal[4:] == value.normal[4:] and _ROC_YEAR.search(p.text)}
        if value.normal in roc or len(roc) == 1:
            year, month, day = (int(part) for part in (value.normal if value.normal in roc else roc.pop()).split("-"))
            out = out[:start] + f"{year - 1911}年{month}月{day}日" + out[end:]
    return out


def _standalone(prepared: str, start: int, end: int, found: list[Found]) -> bool:
    """A number that is none of: part of another value, an ordinal (第3条), part of a phone number, time or code
    (0571-8888, 9:30, A-12)."""
    if any(s < end and start < e for s, e, _v in found) or _before(prepared, start) == "第":
        return False
    return not (_JOINED_AFTER.match(prepared, end) or _JOINED_BEFORE.search(prepared, max(0, start - 2), start))


# A form's date left blank: 年, 月 and 日 with no digit between two of them ("2025 年 10 月 日", "____年__月__日").
_BLANK_DATE = re.compile(r"年[ \t_＿]*月|月[ \t_＿]*[日号]")


def is_blank_date(text: str) -> bool:
    """A date field of a form that was never filled in, as a template's "2025年月日": no date, whatever its year."""
    return bool(_BLANK_DATE.search(prepare(text))) and not values_in(text, _DATE_ONLY)


def _yesno(text: str) -> Value | None:
    """是/否, 正确/错误, yes/no, true/false at the start of an answer (a no first: 不正确 is no, not 正确)."""
    prepared = prepare(text)
    start = len(prepared) - len(prepared.lstrip(_TRIM))
    for pattern, normal in ((NO_ANSWER, "no"), (YES_ANSWER, "yes")):
        m = pattern.match(prepared, start)
        if m:
            return Value(kind="yesno", text=text[m.start() : m.end()], normal=normal)
    return None


_YUAN = frozenset({"元", "", "CNY", "TWD"})  # 元 alone (or no unit) is either of these


def same_currency(a: Value, b: Value) -> bool:
    """Two amounts in one currency: the same unit, or 元 (or no unit) beside 元, CNY or TWD (a Taiwanese 「5萬元」 is
    in TWD as 「新臺幣5萬元」 is)."""
    return a.unit == b.unit or ({a.unit, b.unit} <= _YUAN and bool({a.unit, b.unit} & {"元", ""}))


def same_value(a: Value, b: Value) -> bool:
    """Two values of one kind are the same when their normal forms are; besides, an amount in 元 (no currency
    named) or without a unit equals the same number in CNY or TWD (新臺幣35萬900元 = 350,900元), a duration equals
    one of the same number of days (2 weeks = 14 days), a weight in points equals the same percentage, and names
    and text compare without case."""
    if a.kind != b.kind:
        return False
    if a.kind in ("name", "list", "text"):
        return a.normal.casefold() == b.normal.casefold()
    if a.normal == b.normal:
        return True
    if a.kind == "duration" and (months := (_in_months(a), _in_months(b)))[0] is not None:
        return months[0] == months[1]  # 12个月 = 1年: a year is twelve months, though no fixed number of days
    if a.number is None or b.number is None or abs(a.number - b.number) > 0.005:
        return False
    if a.kind == "amount":
        return same_currency(a, b)
    if a.kind == "percentage":  # 25分 of a 100-point score is 25 %; a text saying both does not disagree
        return "points" in (a.unit, b.unit)
    return a.kind == "duration"


def _in_months(value: Value) -> Decimal | None:
    """A duration in months or years as a number of months ("1 year" → 12, "1.5 months" → 1.5); None for any
    other unit."""
    n, _, unit = value.normal.partition(" ")
    if unit not in ("month", "months", "year", "years"):
        return None
    try:
        return Decimal(n) * (12 if unit.startswith("year") else 1)
    except ArithmeticError:
        return None


# A deadline counted from an event instead of a date: 「投标截止日10日前」, 「磋商响应截止期 5 天以前」,
# 「获取招标文件之日起7个工作日内」; the clause before the count must name the event (a deadline, an opening, an award,
# a signing, a receipt …).
_DEADLINE_END = re.compile(r"\s*(?:以前|之前|前|以内|以內|之内|之內|内|內)")
_EVENT = re.compile(
    r"截止|开标|開標|决标|決標|定标|签订|簽訂|签约|簽約|收到|获取|獲取|领取|領取|届满|屆滿|发出|發出|公告|发布|發布"
)
_CLAUSE_START = re.compile(r"[，。；：,;:!?！？\n]")
EVENT_REACH = 24  # characters before the count where the event's clause may begin
_DURATION_ONLY: tuple[ValueKind, ...] = ("duration",)


def counted_deadline(text: str, number: str) -> tuple[int, int] | None:
    """Where ``text`` states a deadline counted from an event with ``number`` as its count of days (「投标截止时间
    10 日前」 for "10"): the span from the start of its clause to the end of 前/内, or None. The days are read as
    every duration is (``values_in``); the clause must name the event (``_EVENT``); a window of years counted back
    for experience (「截止投標日前 3 年內」) is no deadline."""
    wanted = parse_number(number)
    if wanted is None:
        return None
    for start, end, value in values_in(text, _DURATION_ONLY):
        count, _, unit = value.normal.partition(" ")
        close = _DEADLINE_END.match(text, end)
        if unit not in ("day", "days", "working day", "working days") or close is None or Decimal(count) != wanted:
            continue
        before = text[max(0, start - EVENT_REACH) : start]
        starts = [c.end() for c in _CLAUSE_START.finditer(before)]
        clause = before[starts[-1] :] if starts else before
        if _EVENT.search(clause):
            return start - len(clause), close.end()
    return None
