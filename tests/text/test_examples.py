"""Words that mark an example or a supposed case, as a table of forms (the conflicts and the statements read them)."""

from __future__ import annotations

import pytest

from pikelocal.text.examples import EXAMPLE, EXAMPLE_OR_CASE


@pytest.mark.parametrize(
    ("text", "example", "case"),
    [
        ("例如投标截止日为2014年6月30日", True, True),
        ("舉例而言，押標金為新臺幣5萬元", True, True),
        ("For example, if the closing date is 1 May", True, True),
        ("e.g. 30 days", True, True),
        # a supposed case: 如 … 为 …，则 …
        ("如投标截止日为2025年10月1日，则近3年是指2022年10月1日起", False, True),
        # no example: a plain rule, and 如 without a case
        ("投标截止时间为2025年10月25日", False, False),
        ("如有疑问，请联系招标人", False, False),
    ],
)
def test_examples_and_supposed_cases(text: str, example: bool, case: bool) -> None:
    assert bool(EXAMPLE.search(text)) is example
    assert bool(EXAMPLE_OR_CASE.search(text)) is case
