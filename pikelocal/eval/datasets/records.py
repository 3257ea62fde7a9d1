"""The records every evaluation set is made of, and the two ways to cut a set down (a query sample, a pooled corpus)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pikelocal.domain.errors import InputError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class CorpusDoc:
    """One retrievable document."""

    doc_id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class EvalQuery:
    """One query and its judged documents: ``relevant`` maps doc_id to a grade > 0."""

    query_id: str
    text: str
    relevant: dict[str, int]
    pool: tuple[str, ...] = ()  # multi-hop sets: the paragraphs given with this question (gold + distractors)


@dataclass(frozen=True, slots=True)
class EvalSet:
    """A named corpus with the queries to evaluate against it."""

    name: str
    docs: tuple[CorpusDoc, ...]
    queries: tuple[EvalQuery, ...]


def subset(queries: Sequence[T], limit: int | None, seed: int = 0) -> list[T]:
    """A deterministic random sample of ``limit`` items, kept in their original order; all when limit is None."""
    if limit is None or limit >= len(queries):
        return list(queries)
    if limit < 0:
        raise InputError(f"the query limit must be 0 or more, got {limit}")
    picked = sorted(random.Random(seed).sample(range(len(queries)), limit))
    return [queries[i] for i in picked]


def pooled(evalset: EvalSet, queries: Sequence[EvalQuery]) -> EvalSet:
    """``evalset`` cut down to the paragraphs pooled for ``queries`` (their gold and distractor paragraphs)."""
    keep: dict[str, None] = {}
    for q in queries:
        keep.update(dict.fromkeys(q.pool or q.relevant))
    docs = {d.doc_id: d for d in evalset.docs}
    return EvalSet(f"{evalset.name}-pooled{len(queries)}", tuple(docs[k] for k in keep if k in docs), tuple(queries))
