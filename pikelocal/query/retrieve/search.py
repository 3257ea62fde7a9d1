"""Chunk search: BM25 (FTS5), early dense, late dense, atomic questions and the entity graph, and their fusion
(hybrid), which fact hops (``query.retrieve.hops``) and the articles the query cites extend."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from pikelocal.domain.documents import DocumentRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.kinds import FUSED_SOURCES, FUSION_METHODS, SEARCH_MODES, FusionMethod, SearchMode
from pikelocal.domain.references import StoredRef
from pikelocal.domain.search import Hit
from pikelocal.embed.base import Encoder
from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion, score_fusion
from pikelocal.query.retrieve.hops import HOP_MIN_SIMILARITY, add_hops
from pikelocal.query.retrieve.snippet import make_snippet
from pikelocal.store.fts import is_cjk_sentence
from pikelocal.store.graph import fact_text
from pikelocal.store.index import FtsTable, VectorTable
from pikelocal.store.store import Store
from pikelocal.text import concepts

QUESTION_BM25_WEIGHT = 0.3  # within the question path, as for chunks: dense leads, BM25 adds exact terms
# The entity graph's walk spans documents: when a search is kept to some, it is read this many times deeper first.
GRAPH_DOC_DEPTH = 8


def hybrid_sources(weights: Mapping[str, float] | None) -> tuple[str, ...]:
    """The rankings hybrid fuses: every source whose weight is not zero (the graph only when weighted)."""
    return tuple(s for s in FUSED_SOURCES if (weights or {}).get(s, 0.0 if s == "graph" else 1.0) > 0)


def rankings(
    store: Store,
    encoder: Encoder | None,
    query: str,
    sources: tuple[str, ...],
    n: int,
    vector: NDArray[np.float32] | None = None,
    doc_ids: Sequence[int] | None = None,
) -> dict[str, list[tuple[int, float]]]:
    """Each named source's ranking of chunk ids with its own score, best first. ``vector``: the query's, when the
    caller has encoded it already; ``doc_ids``: only these documents' chunks are ranked (each source selects its
    candidates among them; the graph's walk, which spans documents, is read deeper and kept to them)."""
    out: dict[str, list[tuple[int, float]]] = {}
    if "bm25" in sources:
        out["bm25"] = bm25_ranking(store, "chunk", query, n, doc_ids)
    dense = [s for s in sources if s in ("dense", "late", "questions", "graph")]
    if dense:
        if encoder is None:
            raise InputError("dense search needs an encoder")
        q = encoder.encode([query], role="query")[0] if vector is None else vector
        for name in dense:
            if name == "questions":
                out[name] = question_ranking(store, q, query, n, doc_ids)
            elif name == "graph":
                from pikelocal.query.retrieve.graph import (  # scipy loads only for the graph
                    PASSAGE_SEEDS,
                    graph_ranking,
                )

                seeds = store.index.knn("chunk", q, PASSAGE_SEEDS, doc_ids=doc_ids)
                hits = out.get("dense") or [(c, 1.0 - d) for c, d in seeds]
                walked = graph_ranking(store, query, q, n if doc_ids is None else n * GRAPH_DOC_DEPTH, dense_hits=hits)
                out[name] = walked if doc_ids is None else within(store, walked, doc_ids)[:n]
            else:
                table: VectorTable = "chunk" if name == "dense" else "late"
                out[name] = [(cid, 1.0 - dist) for cid, dist in store.index.knn(table, q, n, doc_ids=doc_ids)]
    return out


def within(store: Store, ranking: Sequence[tuple[int, float]], doc_ids: Sequence[int]) -> list[tuple[int, float]]:
    """The entries of a chunk ranking that belong to ``doc_ids``, in its order."""
    keep = set(doc_ids)
    owners = {c.id: c.doc_id for c in store.chunks.get_chunks([cid for cid, _ in ranking])}
    return [(cid, score) for cid, score in ranking if owners.get(cid) in keep]


