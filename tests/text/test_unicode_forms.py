"""Look-alike ideographs read as the characters they stand for, one for one (offsets unchanged)."""

from __future__ import annotations

import pytest

from pikelocal.text.unicode_forms import fold_lookalikes, symbol_box


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("\uf98e", "年"),  # CJK compatibility ideograph
        ("\uf90a", "金"),
        ("\u2fa6", "金"),  # Kangxi radical
        ("\u2f00", "一"),
        ("押標\uf90a", "押標金"),
        ("民國 115\uf98e1月", "民國 115年1月"),
        ("押標金 bid bond 35萬", "押標金 bid bond 35萬"),  # nothing to fold
        ("ｆｕｌｌ３５", "ｆｕｌｌ３５"),  # full-width forms are the value readers' to fold, not this
    ],
)
def test_lookalikes_fold_to_unified_ideographs(written: str, read: str) -> None:
    assert fold_lookalikes(written) == read
    assert len(fold_lookalikes(written)) == len(written)


def test_a_symbol_font_s_boxes_read_as_the_boxes_they_draw() -> None:
    # as pypdf gives a Word form's Wingdings boxes (the switchgear tender, p. 6)
    assert fold_lookalikes("1.10.1 分包 \uf0fe不允许 □允许") == "1.10.1 分包 ☑不允许 □允许"
    assert fold_lookalikes("10.2 是否接收代理商投标 \uf0fe否 \uf0a8是") == "10.2 是否接收代理商投标 ☑否 □是"
    assert fold_lookalikes("\uf0fd \uf0fc \uf0b7") == "☒ ✔ \uf0b7"  # a bullet is no box: left as it is


@pytest.mark.parametrize(("code", "box"), [(0xF0FE, "☑"), (0xFE, "☑"), (0xF0A8, "□"), (0xA8, "□"), (0xF0B7, "")])
def test_a_word_symbol_is_the_box_it_draws_or_nothing(code: int, box: str) -> None:
    assert symbol_box(code) == box


@pytest.mark.parametrize(
    ("code", "box"), [(0x52, "☑"), (0xF052, "☑"), (0xA3, "□"), (0xF0A3, "□"), (0x53, "☒"), (0x50, "✔"), (0x4A, "")]
)
def test_wingdings_2_draws_its_boxes_at_other_bytes(code: int, box: str) -> None:
    # the Beijing Bank tender's 前附表: 「<sym Wingdings 2 00A3>要求 <sym Wingdings 2 0052>不要求」
    assert symbol_box(code, "Wingdings 2") == box
    assert symbol_box(code, "Wingdings") != "☑"  # Wingdings' own R or £ is no ticked box
