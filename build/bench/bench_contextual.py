"""Contextual retrieval against the same KB without chunk contexts: the tender's 30 page questions, or
LawBench 1-1 article questions on a subset of its laws.

    .venv/bin/python build/bench/bench_contextual.py [--set tender|lawbench] [--law-chunks N] [--kb-dir DIR] [--limit N]
                                               [--out docs/BENCHMARKS.md]

0. The plain KB (parsed, embedded, late vectors, not enriched). The tender: ``DIR/tender.kb``, built by
   ``build/bench/tune_fusion.py --sets tender``. LawBench: ``DIR/lawbench-sub<N>.kb``, built here from a seeded random
   subset of the law files, about ``N`` chunks in all: half from files the questions name (in random order, whole
   files, until half the budget is reached), half from distractor files chosen the same way, with the questions
   whose gold article is in a chosen file. (All 3,607 chunks of the full set would take about 5.5 h of LLM time on
   2 cores.)
1. ``DIR/<set>.kb`` is copied to ``DIR/<set>-contextual.kb`` and enriched there with ``enrich.context = true``: a
   document summary, then one call per chunk writing its atomic questions and the context that situates it. The
   run is resumable (the LLM's replies are cached in the KB): rerun to go on, ``--limit`` chunks at a time.
2. Once every chunk is done, ``DIR/<set>-summary.kb`` is the same KB with the contexts taken out of the headers
   (their BM25 rows and early vectors made again): the document summary alone, what enrichment gave before.
3. Each of the three KBs (plain, summary, summary + contexts) ranks every question by BM25, dense (early), late and
   the default hybrid (atomic questions left out, so only the chunk text and its header differ), scored by page
   (tender) or by the gold article (LawBench).
   The cost of a context is read from the LLM usage the KB recorded: output tokens and seconds per chunk of the
   situating call, against those of the questions-only call on ``--cost-sample`` chunks asked again without it
   in a scratch copy (output tokens are the comparison: the prompt differs by the one situating line).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402
from tune_fusion import late_settings  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.events import Event, StageAdvanced  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.datasets import EvalQuery, load_law_articles, resolve_lawbench_questions  # noqa: E402
from pikelocal.eval.datasets.lawbench import LawArticle  # noqa: E402
from pikelocal.eval.datasets.tender import load_tender_questions  # noqa: E402
from pikelocal.eval.retrieval import chunk_page_keys, law_relevance, score_ranking  # noqa: E402
from pikelocal.eval.runner import LAW_ARTICLES  # noqa: E402
from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.ingest.read.tables import table_header_lines  # noqa: E402
from pikelocal.ingest.split.context import chunk_header, with_header  # noqa: E402
from pikelocal.kb.options import ingest_options  # noqa: E402
from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion, score_fusion  # noqa: E402
from pikelocal.query.retrieve.search import rankings  # noqa: E402
from pikelocal.store import db  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

QA = ROOT / "tests" / "data" / "tender_retrieval_qa.jsonl"
LAW = ROOT.parent / "shared" / "data" / "legal_zh"
LAW_ROOT = LAW / "laws_lawrefbook"
CHARS_PER_CHUNK = 160  # article characters per chunk over the full LawBench KB (577,361 / 3,607)
KS = (5, 10)


@dataclass(frozen=True)
class Subject:
    """What one run measures: the plain KB, its questions and how a chunk is keyed for them."""

    name: str  # the KBs are DIR/<name>.kb, DIR/<name>-contextual.kb, ...
    described: str  # for the section's caption
    queries: list[EvalQuery]
    key_of: Callable[[Store], Mapping[int, tuple[str, ...]]]
    markers: tuple[str, str]


def tender_subject() -> Subject:
    return Subject(
        "tender",
        "The tender PDF",
        [q.query for q in load_tender_questions(QA)],
        chunk_page_keys,
        ("<!-- bench_contextual:begin -->", "<!-- bench_contextual:end -->"),
    )


def law_subset(chunks: int, seed: int) -> tuple[list[str], list[tuple[str, LawArticle]]]:
    """About ``chunks`` chunks' worth of LawBench law files (half named by the questions, half distractors, whole
    files in a seeded random order) and the questions whose gold article lies in a chosen file."""
    articles = load_law_articles(LAW / LAW_ARTICLES)
    resolved = resolve_lawbench_questions(LAW / "lawbench" / "1-1.json", articles).resolved
    size: Counter[str] = Counter()
    law_of: dict[str, str] = {}
    for art in articles:
        size[art.file] += len(art.text)
        law_of[art.file] = art.law
    named_laws = {art.law for _, art in resolved}
    named = sorted({art.file for _, art in resolved})
    others = sorted(f for f in size if law_of[f] not in named_laws)  # no other version of a named law
    rng = random.Random(seed)
    rng.shuffle(named)
    rng.shuffle(others)
    budget = chunks * CHARS_PER_CHUNK / 2

    def take(files: list[str]) -> list[str]:
        picked: list[str] = []
        for f in files:
            if sum(size[p] for p in picked) >= budget:
                break
            picked.append(f)
        return picked

    chosen = take(named)
    kept = set(chosen)
    return sorted(chosen + take(others)), [(q, art) for q, art in resolved if art.file in kept]


def law_subject(kb_dir: Path, chunks: int, seed: int) -> Subject:
    """The LawBench subset's subject; its plain KB is built (or its build resumed) first."""
    files, questions = law_subset(chunks, seed)
    name = f"lawbench-sub{chunks}" + (f"-s{seed}" if seed else "")
    settings = late_settings()
    encoder = open_encoder(settings)
    with Store.open(kb_dir / f"{name}.kb", encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder) as store:
        report = Ingestor(store, encoder, ingest_options(settings)).ingest_paths([LAW_ROOT / f for f in files])
        if report.failed:
            sys.exit(f"{name}: {len(report.failed)} law files failed to ingest: {report.failed[0].message}")
    queries, _ = law_relevance_of(questions, kb_dir / f"{name}.kb")
    return Subject(
        name,
        f"LawBench 1-1 on {len(files)} of its law files (seed {seed}; about {chunks} chunks asked, half from laws"
        " the questions name, half distractors)",
        queries,
        lambda store: law_relevance(store, questions, LAW_ROOT)[1],
        (f"<!-- bench_contextual_{name}:begin -->", f"<!-- bench_contextual_{name}:end -->"),
    )


