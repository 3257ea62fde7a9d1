"""Retrieval evaluation: build a KB from a corpus, run every query in every mode, score the rankings.

Rankings are over chunks; a corpus document is retrieved at the rank of its best chunk (duplicates dropped),
so a corpus split into several chunks per document is scored per document. The Chinese law set is scored per
article: a hit is a chunk of the right law file that holds the article's opening line.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pikelocal.domain.events import EventSink, StageAdvanced, StageFinished, StageStarted, ignore
from pikelocal.domain.kinds import FUSED_SOURCES, FusionMethod
from pikelocal.embed.base import Encoder
from pikelocal.eval.datasets import EvalQuery, EvalSet, LawArticle
from pikelocal.eval.metrics import dedupe, mean, mrr_at_k, ndcg_at_k, recall_at_k
from pikelocal.ingest.pipeline import IngestOptions, Ingestor, SourceText
from pikelocal.query.retrieve.hops import HOP_MIN_SIMILARITY, add_hops
from pikelocal.query.retrieve.search import cited_first, fuse, hybrid_sources, rankings
from pikelocal.store.store import Store

EVAL_KEY = "eval:"  # path prefix of corpus documents in an evaluation KB
MODES = ("bm25", "dense", "late", "hybrid")
CHUNKS_ONLY = "chunks"  # hybrid without the atomic-question path, to measure what the questions add
WITH_REFS = "refs"  # hybrid with the articles the query cites first, as search ranks (hybrid here: without them)


@dataclass(frozen=True)
class ModeScores:
    mode: str
    queries: int
    ndcg10: float
    recall: Mapping[int, float]  # k → mean Recall@k
    mrr: float


def ingest_corpus(
    store: Store, encoder: Encoder, evalset: EvalSet, options: IngestOptions, sink: EventSink = ignore
) -> None:
    """Put every corpus document in the KB (already present ones are skipped, so a stopped build resumes)."""
    # a document with a title but no text is its title (as BEIR scores it), not an unretrievable empty one
    items = (SourceText(f"{EVAL_KEY}{d.doc_id}", d.title, d.text if d.text.strip() else d.title) for d in evalset.docs)
    Ingestor(store, encoder, options, sink).ingest_texts(items, total=len(evalset.docs))


def chunk_doc_keys(store: Store) -> dict[int, tuple[str, ...]]:
    """chunk id → (corpus document id,), for an evaluation KB."""
    docs = {d.id: d.path.removeprefix(EVAL_KEY) for d in store.docs.documents()}
    return {cid: (docs[doc_id],) for cid, doc_id in store.chunks.chunk_owners().items()}


def chunk_page_keys(store: Store) -> dict[int, tuple[str, ...]]:
    """chunk id → the page keys (``p<N>``) of every page it spans, for a page-retrieval set (the tender's)."""
    from pikelocal.eval.datasets.tender import page_key

    return {
        c.id: tuple(page_key(p) for p in range(c.page_start or 1, (c.page_end or c.page_start or 1) + 1))
        for d in store.docs.documents()
        for c in store.chunks.chunks_of(d.id)
    }


def ranked_by_mode(
    store: Store,
    encoder: Encoder,
    query: str,
    modes: Sequence[str],
    depth: int,
    weights: Mapping[str, float],
    candidates: int | None = None,
    fusion: FusionMethod = "rrf",
    hops: int = 0,
    hop_similarity: float = HOP_MIN_SIMILARITY,
) -> dict[str, list[int]]:
    """Chunk ids ranked by each mode, from one query encoding; hybrid fuses as ``search`` does, with its ``hops``
    fact hops (``chunks``, hybrid as it was before enrichment, has none)."""
    no_questions = {**weights, "questions": 0.0}
    fused = hybrid_sources(weights) if "hybrid" in modes or WITH_REFS in modes else ()
    fused += hybrid_sources(no_questions) if CHUNKS_ONLY in modes else ()
    sources = tuple(s for s in FUSED_SOURCES if s in modes or s in fused)
    n = max(depth, candidates or 0)
    vector = encoder.encode([query], role="query")[0]
    lists = rankings(store, encoder, query, sources, n, vector)
    out = {m: [cid for cid, _ in lists[m][:depth]] for m in modes if m not in ("hybrid", CHUNKS_ONLY, WITH_REFS)}
    if "hybrid" in modes or WITH_REFS in modes:
        hybrid = fuse(lists, weights, n, fusion)[:depth]
        if hops:
            hybrid = add_hops(store, encoder, query, vector, hybrid, hops, hop_similarity)[0][:depth]
        if "hybrid" in modes:  # search's fusion, without its legal cross-references (WITH_REFS adds them)
            out["hybrid"] = [cid for cid, _ in hybrid]
        if WITH_REFS in modes:  # = search(…, k=depth)
            out[WITH_REFS] = [cid for cid, _ in cited_first(store, query, hybrid, {}, depth)]
    if CHUNKS_ONLY in modes:
        out[CHUNKS_ONLY] = [cid for cid, _ in fuse(lists, no_questions, n, fusion)[:depth]]
    return out


def evaluate(
    store: Store,
    encoder: Encoder,
    queries: Sequence[EvalQuery],
    *,
    modes: Sequence[str] = MODES,
    ks: Sequence[int] = (1, 5, 10, 100),
    weights: Mapping[str, float] | None = None,
    key_of: Mapping[int, Sequence[str]] | None = None,
    hit_only: bool = False,
    sink: EventSink = ignore,
    fusion: FusionMethod = "rrf",
    hops: int = 0,
    hop_similarity: float = HOP_MIN_SIMILARITY,
) -> list[ModeScores]:
    """Mean nDCG@10, Recall@k and MRR@max(k) of each mode over ``queries``.

    ``key_of`` maps a chunk id to the keys ``EvalQuery.relevant`` uses (default: its corpus document id); a
    chunk with several keys (two articles in one chunk) puts them all at its rank.
    ``hit_only`` scores Recall@k as 1 when any relevant key is in the top k (one right answer is enough).
    """
    key_of = chunk_doc_keys(store) if key_of is None else key_of
    depth = max(max(ks), 10)
    per_mode: dict[str, list[tuple[float, dict[int, float], float]]] = {m: [] for m in modes}
    started = time.perf_counter()
    sink(StageStarted("queries", len(queries), "queries"))
    for n, q in enumerate(queries, start=1):
        ranked = ranked_by_mode(
            store, encoder, q.text, modes, depth * 3, weights or {}, fusion=fusion, hops=hops,
            hop_similarity=hop_similarity,
        )  # fmt: skip
        for mode, chunk_ids in ranked.items():
            per_mode[mode].append(score_ranking(chunk_ids, q, key_of, ks, hit_only=hit_only))
        sink(StageAdvanced("queries", n, len(queries)))
    sink(StageFinished("queries", len(queries), time.perf_counter() - started))
    return [
        ModeScores(
            mode,
            len(rows),
            mean([r[0] for r in rows]),
            {k: mean([r[1][k] for r in rows]) for k in ks},
            mean([r[2] for r in rows]),
        )
        for mode, rows in per_mode.items()
    ]


def score_ranking(
    chunk_ids: Sequence[int],
    query: EvalQuery,
    key_of: Mapping[int, Sequence[str]],
    ks: Sequence[int],
    *,
    hit_only: bool = False,
) -> tuple[float, dict[int, float], float]:
    """(nDCG@10, {k: Recall@k}, MRR@depth) of one query's ranked chunk ids, scored by their keys (see
    :func:`evaluate`); depth is max(max(ks), 10)."""
    depth = max(max(ks), 10)
    relevant = {k for k, g in query.relevant.items() if g > 0}
    ranked = dedupe([_key_for(key_of[c], relevant) for c in chunk_ids if key_of.get(c)])[:depth]
    recalls = {
        k: (1.0 if relevant & set(ranked[:k]) else 0.0) if hit_only else recall_at_k(ranked, relevant, k) for k in ks
    }
    return ndcg_at_k(ranked, query.relevant, 10), recalls, mrr_at_k(ranked, relevant, depth)


def _key_for(keys: Sequence[str], relevant: set[str]) -> str:
    """A chunk's key for one query: a relevant one when it has one (so ranks count chunks, not keys)."""
    return next((k for k in keys if k in relevant), keys[0])


def article_pattern(article: str) -> re.Pattern[str]:
    """The article's opening: its label at the start of a line, then a space or its text."""
    return re.compile(rf"(?m)^\s*{re.escape(article)}(?![一二三四五六七八九十百千零〇\d之])")


def law_relevance(
    store: Store, questions: Sequence[tuple[str, LawArticle]], law_root: Path
) -> tuple[list[EvalQuery], dict[int, tuple[str, ...]]]:
    """Queries whose relevant keys are ``file#article``, and chunk id → every such key the chunk opens."""
    root = str(law_root.resolve())
    docs = {d.id: d.path for d in store.docs.documents()}
    wanted: dict[str, set[str]] = {}
    for _, art in questions:
        wanted.setdefault(str(Path(root, art.file)), set()).add(art.article)
    key_of: dict[int, tuple[str, ...]] = {}
    for doc_id, path in docs.items():
        for c in store.chunks.chunks_of(doc_id):
            rel = str(Path(path).relative_to(root)) if path.startswith(root) else path
            opened = sorted(a for a in wanted.get(path, ()) if article_pattern(a).search(c.text))
            # a chunk that opens no wanted article still ranks (as a miss), under a key of its own
            key_of[c.id] = tuple(f"{rel}#{a}" for a in opened) or (f"{rel}#chunk{c.id}",)
    queries = [EvalQuery(f"q{i}", text, {f"{art.file}#{art.article}": 1}) for i, (text, art) in enumerate(questions)]
    return queries, key_of


def format_table(title: str, scores: Sequence[ModeScores], ks: Sequence[int]) -> str:
    """A Markdown table: one row per mode."""
    head = ["mode", "queries", "nDCG@10", *[f"R@{k}" for k in ks], "MRR"]
    lines = [f"**{title}**", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in scores:
        cells = [s.mode, str(s.queries), f"{s.ndcg10:.3f}", *[f"{s.recall[k]:.3f}" for k in ks], f"{s.mrr:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
