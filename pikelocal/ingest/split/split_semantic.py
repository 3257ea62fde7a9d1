"""Semantic chunking: the structure splitter's units, cut where the encoder says the topic turns.

The text is cut into the structure splitter's units with prose further cut at sentence ends
(:func:`sentence_units`); every unit is embedded once. Between units ``i-1`` and ``i`` the distance is one less the
cosine of the mean vectors of the ``WINDOW`` units before and the ``WINDOW`` units from ``i`` on (a smoothed
Kamradt-style breakpoint: one short sentence alone does not decide). A break falls where the distance is at least
the document's ``percentile``-th distance. Chunks then end at a break or a major heading once they hold
``min_tokens``, and at ``max_tokens`` in any case; tables keep their rules. Chunks tile the text exactly, as the
structure splitter's do, so pages, lines and late chunking work the same. Cost: one encoder pass over the text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from pikelocal.ingest.split.split_struct import ChunkSpan, CountTokens, sentence_units, split_structured

Embed = Callable[[Sequence[str]], NDArray[np.float32]]  # texts -> L2-normalised vectors
WINDOW = 2  # units averaged on each side of a candidate break
BREAK_PERCENTILE = 80.0  # a break where the topic turns more than at 80 % of the document's unit boundaries


def breakpoints(
    vectors: NDArray[np.float32], prose: Sequence[bool], percentile: float, window: int = WINDOW
) -> set[int]:
    """Indices ``i`` of units a chunk may start at: the distance between the ``window`` units before ``i`` and the
    ``window`` units from ``i`` on is at or above the ``percentile`` of such distances over the prose units (a
    table row is neither a break nor counted)."""
    n = len(vectors)
    dist: dict[int, float] = {}
    for i in range(1, n):
        if not prose[i]:
            continue
        left = vectors[max(0, i - window) : i].astype(np.float64).mean(axis=0)
        right = vectors[i : i + window].astype(np.float64).mean(axis=0)
        denom = float(np.linalg.norm(left) * np.linalg.norm(right))
        dist[i] = 1.0 - (float(left @ right) / denom if denom > 0 else 0.0)
    if not dist:
        return set()
    cut = float(np.percentile(list(dist.values()), percentile))
    return {i for i, d in dist.items() if d >= cut and d > 1e-6}  # no turn at all: no break


def split_semantic(
    text: str,
    count: CountTokens,
    embed: Embed,
    *,
    target: int = 400,
    min_tokens: int = 100,
    max_tokens: int = 600,
    percentile: float = BREAK_PERCENTILE,
) -> list[ChunkSpan]:
    """Chunks of ``text`` cut at semantic breakpoints (see the module's docstring)."""
    units = sentence_units(text, count, max_tokens)
    if len(units) < 2:
        return split_structured(text, count, target=target, min_tokens=min_tokens, max_tokens=max_tokens)
    prose = [u.table is None and bool(text[u.start : u.end].strip()) for u in units]
    filled = [i for i, u in enumerate(units) if text[u.start : u.end].strip()]
    found = embed([text[units[i].start : units[i].end] for i in filled])
    vectors = np.zeros((len(units), found.shape[1] if len(found) else 1), dtype=np.float32)
    vectors[filled] = found
    breaks = frozenset(breakpoints(vectors, prose, percentile))
    return split_structured(
        text, count, target=target, min_tokens=min_tokens, max_tokens=max_tokens, units=units, breaks=breaks
    )
