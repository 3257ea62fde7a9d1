"""Reciprocal rank fusion of several rankings (BM25, early dense, late dense, atomic questions)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60  # the constant of Cormack et al. (2009); dampens the weight of the very top ranks


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[K]], *, weights: Mapping[str, float] | None = None, k: int = RRF_K
) -> list[tuple[K, float]]:
    """Fuse named rankings (best first) into one: score(d) = Σ weight_r / (k + rank_r(d)), ranks from 1.

    An id missing from a ranking gets nothing from it. Ties keep the order of first appearance, so the result
    is deterministic. Unknown names in ``weights`` are an error (a typo would silently weigh 1.0).
    """
    weights = dict(weights or {})
    unknown = set(weights) - set(rankings)
    if unknown:
        raise ValueError(f"weights for unknown rankings: {sorted(unknown)} (have {sorted(rankings)})")
    scores: dict[K, float] = {}
    for name, ranking in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, item in enumerate(dict.fromkeys(ranking), start=1):  # a repeated id counts at its best rank
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])
