"""Numbers as documents write them, one table per reader: each form and the number it means, worked out by hand
(二百六十四 is 2 × 100 + 6 × 10 + 4; 35万900 is 35 × 10,000 + 900; 二〇二四 is a year written digit by digit)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from pikelocal.text.numerals import EN_NUMBER, NUMBER, digits_value, en_number, han_number, parse_number

# --- a number as printed (the reviews' values) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("三十", 30), ("十五", 15), ("一百二十", 120), ("一千零五", 1005), ("两万", 20_000), ("伍拾万", 500_000),
        ("壹万贰仟", 12_000), ("35万900", 350_900), ("1.5亿", 150_000_000), ("3亿5000万", 350_000_000),
        ("350,900", 350_900), ("5千", 5000), ("十万", 100_000),
    ],
)  # fmt: skip
def test_parse_number(written: str, value: int) -> None:
    assert parse_number(written) == value


@pytest.mark.parametrize("written", ["万", "千", "二五"])
def test_not_a_number(written: str) -> None:
    assert parse_number(written) is None  # a unit alone; two digits run together may be a range (二五天)


PRINTED: list[tuple[str, Decimal]] = [
    ("35 万 900", Decimal(350_900)),  # PDF text spaces the pieces
    ("壹萬貳仟", Decimal(12_000)),  # traditional financial forms, unprepared
    ("兩百", Decimal(200)),
    ("１２０", Decimal(120)),  # full-width digits
    ("2.5", Decimal("2.5")),
]


@pytest.mark.parametrize(("written", "value"), PRINTED)
def test_a_printed_number_reads_as_its_value(written: str, value: Decimal) -> None:
    assert parse_number(written) == value


# --- one numeral standing alone (article numbers, numbers before a measure word) ------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [("四十六", 46), ("十", 10), ("十二", 12), ("二十", 20), ("一百零五", 105), ("二百六十四", 264), ("一千零一", 1001),
     ("两百", 200), ("64", 64), ("６４", 64), ("一二", None), ("abc", None), ("", None)],
)  # fmt: skip
def test_han_numbers(text: str, value: int | None) -> None:
    assert han_number(text) == value


HAN_FORMS: list[tuple[str, int | None]] = [
    ("一百零三", 103), ("二百三十二", 232), ("一〇三", 103), ("一千零七十七", 1077), ("二〇二四", 2024),
    ("两万", 20_000), ("兩萬", 20_000), ("伍佰", 500), ("零", 0), ("十五万", 150_000),
    ("万", None), ("百", None), ("第十", None), ("3万", None), ("一二三四", 1234),
]  # fmt: skip


@pytest.mark.parametrize(("text", "value"), HAN_FORMS)
def test_a_numeral_alone_reads_by_place_or_digit_by_digit(text: str, value: int | None) -> None:
    assert han_number(text) == value


DIGIT_FORMS: list[tuple[str, int | None]] = [("二〇二五", 2025), ("九九", 99), ("壹贰", 12), ("二十", None), ("", None)]


@pytest.mark.parametrize(("text", "value"), DIGIT_FORMS)
def test_digits_read_one_by_one(text: str, value: int | None) -> None:
    assert digits_value(text) == value


# --- English -------------------------------------------------------------------------------------------------------

EN_FORMS: list[tuple[str, int | None]] = [
    ("30", 30), ("thirty", 30), ("Thirty-one", 31), ("thirty (30)", 30), ("30 (thirty)", 30), ("nineteen", 19),
    ("ninety-nine", 99), ("1,250", 1250), ("zero", 0), ("dozen", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "value"), EN_FORMS)
def test_english_numbers(text: str, value: int | None) -> None:
    assert en_number(text) == (None if value is None else Decimal(value))


# --- the pattern pieces ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pattern", "numbers"),
    [
        ("共35万900元", NUMBER, ["35万900"]),
        ("共35 万 900元", NUMBER, ["35 万 900"]),
        ("统一35万元", NUMBER, ["一", "35万"]),  # Arabic digits join a Chinese numeral only after a multiplier
        ("版本5.2.1", NUMBER, []),  # 5.2.1 is no number
        ("thirty (30) days", EN_NUMBER, ["thirty (30)"]),
        ("30 (thirty) days", EN_NUMBER, ["30 (thirty)"]),
    ],
)
def test_the_pattern_pieces_take_a_number_whole(text: str, pattern: str, numbers: list[str]) -> None:
    assert [m.group(0) for m in re.finditer(pattern, text)] == numbers
