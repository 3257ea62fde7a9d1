"""The bid opening's day and place read from the sentence announcing it (「兹定于…在…会议室公开开标」), before the
model is asked; a labelled field of the opening comes first, and a sentence announcing another event reads nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from tests.support.review_kb import reviewed

OPENING = """name = "opening"
[[items]]
id = "bid_opening"
label = "开标时间 / 開標時間"
kind = "date"
question.hans = "开标时间是什么时候？"
hints = ["开标时间", "开标"]

[[items]]
id = "bid_opening_place"
label = "开标地点 / 開標地點"
kind = "text"
question.hans = "开标地点在哪里？"
hints = ["开标地点", "开标"]
"""
NOT_STATED = "原文：无\n答案：文档中没有说明"


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


def test_the_announced_opening_answers_its_day_and_place_without_the_model(tmp_path: Path, settings: Settings) -> None:
    notice = (
        "# 投标邀请\n\n三、开标\n\n兹定于2026年5月25日9:30时，在上海市静安区延安西路358号美丽园大厦19楼1902-1会议室"
        "公开开标。\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, OPENING)
    day, place = rows["bid_opening"], rows["bid_opening_place"]
    assert (day.verdict, [v.normal for v in day.values], day.extra.get("read")) == ("found", ["2026-05-25"], "opening")
    assert (place.verdict, place.answer) == ("found", "上海市静安区延安西路358号美丽园大厦19楼1902-1会议室")
    assert day.trace_id is None and place.trace_id is None  # the model was not asked
    assert "公开开标" in day.quotes[0].text


def test_a_labelled_field_comes_first_and_another_event_reads_nothing(tmp_path: Path, settings: Settings) -> None:
    notice = (
        "# 投标邀请\n\n开标时间：2026年5月26日9时30分\n\n"
        "兹定于2026年5月25日9:30时，在上海市静安区延安西路358号会议室公开开标。\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, OPENING)
    assert [v.normal for v in rows["bid_opening"].values] == ["2026-05-26"]  # the data sheet's own field
    assert rows["bid_opening"].extra.get("read") == "labelled field"
    visit = "# 投标邀请\n\n招标人定于2026年5月20日9时在上海市静安区延安西路358号组织现场踏勘，随后开标。\n"
    (tmp_path / "2").mkdir()
    rows = reviewed(tmp_path / "2", settings, visit, NOT_STATED, OPENING)
    assert rows["bid_opening"].trace_id is not None and rows["bid_opening"].verdict == "not_stated"
    assert rows["bid_opening_place"].trace_id is not None  # the model was asked (and found none)


def test_an_opening_at_the_deadline_s_time_takes_the_deadline_s_date(tmp_path: Path, settings: Settings) -> None:
    # 中国移动's 询比 notice: the opening (唱价) at the deadline's own time, the deadline dated in the clause before
    notice = (
        "# 询比公告\n\n4.2 电子应答文件通过中国移动电子采购与招投标系统递交，"
        "应答截止时间为 2025 年 07 月 10 日 09 时 00 分。\n\n"
        "4.3 本项目将于上述应答截止时间的同一时间在中国移动电子采购与招投标系统进行唱价，应答人可登录系统查看。\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, OPENING)
    day, place = rows["bid_opening"], rows["bid_opening_place"]
    assert (day.verdict, [v.normal for v in day.values]) == ("found", ["2025-07-10"])
    assert day.extra.get("read") == "opening at the deadline" and day.trace_id is None
    assert "唱价" in day.quotes[0].text and "2025 年 07 月 10 日" in day.quotes[1].text  # both sentences cited
    assert (place.verdict, place.answer) == ("found", "中国移动电子采购与招投标系统")


def test_an_opening_at_a_deadline_no_sentence_dates_leaves_the_day_to_the_model(
    tmp_path: Path, settings: Settings
) -> None:
    notice = (
        "# 询比公告\n\n澄清截止时间为 2025 年 07 月 01 日。\n\n"
        "4.3 本项目将于响应文件提交截止同一时间通过中国电信电子采购系统开启响应文件。\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, OPENING)
    assert (
        rows["bid_opening"].trace_id is not None and rows["bid_opening"].verdict == "not_stated"
    )  # 澄清's date is no answer
    assert rows["bid_opening_place"].answer == "中国电信电子采购系统"