def bm25_ranking(
    store: Store, table: FtsTable, query: str, n: int, doc_ids: Sequence[int] | None = None
) -> list[tuple[int, float]]:
    """BM25 over ``table`` for the query and the other names of the concepts it names (``text/concepts.py``: a
    question about 押標金 also finds 投标保证金 and "bid security"). The query's own form decides how its terms are
    matched (a Chinese sentence by bigrams, terms as phrases), so the added names do not change it."""
    extra = [f'"{t}"' if " " in t else t for t in concepts.active().expansion(query)]  # "bid bond": one phrase
    exact = not is_cjk_sentence(query)
    return store.index.fts_search(table, " ".join([query, *extra]), n, exact_phrases=exact, doc_ids=doc_ids)


def question_ranking(
    store: Store, query_vector: NDArray[np.float32], query: str, n: int, doc_ids: Sequence[int] | None = None
) -> list[tuple[int, float]]:
    """PIKE-RAG's path via atomic questions: the query matched against every chunk's questions (dense and
    BM25, fused by RRF), each chunk ranked by its best question; empty when the KB has no questions yet."""
    wide = 3 * n  # a chunk has several questions
    lists = {
        "dense": [qid for qid, _ in store.index.knn("question", query_vector, wide, doc_ids=doc_ids)],
        "bm25": [qid for qid, _ in bm25_ranking(store, "question", query, wide, doc_ids)],
    }
    fused = reciprocal_rank_fusion(lists, weights={"bm25": QUESTION_BM25_WEIGHT})
    owner = store.chunks.question_chunks([qid for qid, _ in fused])
    best: dict[int, float] = {}
    for qid, score in fused:
        cid = owner.get(qid)
        if cid is not None and cid not in best:
            best[cid] = score
    return list(best.items())[:n]


def search(
    store: Store,
    encoder: Encoder | None,
    query: str,
    *,
    mode: SearchMode = "hybrid",
    k: int = 10,
    weights: Mapping[str, float] | None = None,
    candidates: int = 50,
    fusion: FusionMethod = "rrf",
    hops: int = 0,
    hop_similarity: float = HOP_MIN_SIMILARITY,
    doc_ids: Sequence[int] | None = None,
    vector: NDArray[np.float32] | None = None,
) -> list[Hit]:
    """The ``k`` best chunks for ``query``; hybrid fuses the BM25, dense, late (and question) rankings, weighted,
    by ``fusion`` (:func:`fuse`), then puts up to ``hops`` fact hops (:mod:`pikelocal.query.retrieve.hops`; a KB
    enriched with entities) after its first hits, and the articles the query cites first. ``doc_ids``: only these
    documents' chunks, each ranking choosing its candidates among them (a filter in the query, not on the result:
    the ``k`` best of those documents come back however many other chunks outrank them); hops and cited articles
    in other documents are left out. ``vector``: the query's, when the caller has encoded it already (a batch of
    queries encoded at once)."""
    if mode not in SEARCH_MODES:
        raise InputError(f"unknown search mode '{mode}' (use one of {', '.join(SEARCH_MODES)})")
    if not query.strip():
        raise InputError("the query is empty")
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    unknown = set(weights or {}) - set(FUSED_SOURCES)
    if unknown:
        raise InputError(f"unknown fusion weight(s) {sorted(unknown)} (use {', '.join(FUSED_SOURCES)})")
    if fusion not in FUSION_METHODS:
        raise InputError(f"unknown fusion '{fusion}' (use one of {', '.join(FUSION_METHODS)})")
    if hops < 0:
        raise InputError(f"hops must be at least 0, got {hops}")
    with store.snapshot():  # ids ranked and rows fetched from one state, whatever a writer commits meanwhile
        return _search(
            store, encoder, query, mode, k, weights, candidates, fusion, (hops, hop_similarity), doc_ids, vector
        )


