"""A date item answered with a count of days that the quote prints as a deadline counted from an event (「投标截止
时间 10 日前」): the row shows that phrase as found, where it used to be "not stated" for want of a day; a count
the quote does not tie to an event stays not stated. The item's label here names no clarification, so that the
model answers it: a clarification item's count before the bids' deadline is read by the system before the model is
asked (``read_rows.clarification_row``, the last test)."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import load_settings
from tests.support.review_kb import reviewed

CHECKLIST = """name = "mini"
title = "小清单"

[[items]]
id = "clarification_deadline"
label = "提问截止时间"
section = "时间节点"
kind = "date"
question.hans = "对招标文件提出疑问或澄清要求的截止时间是什么时候？"
hints = ["澄清", "疑问", "疑義"]
"""
TEXT = (
    "# 投标人须知\n\n投标人要求澄清招标文件的，应在投标截止时间 10 日前以书面形式提出。\n\n验收合格后 15 日内付款。\n"
)


def test_a_count_of_days_before_the_deadline_is_the_deadline_as_printed(tmp_path: Path) -> None:
    reply = "原文：投标人要求澄清招标文件的，应在投标截止时间 10 日前以书面形式提出。\n答案：10日"
    row = reviewed(tmp_path, load_settings(), TEXT, reply, CHECKLIST)["clarification_deadline"]
    assert row.verdict == "found"
    assert row.answer == "应在投标截止时间 10 日前"
    assert row.quotes and "10 日前" in row.quotes[0].text


def test_a_count_tied_to_no_event_of_the_procedure_stays_not_stated(tmp_path: Path) -> None:
    reply = "原文：验收合格后 15 日内付款。\n答案：15日"
    row = reviewed(tmp_path, load_settings(), TEXT, reply, CHECKLIST)["clarification_deadline"]
    assert row.verdict == "not_stated"


def test_a_clarification_item_s_count_before_the_deadline_is_read_without_the_model(tmp_path: Path) -> None:
    checklist = CHECKLIST.replace('label = "提问截止时间"', 'label = "澄清与疑问截止 / 疑義提出期限"')
    reply = "原文：验收合格后 15 日内付款。\n答案：15日"  # the model would answer another count
    row = reviewed(tmp_path, load_settings(), TEXT, reply, checklist)["clarification_deadline"]
    assert (row.verdict, row.answer, row.extra.get("read")) == ("found", "投标截止时间10日前", "clarification deadline")
