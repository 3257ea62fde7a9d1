"""Pure IR metrics over ranked id lists: nDCG@k (graded, trec_eval gains), Recall@k, MRR@k."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence


def dedupe(ranked: Iterable[str]) -> list[str]:
    """The ids in order with repeats dropped (first occurrence kept), e.g. several chunks of one document."""
    return list(dict.fromkeys(ranked))


def _top(ranked: Iterable[str], k: int | None) -> list[str]:
    """The first ``k`` distinct ids (all of them when ``k`` is None)."""
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    distinct = dedupe(ranked)
    return distinct if k is None else distinct[:k]


def _relevant_set(relevant: Collection[str] | Mapping[str, int]) -> set[str]:
    """A set of relevant ids; a mapping counts only the ids graded above 0."""
    if isinstance(relevant, Mapping):
        return {doc for doc, grade in relevant.items() if grade > 0}
    return set(relevant)


def ndcg_at_k(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    """nDCG@k with graded linear gains and a log2 discount, as BEIR / pytrec_eval ``ndcg_cut``.

    DCG = Σ rel_i / log2(i + 2) over the first ``k`` distinct ids (i from 0); IDCG is the DCG of the grades
    sorted best first. Grades ≤ 0 and unjudged ids gain nothing; 0.0 when nothing is relevant.
    """
    top = _top(ranked, k)
    dcg = sum(max(relevance.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(top))
    ideal = sorted((grade for grade in relevance.values() if grade > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(i + 2) for i, grade in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Collection[str] | Mapping[str, int], k: int) -> float:
    """Share of the relevant ids found among the first ``k`` distinct ids; 0.0 when nothing is relevant."""
    wanted = _relevant_set(relevant)
    if not wanted:
        return 0.0
    return len(wanted.intersection(_top(ranked, k))) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Collection[str] | Mapping[str, int], k: int | None = None) -> float:
    """Reciprocal rank (from 1, over distinct ids) of the first relevant id within ``k``; 0.0 if none is there."""
    wanted = _relevant_set(relevant)
    for rank, doc in enumerate(_top(ranked, k), start=1):
        if doc in wanted:
            return 1.0 / rank
    return 0.0


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean; 0.0 for no values."""
    items = list(values)
    return sum(items) / len(items) if items else 0.0
