"""Look-alike ideographs read as the characters they stand for, one for one (offsets unchanged)."""

from __future__ import annotations

import pytest

from pikelocal.text.unicode_forms import fold_lookalikes


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
