"""Numbers as documents write them, read in one place: Arabic digits (ASCII or full-width, with thousands commas),
Chinese numerals (everyday 一二三, financial 壹贰叁, traditional 兩 萬 億, with 十 百 千 and 万 亿), the two mixed
(35万900, 3亿5000万) and English number words (thirty, thirty-one).

Three readers over one set of tables: ``parse_number`` (a number as printed, its pieces possibly spaced: the reviews'
values), ``han_number`` (one numeral standing alone: an article number, a number before a measure word, a year
written digit by digit) and ``en_number``. The pattern pieces (``ARABIC``, ``NUMBER``, ``EN_WORD``, ``EN_NUMBER``,
``GAP``) are what the grammars of values, dates and citations build their patterns from.

Pure functions over text (stdlib and ``re`` only).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

# --- the tables ---------------------------------------------------------------------------------------------------

# Chinese digits: everyday, traditional and financial (大写) forms.
ZH_DIGITS: dict[str, int] = {
    "〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
    "壹": 1, "贰": 2, "貳": 2, "叁": 3, "參": 3, "叄": 3, "肆": 4, "伍": 5, "陆": 6, "陸": 6, "柒": 7, "捌": 8,
    "玖": 9,
}  # fmt: skip
# Units below ten thousand, everyday and financial; and the myriads, which multiply all that comes before them.
ZH_UNITS: dict[str, int] = {"十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000}
ZH_MYRIADS: dict[str, int] = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}

# The same characters as classes for patterns: everyday digits and units, financial forms, the two myriads.
ZH_DIGIT_CHARS = "〇零一二两兩三四五六七八九"
ZH_UNIT_CHARS = "十百千"
ZH_FINANCIAL_CHARS = "壹贰貳叁參叄肆伍陆陸柒捌玖拾佰仟"
ZH_WAN_CHARS = "万萬"
ZH_YI_CHARS = "亿億"
ZH_NUMERAL_CHARS = ZH_DIGIT_CHARS + ZH_UNIT_CHARS + ZH_FINANCIAL_CHARS + ZH_WAN_CHARS + ZH_YI_CHARS

EN_ONES: tuple[str, ...] = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)  # fmt: skip
EN_TENS: tuple[str, ...] = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
EN_NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(EN_ONES)} | {w: 10 * i for i, w in enumerate(EN_TENS, 2)}

# Full-width ASCII → ASCII, the ideographic space → a space, ￥ → ¥: one character for one, so offsets survive.
HALF_WIDTH: dict[int, int] = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20, 0xFFE5: 0xA5}

# --- the pattern pieces -------------------------------------------------------------------------------------------

GAP = r"[ \t]*(?:\r?\n[ \t]*)?"  # spaces and at most one line break: a value whose line wrapped is still read
ARABIC = r"(?<![\d.])(?<!\d,)(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d)(?!\.\d)"  # 5.2.1 is no number
# Arabic digits follow only a multiplier (35万900, 3亿5000万), so "统一35万" reads 35万, not 一35万. At most 24
# pieces: a longer run of numerals is no number, and the bound keeps reading a hostile text linear. PDF text spaces
# the pieces: "35 萬 900 元" (a remainder after 万 or 亿 of at most four digits that is no year or day: "35 萬 2025 年"
# is 35万 and a date). The multipliers are matched in their simplified forms: the text is ``values.prepare``d.
_AFTER_MULTIPLIER = r"(?<=[万亿])[ \t]+\d{1,4}(?![\d.,])(?![ \t]*[年月日号%])"
# A Chinese numeral wrapped by a PDF's line end ("起九\n十日" is ninety days) is read whole.
_ZH_WRAP = rf"(?<=[{ZH_NUMERAL_CHARS}])[ \t]*\r?\n[ \t]*(?=[{ZH_NUMERAL_CHARS}])"
NUMBER = (
    rf"(?:{ARABIC}|[{ZH_NUMERAL_CHARS}])"
    rf"(?:[{ZH_NUMERAL_CHARS}]|(?<=[十百千万亿拾佰仟]){ARABIC}|{_AFTER_MULTIPLIER}|[ \t]+(?=[万亿千])"
    rf"|{_ZH_WRAP}){{0,24}}"
)
EN_WORD = (
    "(?i:(?:" + "|".join(EN_TENS) + ")(?:-(?:" + "|".join(EN_ONES[1:10]) + "))?|"
    + "|".join(sorted(EN_NUMBER_WORDS, key=len, reverse=True)) + ")"
)  # fmt: skip
# "30", "30 (thirty)", "thirty", "thirty (30)"
EN_NUMBER = rf"(?:{ARABIC}(?:[ \t]*\([ \t]*[A-Za-z -]+\))?|\b{EN_WORD}\b(?:[ \t]*\([ \t]*{ARABIC}[ \t]*\))?)"

_TOKEN = re.compile(rf"\d[\d,]*(?:\.\d+)?|[{ZH_NUMERAL_CHARS}]")
_ZH_NUMERAL_SET = frozenset(ZH_NUMERAL_CHARS)
_ZH_DIGIT_SET = frozenset(ZH_DIGITS)
_ZEROS = frozenset("零〇")
_ARABIC = re.compile(ARABIC)

# --- the readers --------------------------------------------------------------------------------------------------


def parse_number(text: str) -> Decimal | None:
    """The value of a number written in Arabic digits, Chinese numerals or both: 350,900 · 三十 · 一百二十 · 伍拾万 ·
    35万900 · 1.5亿 · 3亿5000万 · 35 万 900 (what is no numeral between the pieces is passed over). None where it is no
    number: a bare 万 or 千 (a unit, as in 千元), or two numbers run together (二五, which may be a range)."""
    value = _place_value(_TOKEN.findall(text))
    return None if value is None else Decimal(value)


def _place_value(tokens: list[str]) -> int | Decimal | None:
    """The value of numeral tokens (Arabic numbers and single Chinese characters) read by place: each digit times
    the unit after it, each myriad times all since the last greater one; a 零 holds a place (一千零五). Units with
    no digit (千, 百万) are no number, but for a leading 十 (十五)."""
    high: int | Decimal = 0
    wan: int | Decimal = 0
    small: int | Decimal = 0
    digit: int | Decimal | None = None
    seen = False  # a digit was read (零 too)
    for t in tokens:
        if t in _ZEROS and len(tokens) > 1:  # a place holder: 一千零五
            if digit is not None:
                return None
            seen = True
            continue
        value: int | Decimal | None = ZH_DIGITS.get(t)
        if value is None and t[0].isdigit():
            value = _arabic(t)
        if value is not None:
            if digit is not None:
                return None
            digit, seen = value, True
        elif (unit := ZH_UNITS.get(t)) is not None:
            small += (1 if digit is None else digit) * unit
            digit = None
        else:  # a myriad: 万 multiplies what stands since the last 亿, 亿 all before it
            myriad = ZH_MYRIADS[t]
            part = (high + wan if myriad == 10**8 else 0) + small + (digit or 0)
            if part == 0:
                return None
            if myriad == 10**4:
                wan, small, digit = part * myriad, 0, None
            else:
                high, wan, small, digit = part * myriad, 0, 0, None
    if not tokens or not (seen or tokens[0] in "十拾"):
        return None
    return high + wan + small + (digit or 0)


def _arabic(token: str) -> int | Decimal:
    """An Arabic number token (350,900 · 1.5) as an int, or a Decimal where it has a fraction."""
    plain = token.replace(",", "")
    return Decimal(plain) if "." in plain else int(plain)


def digits_value(text: str) -> int | None:
    """Chinese digits read one by one, as a year is written (二〇二五 → 2025); None when any is no digit."""
    if not text or not _ZH_DIGIT_SET.issuperset(text):
        return None
    return int("".join(str(ZH_DIGITS[c]) for c in text))


def han_number(text: str) -> int | None:
    """One numeral standing alone: 四十六 → 46, 一百零五 → 105, 两万 → 20000, 64 and ６４ → 64, and three digits or
    more read one by one (二〇二四 → 2024, 一〇三 → 103). None for what is not one whole number: 一二 (two numbers),
    a bare unit (万, 百), anything that is no numeral."""
    text = unicodedata.normalize("NFKC", text.strip())
    if not text:
        return None
    if text.isdecimal():
        return int(text)
    if not _ZH_NUMERAL_SET.issuperset(text):
        return None
    if len(text) >= 3 and (digits := digits_value(text)) is not None:
        return digits
    value = _place_value(list(text))
    return None if value is None else int(value)


def en_number(text: str) -> Decimal | None:
    """30 · thirty · thirty-one · "thirty (30)" (the digits win) · "30 (thirty)"."""
    digits = _ARABIC.search(text)
    if digits:
        return Decimal(digits.group(0).replace(",", ""))
    word = text.strip().lower()
    tens, _, ones = word.partition("-")
    if tens in EN_TENS:
        return Decimal(EN_NUMBER_WORDS[tens] + (EN_ONES.index(ones) if ones in EN_ONES else 0))
    return Decimal(EN_NUMBER_WORDS[word]) if word in EN_NUMBER_WORDS else None


def any_number(text: str) -> Decimal | None:
    """A number in digits, Chinese numerals or English words."""
    if re.search(r"[A-Za-z]", text):
        return en_number(text)
    return parse_number(text)
