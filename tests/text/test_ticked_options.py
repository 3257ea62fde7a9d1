"""A form's options that were not ticked, blanked (text/ticked_options.py): only where the text shows ticks, whole
lines of options not chosen, single options inside a line, offsets and line breaks kept."""

from __future__ import annotations

import pytest

from pikelocal.text.ticked_options import blank_unticked, shows_ticks

FORM = "■(二)財物；其性質為：□買受，定製；□租賃；■租購。\n□(一)工程。\n十三、本採購■不允許□允許 共同投標。\n"


def test_options_not_ticked_are_blanked_to_the_same_length() -> None:
    out = blank_unticked(FORM)
    assert len(out) == len(FORM) and out.count("\n") == FORM.count("\n")
    lines = out.split("\n")
    assert "買受" not in lines[0] and "租賃" not in lines[0] and "■租購" in lines[0] and "■(二)財物" in lines[0]
    assert lines[1].strip() == ""  # a line of an option not chosen, blanked whole
    assert "允許 共同投標" not in lines[2] and "■不允許" in lines[2] and lines[2].endswith("共同投標。")


def test_the_boxes_may_stay_for_a_reader_of_ticks() -> None:
    out = blank_unticked("1.9.1 踏勘现场 ☑不组织 □组织，踏勘时间： /", keep_boxes=True)
    assert out.startswith("1.9.1 踏勘现场 ☑不组织 □") and "组织，" not in out.split("☑不组织")[1]


@pytest.mark.parametrize(
    "text",
    [
        "□ 项目概况\n□ 投标人须知",  # boxes as bullets, or a PDF whose ticks were lost: nothing ticked shows
        "本项目采用综合评分法。",
    ],
)
def test_a_text_that_shows_no_tick_is_kept_whole(text: str) -> None:
    assert not shows_ticks(text) and blank_unticked(text) == text


def test_a_line_of_options_that_holds_the_tick_is_not_blanked_whole() -> None:
    out = blank_unticked("是否允许联合体\n□是 /☑否\n")
    assert out.split("\n")[1] == "   /☑否"  # the option 是 blanked, the ticked 否 kept
