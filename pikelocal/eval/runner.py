"""`pikelocal eval retrieval`: load a dataset, build (or reuse) its KB, score every mode."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from pikelocal.config import Settings
from pikelocal.domain.errors import InputError
from pikelocal.domain.events import EventSink, ignore
from pikelocal.embed.base import Encoder
from pikelocal.embed.factory import open_encoder
from pikelocal.eval import datasets as ds
from pikelocal.eval.datasets import EvalQuery
from pikelocal.eval.retrieval import ModeScores, evaluate, ingest_corpus, law_relevance
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.kb.options import ingest_options, search_weights
from pikelocal.store.store import Store

LAW_ARTICLES = "law_articles.jsonl"


@dataclass(frozen=True)
class RetrievalRun:
    title: str
    kb: Path
    scores: list[ModeScores]
    ks: tuple[int, ...]
    notes: tuple[str, ...] = ()


def layout_of(data: Path) -> str:
    if (data / LAW_ARTICLES).is_file():
        return "law"
    return ds.detect_layout(data)


def _multihop_files(data: Path, which: str | None) -> tuple[Path, Path]:
    if data.is_file():
        return data, data.with_name(data.name.replace("_corpus.json", "_questions.json"))
    if which is None:
        raise InputError(f"{data}: a multi-hop folder holds several sets; choose one with --set hotpotqa|2wiki")
    return ds.find_multihop(data, which)


@dataclass(frozen=True)
class OpenedSet:
    """A benchmark's KB, open, with its queries and how its chunks map to the queries' relevance keys."""

    store: Store
    encoder: Encoder
    queries: list[EvalQuery]
    key_of: dict[int, tuple[str, ...]] | None  # None: each chunk's corpus document id
    hit_only: bool
    title: str
    kb: Path
    notes: tuple[str, ...]


@contextmanager
def opened_set(
    settings: Settings,
    data: Path,
    *,
    which: str | None = None,
    kb: Path | None = None,
    limit: int | None = None,
    seed: int = 0,
    chunk_tokens: int | None = None,
    pool: bool = False,
    sink: EventSink = ignore,
    key: str | None = None,
) -> Iterator[OpenedSet]:
    """Load a dataset, build (or resume building) its KB, and yield it open with its queries."""
    data = Path(data)
    if chunk_tokens is not None:
        low = min(settings.ingest.min_tokens, chunk_tokens)
        ingest = replace(settings.ingest, chunk_tokens=chunk_tokens, min_tokens=low, max_tokens=chunk_tokens * 3 // 2)
        settings = replace(settings, ingest=ingest)
    encoder = open_encoder(settings)
    layout = layout_of(data)
    notes: list[str] = []
    suffix = f"{encoder.model_id}-c{settings.ingest.chunk_tokens}"
    options = ingest_options(settings)
    if layout == "law":
        articles = ds.load_law_articles(data / LAW_ARTICLES)
        resolved = ds.resolve_lawbench_questions(data / "lawbench" / "1-1.json", articles)
        if resolved.unresolved:
            notes.append(f"{len(resolved.unresolved)} LawBench questions name no known article and are left out")
        files = ds.choose_law_files(resolved.resolved, articles, seed=seed)
        root = data / "laws_lawrefbook"
        kb = kb or Path(f"eval-lawbench-1-1-{suffix}.kb")
        questions = ds.subset(resolved.resolved, limit, seed)
        with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder, key=key) as store:
            report = Ingestor(store, encoder, options, sink).ingest_paths([root / f for f in files])
            if report.failed:
                notes.append(f"{len(report.failed)} law files failed to ingest: {report.failed[0].message}")
            queries, key_of = law_relevance(store, questions, root)
            named = len({art.file for _, art in resolved.resolved})
            notes.append(f"{len(files)} law files: the {named} the questions name, the rest distractors")
            title = f"LawBench 1-1 article retrieval ({len(queries)} questions), {encoder.model_id}"
            yield OpenedSet(store, encoder, queries, key_of, True, title, kb, tuple(notes))
        return
    if layout == "beir":
        evalset = ds.load_beir(data if data.is_dir() else data.parent)
    else:
        corpus, questions_json = _multihop_files(data, which)
        evalset = ds.load_multihop(corpus, questions_json)
    chosen = ds.subset(evalset.queries, limit, seed)
    if pool:
        evalset = ds.pooled(evalset, chosen)
    kb = kb or Path(f"eval-{evalset.name}-{suffix}.kb")
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder, key=key) as store:
        ingest_corpus(store, encoder, evalset, options, sink)
        title = f"{evalset.name} ({len(evalset.docs):,} docs, {len(chosen)} queries), {encoder.model_id}"
        yield OpenedSet(store, encoder, list(chosen), None, False, title, kb, tuple(notes))


def run_retrieval(
    settings: Settings,
    data: Path,
    *,
    which: str | None = None,
    kb: Path | None = None,
    modes: Sequence[str] = ("bm25", "dense", "late", "hybrid"),
    ks: Sequence[int] = (1, 2, 5, 10, 100),
    limit: int | None = None,
    seed: int = 0,
    chunk_tokens: int | None = None,
    pool: bool = False,
    sink: EventSink = ignore,
    key: str | None = None,
) -> RetrievalRun:
    with opened_set(
        settings, data, which=which, kb=kb, limit=limit, seed=seed, chunk_tokens=chunk_tokens, pool=pool,
        sink=sink, key=key,
    ) as opened:  # fmt: skip
        notes = opened.notes
        if "late" in modes and not opened.store.index.has_vectors("late"):
            modes = [m for m in modes if m != "late"]
            notes += ("late left out: the KB has no late-chunked vectors (ingest.late is off; `ingest --late`)",)
        scores = evaluate(
            opened.store, opened.encoder, opened.queries, modes=modes, ks=ks,
            weights=search_weights(settings, opened.store, opened.encoder.model_id),
            key_of=opened.key_of, hit_only=opened.hit_only, sink=sink, fusion=settings.search.fusion,
            hops=settings.search.hops, hop_similarity=settings.search.hop_similarity,
        )  # fmt: skip
        return RetrievalRun(opened.title, opened.kb, scores, tuple(ks), notes)
