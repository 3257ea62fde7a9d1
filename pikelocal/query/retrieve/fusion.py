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


def score_fusion(
    rankings: Mapping[str, Sequence[tuple[K, float]]],
    *,
    weights: Mapping[str, float] | None = None,
    norm: str = "minmax",
) -> list[tuple[K, float]]:
    """Fuse named rankings by their scores: score(d) = Σ weight_r · norm_r(score_r(d)), best first.

    Each ranking's scores are brought to a common scale over its own list: ``minmax`` maps its lowest to 0 and its
    highest to 1; ``zscore`` maps mean − 3σ to 0 and mean + 3σ to 1 (distribution-based score fusion), clipped. An
    id missing from a ranking gets 0 from it, as its lowest listed id does under min-max. Unlike RRF, the size of a
    score gap counts: a dense hit far above the rest keeps its lead over ids that BM25 alone ranks high.
    """
    if norm not in NORMS:
        raise ValueError(f"unknown score normalisation {norm!r} (use {', '.join(NORMS)})")
    weights = dict(weights or {})
    unknown = set(weights) - set(rankings)
    if unknown:
        raise ValueError(f"weights for unknown rankings: {sorted(unknown)} (have {sorted(rankings)})")
    scores: dict[K, float] = {}
    for name, ranking in rankings.items():
        weight = weights.get(name, 1.0)
        best: dict[K, float] = {}
        for item, score in ranking:  # a repeated id counts at its best score
            if item not in best or score > best[item]:
                best[item] = score
        for item, value in _normalised(list(best.values()), norm, list(best)):
            scores[item] = scores.get(item, 0.0) + weight * value
    return sorted(scores.items(), key=lambda kv: -kv[1])


NORMS = ("minmax", "zscore")


def _normalised(values: list[float], norm: str, items: list[K]) -> list[tuple[K, float]]:
    if not values:
        return []
    if norm == "minmax":
        low, high = min(values), max(values)
        span = high - low
        return [(i, (v - low) / span if span > 0 else 1.0) for i, v in zip(items, values, strict=True)]
    mean = sum(values) / len(values)
    sd = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    if sd == 0:
        return [(i, 1.0) for i in items]
    low = mean - 3 * sd
    return [(i, min(1.0, max(0.0, (v - low) / (6 * sd)))) for i, v in zip(items, values, strict=True)]
