"""Hybrid's fusion weights, tuned per KB on its own atomic questions (a fusion that never loses).

No fixed weighting is best on every KB: on the multi-hop and legal sets dense leads and BM25 should weigh little,
on Vaswani's keyword-style physics abstracts BM25 beats dense, and the tender wants both (docs/BENCHMARKS.md,
"Fusion that never loses"). An enriched KB carries labelled queries for nothing: each atomic question was written
from one chunk, so "is that chunk in the first 10?" scores a ranking without a person's judgement.

:func:`tune_fusion` asks up to :data:`SAMPLE` of those questions once per ranking (BM25, dense, late), fuses them
at every weight of a grid (dense keeps its configured weight), and keeps the *simplest* weights (the least BM25 +
late) whose nDCG@10 is within :data:`STANDARD_ERRORS` standard errors of the grid's best (Breiman's
one-standard-error rule, widened): a difference within the sample's noise never moves the weights away from dense.
Why two and not one: the atomic questions see a flatter curve than real questions do (on the pooled 2Wiki-50 set
BM25 weights 0 to 0.5 lie within 0.005 nDCG@10 of each other on them, but 0.025 apart on the set's questions), so
at one standard error the choice there followed the sample's seed (docs/BENCHMARKS.md, "Fusion tuned per KB").
``enrich`` stores the result in the KB; search reads it through :func:`tuned_weights` while ``search.tuned`` is on.
A KB with fewer than :data:`MIN_QUERIES` questions keeps the configured weights.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from pikelocal.domain.events import EventSink, StageAdvanced, StageFinished, StageStarted, ignore
from pikelocal.domain.kinds import FusionMethod
from pikelocal.domain.search import FusionTuning
from pikelocal.embed.base import Encoder
from pikelocal.query.retrieve.search import fuse, rankings
from pikelocal.store.store import Store

BM25_GRID = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0)
LATE_GRID = (0.0, 0.1, 0.3)
SAMPLE = 1000  # atomic questions asked at most (about 20 s on 2 cores); paired standard errors 0.002-0.005
MIN_QUERIES = 60  # fewer questions than this: the choice would be noise, keep the configured weights
STANDARD_ERRORS = 2.0  # how far below the best the simplest weights may score and still be kept (module doc)
META_KEY = "fusion_tuning"
RETUNE_GROWTH = 1.1  # enrich tunes again once the KB has this many times the questions it was tuned on
BATCH = 32  # questions encoded at once

Grid = tuple[float, float | None]  # (bm25 weight, late weight or None when the KB has no late vectors)


def ndcg_at_10(ranking: Sequence[int], relevant: int) -> float:
    """nDCG@10 of a ranking with one relevant id: 1 / log2(rank + 1) when it is in the first 10, else 0."""
    for rank, item in enumerate(ranking[:10], start=1):
        if item == relevant:
            return 1.0 / math.log2(rank + 1)
    return 0.0


def choose(scores: Mapping[Grid, Sequence[float]], errors: float = STANDARD_ERRORS) -> Grid:
    """The simplest grid point (least BM25 + late weight, then least late) whose mean score is within ``errors``
    standard errors of the best mean; the error is that of the paired per-query difference to the best."""
    if not scores:
        raise ValueError("no grid point was scored")
    arrays = {g: np.asarray(v, dtype=np.float64) for g, v in scores.items()}
    sizes = {len(a) for a in arrays.values()}
    if len(sizes) != 1 or 0 in sizes:
        raise ValueError(f"every grid point needs the same, non-zero number of scores (got {sorted(sizes)})")
    best = max(arrays, key=lambda g: (float(arrays[g].mean()), -_weight(g)))
    top = float(arrays[best].mean())

    def close(g: Grid) -> bool:
        d = arrays[g] - arrays[best]
        se = float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else 0.0
        return float(arrays[g].mean()) >= top - errors * se

    return min((g for g in arrays if close(g)), key=lambda g: (_weight(g), g[1] or 0.0, g[0]))


def _weight(g: Grid) -> float:
    return g[0] + (g[1] or 0.0)


@dataclass(frozen=True)
class GridScores:
    """Each grid point's nDCG@10 per atomic question asked, and the same at the configured weights."""

    scores: dict[Grid, list[float]]
    configured: list[float]
    kb_questions: int  # the KB's atomic questions (the sample is ``len`` of any score list)
    encoder_id: str
    fusion: FusionMethod


