"""Unit tests for the window planning used by OnnxEncoder on texts longer than the model's window."""

from __future__ import annotations

import numpy as np
import pytest

from pikelocal.embed.late import assign_tokens, plan_windows


@pytest.mark.parametrize(
    ("n", "cap", "overlap"), [(10, 10, 2), (0, 8, 2), (11, 10, 2), (1000, 128, 32), (5000, 509, 127)]
)
def test_windows_cover_all_tokens_with_overlap(n: int, cap: int, overlap: int) -> None:
    windows = plan_windows(n, cap, overlap)
    assert windows[0][0] == 0 and windows[-1][1] == n
    assert all(e - s == min(cap, n) for s, e in windows)
    for (s1, e1), (s2, _) in zip(windows, windows[1:], strict=False):
        assert s1 < s2 and e1 - s2 >= overlap  # neighbours share at least `overlap` tokens


def test_single_window_when_it_fits() -> None:
    assert plan_windows(5, 8, 2) == [(0, 5)]
    np.testing.assert_array_equal(assign_tokens(5, [(0, 5)]), 0)


def test_each_token_goes_to_the_window_where_it_is_most_central() -> None:
    windows = [(0, 10), (6, 16)]
    owner = assign_tokens(16, windows)
    # tokens 6..9 are in both; window 0 is cut at 10, window 1 at 6 -> switch at the middle of the overlap
    assert owner.tolist() == [0] * 8 + [1] * 8
    # the text's own ends are not cuts: token 0 belongs to window 0 however close to its edge
    assert owner[0] == 0 and owner[15] == 1


def test_context_on_both_sides_is_at_least_half_the_overlap() -> None:
    n, cap, overlap = 3000, 509, 127
    windows = plan_windows(n, cap, overlap)
    owner = assign_tokens(n, windows)
    for j in range(n):
        s, e = windows[owner[j]]
        assert s == 0 or j - s >= overlap // 2
        assert e == n or e - 1 - j >= overlap // 2
    assert np.all(np.diff(owner) >= 0)  # ownership is contiguous and ordered


def test_rejects_empty_window() -> None:
    with pytest.raises(ValueError):
        plan_windows(10, 0, 0)
