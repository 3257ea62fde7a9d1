"""Late-chunking maths (pure functions): windows over long texts, character spans to tokens, span pooling."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from pikelocal.embed.base import TokenVectors


def token_span(offsets: NDArray[np.int64], start: int, end: int) -> tuple[int, int]:
    """Half-open token range ``[i, j)`` of the tokens overlapping the character span ``[start, end)``.

    A token ``(s, e)`` overlaps when ``s < end and e > start``; a zero-width token counts when it sits inside
    the span. Offsets are assumed sorted by start, as tokenizers produce them, so the overlapping tokens are
    contiguous. Raises ``ValueError`` for an empty span or a span that no token overlaps (e.g. only spaces).
    """
    if end <= start:
        raise ValueError(f"empty character span [{start}, {end}): nothing to pool")
    offs = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    s, e = offs[:, 0], offs[:, 1]
    hit = ((s < end) & (e > start)) | ((s == e) & (s >= start) & (s < end))
    idx = np.flatnonzero(hit)
    if idx.size == 0:
        raise ValueError(f"no token overlaps characters [{start}, {end}) ({len(offs)} tokens in the text)")
    return int(idx[0]), int(idx[-1]) + 1


def normalise(v: NDArray[np.floating]) -> NDArray[np.float32]:
    """L2-normalise the last axis; an all-zero row stays zero."""
    v = np.asarray(v, dtype=np.float64)
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return (v / np.where(norm > 0, norm, 1.0)).astype(np.float32)


def pool_span(tv: TokenVectors, start: int, end: int, *, with_context: bool = False) -> NDArray[np.float32]:
    """L2-normalised mean of the token vectors overlapping characters ``[start, end)`` of ``tv.text``.

    ``with_context``: the context tokens of the windows those vectors came from count too (each window's once),
    when ``tv`` has them.
    """
    i, j = token_span(tv.offsets, start, end)
    total = tv.vectors[i:j].astype(np.float64).sum(axis=0)
    count = j - i
    if with_context and tv.window_of is not None and tv.context_sums is not None and tv.context_counts is not None:
        windows = np.unique(tv.window_of[i:j])
        total = total + tv.context_sums[windows].astype(np.float64).sum(axis=0)
        count += int(tv.context_counts[windows].sum())
    return normalise(total / count)


def pool_spans(tv: TokenVectors, spans: Sequence[tuple[int, int]]) -> NDArray[np.float32]:
    """:func:`pool_span` for each ``(start, end)``; shape ``(len(spans), dim)``."""
    dim = tv.vectors.shape[1]
    out = np.empty((len(spans), dim), dtype=np.float32)
    for row, (start, end) in enumerate(spans):
        out[row] = pool_span(tv, start, end)
    return out


def plan_windows(n: int, cap: int, overlap: int) -> list[tuple[int, int]]:
    """Evenly spaced ``cap``-token windows ``[start, end)`` over ``n`` tokens; neighbours share >= overlap."""
    if cap <= 0:
        raise ValueError(f"window capacity must be positive, got {cap}")
    if n <= cap:
        return [(0, n)]
    overlap = min(max(overlap, 0), cap - 1)
    k = math.ceil((n - cap) / (cap - overlap)) + 1
    starts = [round(i * (n - cap) / (k - 1)) for i in range(k)]
    return [(s, s + cap) for s in starts]


def assign_tokens(n: int, windows: Sequence[tuple[int, int]]) -> NDArray[np.int64]:
    """For each of ``n`` tokens, the window where it is furthest from a cut (the text's ends are not cuts)."""
    best = np.full(n, -1, dtype=np.int64)
    best_d = np.full(n, -np.inf)
    for w, (s, e) in enumerate(windows):
        j = np.arange(s, e, dtype=np.float64)
        left = j - s if s > 0 else np.full_like(j, np.inf)
        right = (e - 1) - j if e < n else np.full_like(j, np.inf)
        d = np.minimum(left, right)
        better = d > best_d[s:e]
        best[s:e][better] = w
        best_d[s:e][better] = d[better]
    if n and best.min() < 0:
        raise ValueError("windows do not cover every token")
    return best