def fuse(
    lists: Mapping[str, Sequence[tuple[int, float]]],
    weights: Mapping[str, float] | None,
    candidates: int,
    fusion: FusionMethod = "rrf",
) -> list[tuple[int, float]]:
    """The hybrid ranking of the first ``candidates`` (id, score) pairs of each non-zero-weighted list: weighted
    RRF of their ranks, or the weighted sum of their scores normalised per list (``minmax``, ``zscore``)."""
    used = {s: list(lists[s])[:candidates] for s in hybrid_sources(weights) if s in lists}
    w = {s: (weights or {}).get(s, 1.0) for s in used}
    if fusion == "rrf":
        return reciprocal_rank_fusion({s: [cid for cid, _ in lst] for s, lst in used.items()}, weights=w)
    return score_fusion(used, weights=w, norm=fusion)


def _search(
    store: Store,
    encoder: Encoder | None,
    query: str,
    mode: SearchMode,
    k: int,
    weights: Mapping[str, float] | None,
    candidates: int,
    fusion: FusionMethod,
    hopping: tuple[int, float],
    doc_ids: Sequence[int] | None = None,
    given: NDArray[np.float32] | None = None,
) -> list[Hit]:
    sources = hybrid_sources(weights) if mode == "hybrid" else (mode,)
    hops, hop_similarity = hopping if mode == "hybrid" and encoder is not None else (0, 0.0)
    vector = given
    if vector is None and hops and encoder is not None:
        vector = encoder.encode([query], role="query")[0]
    ranked = rankings(
        store, encoder, query, sources, max(k, candidates) if mode == "hybrid" else k, vector, doc_ids=doc_ids
    )
    ranks = {name: {cid: r for r, (cid, _) in enumerate(lst, start=1)} for name, lst in ranked.items()}
    fused = fuse(ranked, weights, max(k, candidates), fusion)[:k] if mode == "hybrid" else ranked[mode][:k]
    via: dict[int, str] = {}
    if mode == "hybrid":
        if vector is not None and encoder is not None:
            fused, found = add_hops(store, encoder, query, vector, fused, hops, hop_similarity)
            fused = fused[:k] if doc_ids is None else within(store, fused, doc_ids)[:k]
            ranks["hops"] = {h.chunk_id: r for r, h in enumerate(found, start=1)}
            via = {h.chunk_id: fact_text(h.fact.subject, h.fact.relation, h.fact.object) for h in found}
        fused = cited_first(store, query, fused, ranks, k)
        fused = fused if doc_ids is None else within(store, fused, doc_ids)
    cites: dict[int, list[StoredRef]] = {}
    for ref in store.refs.refs(chunk_ids=[cid for cid, _ in fused]) if fused else ():
        cites.setdefault(ref.chunk_id, []).append(ref)
    chunks = {c.id: c for c in store.chunks.get_chunks([cid for cid, _ in fused])}
    docs: dict[int, DocumentRecord] = {}
    hits = []
    for cid, score in fused:
        chunk = chunks.get(cid)
        if chunk is None:  # deleted between the ranking and the fetch (another process removing a document)
            continue
        if chunk.doc_id not in docs:
            doc = store.docs.get_document(chunk.doc_id)
            if doc is None:
                continue
            docs[chunk.doc_id] = doc
        per_source = {name: r[cid] for name, r in ranks.items() if cid in r}
        snippet = make_snippet(chunk.text, query)
        hits.append(
            Hit(chunk, docs[chunk.doc_id], score, per_source, snippet, tuple(cites.get(cid, ())), via.get(cid, ""))
        )
    return hits


def cited_first(
    store: Store, query: str, fused: list[tuple[int, float]], ranks: dict[str, dict[int, int]], k: int
) -> list[tuple[int, float]]:
    """The chunks of the articles ``query`` itself cites (依政府採購法第64條…, resolved in the KB) first, at the
    ranking's top score; the rest after them. ``ranks`` gains their "refs" rank."""
    cited = list(dict.fromkeys(chunk for _, _, chunk in store.refs.resolve_text(query) if chunk is not None))
    if not cited:
        return fused
    ranks["refs"] = {cid: r for r, cid in enumerate(cited, start=1)}
    top = fused[0][1] if fused else 1.0
    return ([(cid, top) for cid in cited] + [(cid, s) for cid, s in fused if cid not in ranks["refs"]])[:k]
