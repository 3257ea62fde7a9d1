"""Retrieval for Algorithm 1: sub-questions → atomic questions (and their chunks), and the chunk backup."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from pikelocal.domain.answers import Candidate
from pikelocal.domain.kinds import CandidateSource
from pikelocal.embed.base import Encoder
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store

CHUNK_PREVIEW_CHARS = 160
CHUNK_WEIGHTS = {"questions": 0.0}  # the chunk backup ranks chunks by their own text (BM25, dense, late)


def atom_candidates(
    store: Store,
    encoder: Encoder,
    queries: Sequence[str],
    *,
    k: int,
    threshold: float,
    exclude: Collection[int] = (),
    limit: int = 8,
    source: CandidateSource = "atoms",
) -> list[Candidate]:
    """For each query its ``k`` nearest atomic questions with cosine similarity ≥ ``threshold``.

    One candidate per chunk (its best question), chunks in ``exclude`` (already gathered) left out, best first.
    """
    if not queries:
        return []
    vectors = encoder.encode(list(queries), role="query")
    best: dict[int, float] = {}  # question id → best similarity over the queries
    for vector in vectors:
        for qid, distance in store.index.knn("question", vector, k):
            similarity = 1.0 - distance
            if similarity >= threshold and similarity > best.get(qid, -1.0):
                best[qid] = similarity
    texts = store.chunks.question_texts(list(best))
    per_chunk: dict[int, Candidate] = {}
    for qid, similarity in sorted(best.items(), key=lambda kv: -kv[1]):
        if qid not in texts:
            continue
        chunk_id, text = texts[qid]
        if chunk_id in exclude or chunk_id in per_chunk:
            continue
        per_chunk[chunk_id] = Candidate(chunk_id, text, similarity, source, qid)
    return list(per_chunk.values())[:limit]


def chunk_candidates(
    store: Store, encoder: Encoder, queries: Sequence[str], *, k: int, exclude: Collection[int] = (), limit: int = 8
) -> list[Candidate]:
    """The backup when no atomic question matched: chunks found by hybrid search, each shown by its opening."""
    best: dict[int, tuple[float, str]] = {}
    for query in queries:
        for hit in search(store, encoder, query, mode="hybrid", k=k, weights=CHUNK_WEIGHTS):
            cid = hit.chunk.id
            if cid in exclude or hit.score <= best.get(cid, (-1.0, ""))[0]:
                continue
            title = hit.document.title or ""
            preview = " ".join(hit.chunk.text.split())[:CHUNK_PREVIEW_CHARS]
            best[cid] = (hit.score, f"{title}: {preview}" if title else preview)
    ranked = sorted(best.items(), key=lambda kv: -kv[1][0])[:limit]
    return [Candidate(cid, text, score, "chunks") for cid, (score, text) in ranked]


GRAPH_HOP_SEEDS = 3  # the best candidates whose one-hop neighbours are added
GRAPH_HOP_SHARE = 0.9  # a neighbour's score: its candidate's, times this


def with_graph_hops(
    store: Store, found: list[Candidate], per: int, exclude: Collection[int], limit: int
) -> list[Candidate]:
    """``found`` with, after each of its best ``GRAPH_HOP_SEEDS``, up to ``per`` chunks that share an entity with
    that candidate's chunk (rarer shared entities first; ``store.graph.neighbours``): HippoRAG's one hop, for the
    selector to see the bridge passage a multi-hop question needs. The list is cut to ``limit`` plus the hops, so
    the atoms the selector would have seen all stay."""
    seen = {c.chunk_id for c in found} | set(exclude)
    out: list[Candidate] = []
    added = 0
    for rank, cand in enumerate(found):
        out.append(cand)
        if rank >= GRAPH_HOP_SEEDS:
            continue
        for chunk_id, shared in store.graph.neighbours(cand.chunk_id, per, exclude=seen):
            seen.add(chunk_id)
            questions = store.chunks.questions_of(chunk_id)
            text = questions[0] if questions else _preview(store, chunk_id)
            out.append(Candidate(chunk_id, f"{text} (via {shared})", cand.score * GRAPH_HOP_SHARE, "graph"))
            added += 1
    return out[: limit + added]


def _preview(store: Store, chunk_id: int) -> str:
    chunks = store.chunks.get_chunks([chunk_id])
    return " ".join(chunks[0].text.split())[:CHUNK_PREVIEW_CHARS] if chunks else ""