def grid_scores(
    store: Store,
    encoder: Encoder,
    weights: Mapping[str, float],
    *,
    fusion: FusionMethod,
    candidates: int,
    sample: int = SAMPLE,
    seed: int = 0,
    sink: EventSink = ignore,
) -> GridScores | None:
    """Up to ``sample`` of the KB's atomic questions, each ranked once by BM25, dense (and late), then fused at
    every grid point; None when the KB has fewer than :data:`MIN_QUERIES` questions or dense is weighted 0 (the
    grid is anchored on dense). No LLM call."""
    ids = store.chunks.question_ids()
    if len(ids) < MIN_QUERIES or weights.get("dense", 0.0) <= 0:
        return None
    picked = random.Random(seed).sample(ids, min(sample, len(ids)))
    asked = list(store.chunks.question_texts(picked).values())  # (chunk id, text)
    has_late = store.index.has_vectors("late")
    sources = ("bm25", "dense", "late") if has_late else ("bm25", "dense")
    started = time.perf_counter()
    sink(StageStarted("fusion", len(asked), "questions"))
    lists: list[tuple[int, dict[str, list[tuple[int, float]]]]] = []
    for start in range(0, len(asked), BATCH):
        part = asked[start : start + BATCH]
        vectors = encoder.encode([text for _, text in part], role="query")
        for (chunk_id, text), vector in zip(part, vectors, strict=True):
            lists.append((chunk_id, rankings(store, encoder, text, sources, candidates, vector)))
        sink(StageAdvanced("fusion", len(lists), len(asked)))

    def scored(g: Grid) -> list[float]:
        w = {"bm25": g[0], "dense": weights["dense"], "late": weights.get("late", 0.0) if g[1] is None else g[1]}
        return [ndcg_at_10([c for c, _ in fuse(found, w, candidates, fusion)], gold) for gold, found in lists]

    scores = {g: scored(g) for g in [(b, lt) for b in BM25_GRID for lt in (LATE_GRID if has_late else (None,))]}
    here: Grid = (weights.get("bm25", 0.0), weights.get("late", 0.0) if has_late else None)
    configured = scores[here] if here in scores else scored(here)
    sink(StageFinished("fusion", len(lists), time.perf_counter() - started))
    return GridScores(scores, configured, len(ids), encoder.model_id, fusion)


def tuning_from(grid: GridScores, errors: float = STANDARD_ERRORS) -> FusionTuning:
    """The tuning :func:`choose` makes of ``grid`` at ``errors`` standard errors."""
    chosen = choose(grid.scores, errors)
    return FusionTuning(
        bm25_weight=chosen[0],
        late_weight=chosen[1],
        queries=len(grid.scores[chosen]),
        ndcg=_mean(grid.scores[chosen]),
        best_ndcg=max(_mean(v) for v in grid.scores.values()),
        configured_ndcg=_mean(grid.configured),
        encoder_id=grid.encoder_id,
        fusion=grid.fusion,
        kb_questions=grid.kb_questions,
    )


def tune_fusion(
    store: Store,
    encoder: Encoder,
    weights: Mapping[str, float],
    *,
    fusion: FusionMethod,
    candidates: int,
    sample: int = SAMPLE,
    seed: int = 0,
    sink: EventSink = ignore,
) -> FusionTuning | None:
    """The weights the KB's own atomic questions choose (module doc), or None when :func:`grid_scores` has none."""
    grid = grid_scores(
        store, encoder, weights, fusion=fusion, candidates=candidates, sample=sample, seed=seed, sink=sink
    )
    return None if grid is None else tuning_from(grid)


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


def save_tuning(store: Store, tuning: FusionTuning) -> None:
    store.set_meta(META_KEY, asdict(tuning))


def stored_tuning(store: Store) -> FusionTuning | None:
    """The tuning ``enrich`` stored in the KB, if any (None also for a record of an older shape)."""
    raw: Any = store.meta().get(META_KEY)
    if not isinstance(raw, dict):
        return None
    try:
        return FusionTuning(**raw)
    except TypeError:
        return None


def is_current(tuning: FusionTuning | None, encoder_id: str, fusion: str) -> bool:
    """Whether ``tuning`` was made with this encoder and fusion method (else its weights do not apply)."""
    return tuning is not None and tuning.encoder_id == encoder_id and tuning.fusion == fusion


def needs_tuning(tuning: FusionTuning | None, encoder_id: str, fusion: str, questions: int) -> bool:
    """Whether ``enrich`` should tune (again): enough questions, and none tuned yet for this encoder and method,
    or 10 % more questions than when it was."""
    if questions < MIN_QUERIES:
        return False
    if tuning is None or not is_current(tuning, encoder_id, fusion):
        return True
    return questions >= RETUNE_GROWTH * tuning.kb_questions


def tuned_weights(
    weights: Mapping[str, float], tuning: FusionTuning | None, encoder_id: str, fusion: str
) -> dict[str, float]:
    """``weights`` with the tuned BM25 (and late) weight in, when the tuning was made with this encoder and
    fusion method."""
    out = dict(weights)
    if tuning is None or not is_current(tuning, encoder_id, fusion):
        return out
    out["bm25"] = tuning.bm25_weight
    if tuning.late_weight is not None:
        out["late"] = tuning.late_weight
    return out
