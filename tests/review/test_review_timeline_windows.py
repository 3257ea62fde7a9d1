"""The timeline leaves out a window of years counted back from an event (experience, a clean record): it is a
qualification, no date of the procedure. Each sentence written by hand; what is kept is read off it."""

from __future__ import annotations

import pytest

from pikelocal.domain.review import Value
from pikelocal.domain.statements import Statement
from pikelocal.review.timeline import find_timeline

DOC = 4


def statement(value: Value, sentence: str) -> Statement:
    return Statement(DOC, value, "", (), sentence, "", 1, 1, 1, 100, 105)


YEARS3 = Value("duration", "3 年", "3 years", 1095, "day")
DAYS10 = Value("duration", "10 日", "10 days", 10, "day")


@pytest.mark.parametrize(
    ("value", "sentence", "kept"),
    [
        (YEARS3, "投標廠商於截止投標日前 3 年內完成之類似實績。", False),  # experience window
        (Value("duration", "三年", "3 years", 1095, "day"), "「自查詢日往前推算三年內無退票紀錄」。", False),
        (YEARS3, "投标人须提供投标截止日前3年内的类似业绩。", False),
        (DAYS10, "廠商應於截止投標日前 10 日內提出疑義。", True),  # days before the deadline: a deadline
        (Value("duration", "1 年", "1 year", 365, "day"), "自驗收合格之次日起 1 年內為保固期。", True),  # forward
        (YEARS3, "本工程於決標日之次日起 3 年內完成。", True),
    ],
)
def test_years_counted_back_are_no_deadline(value: Value, sentence: str, kept: bool) -> None:
    found = find_timeline([statement(value, sentence)], {DOC: "doc"})
    assert bool(found) is kept