def law_relevance_of(
    questions: list[tuple[str, LawArticle]], kb: Path
) -> tuple[list[EvalQuery], Mapping[int, tuple[str, ...]]]:
    with Store.open_existing(kb) as store:
        return law_relevance(store, questions, LAW_ROOT)


def copy_kb(src: Path, dest: Path) -> None:
    """A consistent copy of ``src`` at ``dest`` (VACUUM INTO: what its -wal holds included), made atomically;
    ``src`` must not be open elsewhere."""
    if dest.exists():
        return
    tmp = dest.with_name(dest.name + ".tmp")
    tmp.unlink(missing_ok=True)
    with db.sole(src, key=None) as conn:  # opened with URI names on, as VACUUM INTO's keyed target needs
        db.vacuum_into(conn, tmp, key=None)
    tmp.replace(dest)


def progress(event: Event) -> None:
    if isinstance(event, StageAdvanced) and (event.done % 10 == 0 or event.done == event.total):
        print(f"[contextual] {event.stage} {event.done}/{event.total}", flush=True)


def enrich(kb: Path, limit: int | None, context: bool) -> bool:
    """Enrich ``kb`` (resumably); True when no chunk is left to do."""
    settings = api.load_settings(overrides={"enrich.context": context})
    with api.open_kb(kb, settings) as knowledge_base:
        knowledge_base.enrich(api.EnrichRequest(limit=limit), progress)
    with Store.open_existing(kb) as store:
        return not store.enrichment.chunk_ids_to_atomize(without_context=context)


def without_contexts(contextual: Path, out: Path) -> None:
    """A copy of ``contextual`` whose headers hold no chunk context (BM25 rows and early vectors made again)."""
    if out.exists():
        return
    tmp = out.with_name(out.name + ".work")
    tmp.unlink(missing_ok=True)
    copy_kb(contextual, tmp)
    encoder = open_encoder(api.load_settings())
    with Store.open_existing(tmp, readonly=False) as store:
        for doc in store.docs.documents():
            chunks = store.chunks.chunks_of(doc.id)
            headers = {
                c.id: chunk_header(
                    doc.title or "", c.section_path, summary=doc.summary, table_header=table_header_lines(c.header)
                )
                for c in chunks
            }
            vectors = encoder.encode([with_header(headers[c.id], c.text) for c in chunks], role="passage")
            store.enrichment.save_document_summary(doc.id, status="done", headers=headers, header_vectors=vectors)
    tmp.replace(out)


def retrieval(kb: Path, subject: Subject) -> dict[str, tuple[float, float, float]]:
    """nDCG@10, R@5, R@10 per ranking over the subject's questions (a tender chunk counts for every page it spans;
    a law chunk for every gold article it opens)."""
    settings = api.load_settings()
    encoder = open_encoder(settings)
    weights = {**settings.search.weights(), "questions": 0.0}
    questions = subject.queries
    sums: dict[str, list[float]] = {}
    with Store.open_existing(kb) as store:
        key_of = subject.key_of(store)
        for q in questions:
            lists = rankings(store, encoder, q.text, ("bm25", "dense", "late"), 100)
            ranked = {name: [c for c, _ in lst] for name, lst in lists.items()}
            used = {s: ids[: settings.search.candidates] for s, ids in ranked.items() if weights.get(s, 0) > 0}
            w = {s: weights[s] for s in used}
            if settings.search.fusion == "rrf":
                ranked["hybrid"] = [c for c, _ in reciprocal_rank_fusion(used, weights=w)]
            else:  # the product's score fusion, on the same candidates
                scored = {s: lst[: settings.search.candidates] for s, lst in lists.items() if s in used}
                ranked["hybrid"] = [c for c, _ in score_fusion(scored, weights=w, norm=settings.search.fusion)]
            for name, ids in ranked.items():
                ndcg, recalls, _mrr = score_ranking(ids, q, key_of, KS, hit_only=True)
                row = sums.setdefault(name, [0.0, 0.0, 0.0])
                row[0] += ndcg
                row[1] += recalls[5]
                row[2] += recalls[10]
    n = len(questions)
    return {name: (a / n, b / n, c / n) for name, (a, b, c) in sums.items()}


