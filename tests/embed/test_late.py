"""Unit tests for late-chunking span pooling."""

from __future__ import annotations

import numpy as np
import pytest

from pikelocal.embed.base import TokenVectors
from pikelocal.embed.late import normalise, pool_span, pool_spans, token_span

# "alpha beta, gamma" -> alpha [0,5) beta [6,10) , [10,11) gamma [12,17)
TEXT = "alpha beta, gamma"
OFFSETS = np.array([(0, 5), (6, 10), (10, 11), (12, 17)], dtype=np.int64)


@pytest.fixture
def tv() -> TokenVectors:
    rng = np.random.default_rng(7)
    return TokenVectors(TEXT, rng.normal(size=(4, 6)).astype(np.float32), OFFSETS)


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        (0, 17, (0, 4)),  # whole text
        (0, 5, (0, 1)),  # exactly one token
        (2, 3, (0, 1)),  # inside a token
        (4, 7, (0, 2)),  # straddles the space between two tokens
        (5, 6, None),  # only the space: no token
        (6, 11, (1, 3)),  # word and the punctuation glued to it
        (11, 12, None),  # the space after the comma
        (11, 13, (3, 4)),  # a span starting on a space
        (16, 30, (3, 4)),  # running past the end of the text
        (17, 20, None),  # wholly past the end
    ],
)
def test_token_span(start: int, end: int, expected: tuple[int, int] | None) -> None:
    if expected is None:
        with pytest.raises(ValueError, match="no token overlaps"):
            token_span(OFFSETS, start, end)
    else:
        assert token_span(OFFSETS, start, end) == expected


@pytest.mark.parametrize(("start", "end"), [(3, 3), (5, 2)])
def test_token_span_rejects_empty_span(start: int, end: int) -> None:
    with pytest.raises(ValueError, match="empty character span"):
        token_span(OFFSETS, start, end)


def test_token_span_zero_width_token_inside_span() -> None:
    offs = np.array([(0, 3), (3, 3), (3, 6)], dtype=np.int64)
    assert token_span(offs, 3, 4) == (1, 3)
    assert token_span(offs, 0, 3) == (0, 1)


def test_token_span_without_tokens() -> None:
    with pytest.raises(ValueError, match="no token overlaps"):
        token_span(np.zeros((0, 2), dtype=np.int64), 0, 1)


def test_pool_span_is_normalised_mean_of_chosen_tokens(tv: TokenVectors) -> None:
    got = pool_span(tv, 6, 17)  # beta , gamma
    mean = (tv.vectors[1].astype(np.float64) + tv.vectors[2] + tv.vectors[3]) / 3
    expected = mean / np.sqrt((mean**2).sum())
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert np.linalg.norm(got) == pytest.approx(1.0, abs=1e-6)


def test_pool_span_single_token_is_its_direction(tv: TokenVectors) -> None:
    v = tv.vectors[0]
    np.testing.assert_allclose(pool_span(tv, 1, 2), v / np.linalg.norm(v), rtol=1e-6, atol=1e-6)


def test_pool_span_errors(tv: TokenVectors) -> None:
    with pytest.raises(ValueError, match="empty character span"):
        pool_span(tv, 4, 4)
    with pytest.raises(ValueError, match="no token overlaps"):
        pool_span(tv, 5, 6)


def test_pool_spans_rows_match_pool_span(tv: TokenVectors) -> None:
    spans = [(0, 5), (6, 17), (0, 17)]
    got = pool_spans(tv, spans)
    assert got.shape == (3, 6)
    for row, (s, e) in zip(got, spans, strict=True):
        np.testing.assert_array_equal(row, pool_span(tv, s, e))
    assert pool_spans(tv, []).shape == (0, 6)


def test_normalise_keeps_zero_rows() -> None:
    out = normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_pool_span_with_context_counts_each_window_context_once(tv: TokenVectors) -> None:
    # tokens 0-1 came from window 0, tokens 2-3 from window 1; each window read 2 context tokens first
    rng = np.random.default_rng(11)
    ctx_tokens = rng.normal(size=(2, 2, 6))  # (window, token, dim)
    with_ctx = TokenVectors(
        TEXT,
        tv.vectors,
        OFFSETS,
        window_of=np.array([0, 0, 1, 1], dtype=np.int64),
        context_sums=ctx_tokens.sum(axis=1).astype(np.float32),
        context_counts=np.array([2, 2], dtype=np.int64),
    )
    # "beta , gamma": tokens 1-3, from windows 0 and 1, so both windows' contexts count, once each
    total = tv.vectors[1:4].astype(np.float64).sum(axis=0) + ctx_tokens[0].sum(axis=0) + ctx_tokens[1].sum(axis=0)
    expected = total / 7
    np.testing.assert_allclose(
        pool_span(with_ctx, 6, 17, with_context=True), expected / np.linalg.norm(expected), rtol=1e-5, atol=1e-6
    )
    # "alpha": window 0 only
    alone = tv.vectors[0].astype(np.float64) + ctx_tokens[0].sum(axis=0)
    np.testing.assert_allclose(
        pool_span(with_ctx, 0, 5, with_context=True), alone / np.linalg.norm(alone), rtol=1e-5, atol=1e-6
    )
    # without the flag, or without recorded contexts, the context is left out
    np.testing.assert_allclose(pool_span(with_ctx, 6, 17), pool_span(tv, 6, 17), rtol=1e-6)
    np.testing.assert_allclose(pool_span(tv, 6, 17, with_context=True), pool_span(tv, 6, 17), rtol=1e-6)
