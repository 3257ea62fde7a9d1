"""Contextual retrieval against the same KB without chunk contexts, on the tender's 30 page questions (issue 19).

    .venv/bin/python build/bench_contextual.py [--kb-dir DIR] [--limit N] [--out docs/BENCHMARKS.md]

1. ``DIR/tender.kb`` (built by ``build/tune_fusion.py --sets tender``: parsed, embedded, late vectors, not
   enriched) is copied to ``DIR/tender-contextual.kb`` and enriched there with ``enrich.context = true``: a
   document summary, then one call per chunk writing its atomic questions and the context that situates it. The
   run is resumable (the LLM's replies are cached in the KB): rerun to go on, ``--limit`` chunks at a time.
2. Once every chunk is done, ``DIR/tender-summary.kb`` is the same KB with the contexts taken out of the headers
   (their BM25 rows and early vectors made again): the document summary alone, what enrichment gave before.
3. Each of the three KBs (plain, summary, summary + contexts) ranks every question by BM25, dense (early), late and
   the default hybrid (atomic questions left out, so only the chunk text and its header differ), scored by page.
   The cost of a context is read from the LLM usage the KB recorded: output tokens and seconds per chunk of the
   situating call, against those of the questions-only call on ``--cost-sample`` chunks asked again without it
   in a scratch copy (output tokens are the comparison: the prompt differs by the one situating line).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build"))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.events import Event, StageAdvanced  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.datasets.tender import load_tender_questions  # noqa: E402
from pikelocal.eval.retrieval import chunk_page_keys, score_ranking  # noqa: E402
from pikelocal.ingest.context import chunk_header, with_header  # noqa: E402
from pikelocal.ingest.tables import table_header_lines  # noqa: E402
from pikelocal.query.fusion import reciprocal_rank_fusion, score_fusion  # noqa: E402
from pikelocal.query.search import rankings  # noqa: E402
from pikelocal.store import db  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_contextual:begin -->", "<!-- bench_contextual:end -->"
QA = ROOT / "tests" / "data" / "tender_retrieval_qa.jsonl"
KS = (5, 10)


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


def retrieval(kb: Path) -> dict[str, tuple[float, float, float]]:
    """nDCG@10, R@5, R@10 per ranking over the tender's questions, a chunk counting for every page it spans."""
    settings = api.load_settings()
    encoder = open_encoder(settings)
    weights = {**settings.search.weights(), "questions": 0.0}
    questions = load_tender_questions(QA)
    sums: dict[str, list[float]] = {}
    with Store.open_existing(kb) as store:
        key_of = chunk_page_keys(store)
        for q in questions:
            lists = rankings(store, encoder, q.question, ("bm25", "dense", "late"), 100)
            ranked = {name: [c for c, _ in lst] for name, lst in lists.items()}
            used = {s: ids[: settings.search.candidates] for s, ids in ranked.items() if weights.get(s, 0) > 0}
            w = {s: weights[s] for s in used}
            if settings.search.fusion == "rrf":
                ranked["hybrid"] = [c for c, _ in reciprocal_rank_fusion(used, weights=w)]
            else:  # the product's score fusion, on the same candidates
                scored = {s: lst[: settings.search.candidates] for s, lst in lists.items() if s in used}
                ranked["hybrid"] = [c for c, _ in score_fusion(scored, weights=w, norm=settings.search.fusion)]
            for name, ids in ranked.items():
                ndcg, recalls, _mrr = score_ranking(ids, q.query, key_of, KS, hit_only=True)
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
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval")
    ap.add_argument("--limit", type=int, default=None, help="chunks to enrich in this run (default: all left)")
    ap.add_argument("--cost-sample", type=int, default=20, help="chunks asked without a context, for the cost")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    plain = args.kb_dir / "tender.kb"
    if not plain.exists():
        sys.exit(f"{plain}: no KB; build it with build/tune_fusion.py --sets tender")
    contextual = args.kb_dir / "tender-contextual.kb"
    copy_kb(plain, contextual)
    started = time.perf_counter()
    if not enrich(contextual, args.limit, context=True):
        print(f"[contextual] not done yet ({time.perf_counter() - started:.0f} s this run): run again", flush=True)
        return
    sample = args.kb_dir / "tender-questions-only.kb"
    copy_kb(plain, sample)
    enrich(sample, args.cost_sample, context=False)
    summary = args.kb_dir / "tender-summary.kb"
    without_contexts(contextual, summary)
    untouched = args.kb_dir / "tender-plain.kb"  # a copy: opening a KB may upgrade its schema, and the tuning
    copy_kb(plain, untouched)  # scripts of another checkout may still read tender.kb
    rows = {"no enrichment": retrieval(untouched), "document summary": retrieval(summary)}
    rows["summary + chunk contexts"] = retrieval(contextual)
    with_ctx, without = usage(contextual, "atomize_situate"), usage(sample, "atomize")
    with Store.open_existing(contextual) as store:
        contexts = [c.context for d in store.docs.documents() for c in store.chunks.chunks_of(d.id) if c.context]
        chunks = sum(len(store.chunks.chunks_of(d.id)) for d in store.docs.documents())
    fusion = api.load_settings().search
    lines = [
        BEGIN,
        "## Contextual retrieval: chunk contexts from the enrichment call (issue 19, step 1)",
        "",
        f"_`.venv/bin/python build/bench_contextual.py` on {dt.datetime.now():%Y-%m-%d %H:%M}; {cpu_summary()};"
        f" Python {platform.python_version()}. The tender PDF ({chunks} chunks, {len(contexts)} with a context,"
        f" median {statistics.median(len(c) for c in contexts) if contexts else 0:.0f} characters), its 30 page"
        " questions; default encoder and LLM; hybrid = the default fusion"
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
        END,
    ]
    write_section(args.out, BEGIN, END, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