def usage(kb: Path, tag: str) -> tuple[int, float, float, float]:
    """(calls, output tokens, prompt tokens, LLM seconds) per call of ``tag`` in the KB's usage."""
    stats = api.open_kb(kb, api.load_settings()).stats()
    for u in stats.usage:
        if u.tag == tag and u.calls:
            return u.calls, u.completion_tokens / u.calls, u.prompt_tokens / u.calls, u.seconds / u.calls
    return 0, 0.0, 0.0, 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("tender", "lawbench"), default="tender")
    ap.add_argument("--law-chunks", type=int, default=700, help="LawBench: about this many chunks of law files")
    ap.add_argument("--seed", type=int, default=0, help="LawBench: the seed choosing the law files")
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval")
    ap.add_argument("--limit", type=int, default=None, help="chunks to enrich in this run (default: all left)")
    ap.add_argument("--cost-sample", type=int, default=20, help="chunks asked without a context, for the cost")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    if args.set == "tender":
        subject = tender_subject()
        if not (args.kb_dir / "tender.kb").exists():
            sys.exit(f"{args.kb_dir / 'tender.kb'}: no KB; build it with build/bench/tune_fusion.py --sets tender")
    else:
        args.kb_dir.mkdir(parents=True, exist_ok=True)
        subject = law_subject(args.kb_dir, args.law_chunks, args.seed)
    name = subject.name
    plain = args.kb_dir / f"{name}.kb"
    contextual = args.kb_dir / f"{name}-contextual.kb"
    copy_kb(plain, contextual)
    started = time.perf_counter()
    if not enrich(contextual, args.limit, context=True):
        print(f"[contextual] not done yet ({time.perf_counter() - started:.0f} s this run): run again", flush=True)
        return
    sample = args.kb_dir / f"{name}-questions-only.kb"
    copy_kb(plain, sample)
    enrich(sample, args.cost_sample, context=False)
    summary = args.kb_dir / f"{name}-summary.kb"
    without_contexts(contextual, summary)
    untouched = args.kb_dir / f"{name}-plain.kb"  # a copy: opening a KB may upgrade its schema, and the tuning
    copy_kb(plain, untouched)  # scripts of another checkout may still read <set>.kb
    rows = {"no enrichment": retrieval(untouched, subject), "document summary": retrieval(summary, subject)}
    rows["summary + chunk contexts"] = retrieval(contextual, subject)
    with_ctx, without = usage(contextual, "atomize_situate"), usage(sample, "atomize")
    with Store.open_existing(contextual) as store:
        contexts = [c.context for d in store.docs.documents() for c in store.chunks.chunks_of(d.id) if c.context]
        chunks = sum(len(store.chunks.chunks_of(d.id)) for d in store.docs.documents())
    fusion = api.load_settings().search
    begin, end = subject.markers
    command = "build/bench/bench_contextual.py" + (
        f" --set lawbench --law-chunks {args.law_chunks} --seed {args.seed}" if args.set == "lawbench" else ""
    )
    questions = "its 30 page questions" if args.set == "tender" else f"its {len(subject.queries)} questions"
    lines = [
        begin,
        "## Contextual retrieval: chunk contexts from the enrichment call"
        + ("" if args.set == "tender" else ", LawBench subset"),
        "",
        f"_`.venv/bin/python {command}` on {dt.datetime.now():%Y-%m-%d %H:%M}; {cpu_summary()};"
        f" Python {platform.python_version()}. {subject.described} ({chunks} chunks, {len(contexts)} with a context,"
        f" median {statistics.median(len(c) for c in contexts) if contexts else 0:.0f} characters), {questions};"
        " default encoder and LLM; hybrid = the configured fusion"
        f" ({fusion.fusion} {fusion.bm25_weight:g} / {fusion.dense_weight:g} / {fusion.late_weight:g}) with the"
        " atomic questions left out._",
        "",
        "| KB | mode | nDCG@10 | R@5 | R@10 |",
        "|---|---|---|---|---|",
    ]
    for kb_name, result in rows.items():
        for mode in ("bm25", "dense", "late", "hybrid"):
            ndcg, r5, r10 = result[mode]
            lines.append(f"| {kb_name} | {mode} | {ndcg:.3f} | {r5:.3f} | {r10:.3f} |")
    lines += [
        "",
        "| enrichment call per chunk | calls | output tokens | prompt tokens | LLM seconds |",
        "|---|---|---|---|---|",
        f"| questions + context | {with_ctx[0]} | {with_ctx[1]:.0f} | {with_ctx[2]:.0f} | {with_ctx[3]:.1f} |",
        f"| questions only (first {args.cost_sample} chunks) | {without[0]} | {without[1]:.0f} | {without[2]:.0f} |"
        f" {without[3]:.1f} |",
        end,
    ]
    write_section(args.out, begin, end, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
