"""Late chunking that keeps the document's identity: the variants measured side by side.

    .venv/bin/python build/bench/bench_late_context.py [--sets tender,lawbench,2wiki] [--kb-dir DIR] [--out FILE]

Each set's KB is the one ``build/bench/tune_fusion.py`` builds (``DIR/<set>.kb``, default late vectors stored). For
every document this script computes late vectors again, in memory, as the ingest pipeline groups them
(``plan_late_groups``), with every encoder window first reading the title › section path where it starts
(``ingest.late_context``): once, pooled two ways, "prefix" (the context's tokens left out of each chunk's mean)
and "pooled" (counted in). They are saved per document in ``DIR/<set>.latectx.npz`` (resumable: a killed run
goes on with the documents not done).

Then every query is ranked by brute-force cosine over all chunks with: the stored early (dense) and late vectors,
the two new variants, and the late+header mix of ``tune_fusion`` (the late vector mixed with its header's early
vector, β = 0.5) for the stored late and for "prefix". Reported: nDCG@10, R@1, R@5, R@10 and the late stage's
seconds per 1k document tokens with and without the context (this run's pass, against a pass without it over
the first documents, timed on the same machine).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
import time
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

BUILD = Path(__file__).resolve().parent  # build/bench: sections.py, tune_fusion.py
ROOT = BUILD.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BUILD))

from sections import write_section  # noqa: E402
from tune_fusion import SETS, open_set  # noqa: E402

from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.base import Encoder  # noqa: E402
from pikelocal.embed.late import pool_span  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, score_ranking  # noqa: E402
from pikelocal.ingest.enrich.embed import document_text, early_text, header_at, plan_late_groups  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_late_context:begin -->", "<!-- bench_late_context:end -->"
KS = (1, 5, 10)
BETA = 0.5
TIMING_DOCS = 3  # documents late-chunked twice more (without and with the context) to time the context's cost


Vectors = dict[str, dict[int, NDArray[np.float32]]]


def late_pass(encoder: Encoder, store: Store, doc_id: int, with_context: bool) -> Vectors:
    """One document's late vectors: {"prefix": {chunk id: vector}, "pooled": …} (or {"off": …})."""
    chunks = store.chunks.chunks_of(doc_id)
    if not chunks:
        return {}
    text = document_text(chunks)
    heads = header_at(chunks)
    tokens = [encoder.count_tokens(c.text) for c in chunks]
    out: dict[str, dict[int, NDArray[np.float32]]] = {"prefix": {}, "pooled": {}} if with_context else {"off": {}}
    for group in plan_late_groups(chunks, tokens, encoder.late_window_tokens, len(text)):
        start = group.start

        def context(offset: int, start: int = start) -> str:
            return heads(start + offset)

        tv = encoder.encode_tokens(text[group.start : group.end], context=context if with_context else None)
        for c in group.chunks:
            for name in out:
                try:
                    v = pool_span(tv, c.char_start - start, c.char_end - start, with_context=name == "pooled")
                except ValueError:
                    v = encoder.encode([early_text(c)], role="passage")[0]
                out[name][c.id] = v
    return out


def compute(encoder: Encoder, store: Store, cache: Path) -> dict[str, dict[int, NDArray[np.float32]]]:
    """Both variants for every document, resumably cached in ``cache``."""
    done: dict[str, dict[int, NDArray[np.float32]]] = {"prefix": {}, "pooled": {}}
    finished: set[int] = set()
    if cache.exists():
        z = np.load(cache)
        finished = set(int(d) for d in z["docs"])
        for name in done:
            done[name] = dict(zip((int(i) for i in z[f"{name}_ids"]), z[f"{name}_vecs"], strict=True))
    docs = [d for d in store.docs.documents() if d.id not in finished]
    started, last_save = time.perf_counter(), time.perf_counter()
    print(f"[late_context] {len(finished)} documents cached, {len(docs)} to go", flush=True)
    for n, d in enumerate(docs, start=1):
        for name, vecs in late_pass(encoder, store, d.id, True).items():
            done[name].update(vecs)
        finished.add(d.id)
        if time.perf_counter() - last_save > 60 or n == len(docs):
            save(cache, finished, done)
            last_save = time.perf_counter()
            took = time.perf_counter() - started
            print(f"[late_context] {n}/{len(docs)} documents, {took:.0f} s", flush=True)
    return done


def save(cache: Path, finished: set[int], done: dict[str, dict[int, NDArray[np.float32]]]) -> None:
    arrays: dict[str, NDArray[np.generic]] = {"docs": np.array(sorted(finished), dtype=np.int64)}
    for name, vecs in done.items():
        ids = sorted(vecs)
        arrays[f"{name}_ids"] = np.array(ids, dtype=np.int64)
        arrays[f"{name}_vecs"] = np.stack([vecs[i] for i in ids]) if ids else np.zeros((0, 1), np.float32)
    tmp = cache.with_name(cache.name + ".tmp.npz")
    np.savez(tmp, **arrays)  # type: ignore[arg-type]
    tmp.replace(cache)


def timing(encoder: Encoder, store: Store) -> tuple[float, float, int]:
    """Seconds of the late pass over the first documents without and with the context, and their tokens."""
    docs = [d.id for d in store.docs.documents()][:TIMING_DOCS]
    tokens = sum(encoder.count_tokens(c.text) for d in docs for c in store.chunks.chunks_of(d))
    secs = []
    for with_context in (False, True):
        t0 = time.perf_counter()
        for d in docs:
            late_pass(encoder, store, d, with_context)
        secs.append(time.perf_counter() - t0)
    return secs[0], secs[1], tokens


def matrix(ids: list[int], vecs: dict[int, NDArray[np.float32]]) -> NDArray[np.float32]:
    return np.stack([vecs[i] for i in ids]).astype(np.float32)


def mixed(late: NDArray[np.float32], head: NDArray[np.float32]) -> NDArray[np.float32]:
    m = (1 - BETA) * late + BETA * head
    return np.asarray(m / np.linalg.norm(m, axis=1, keepdims=True), dtype=np.float32)


def run_set(name: str, kb_dir: Path) -> str:
    spec = SETS[name]
    with open_set(spec, kb_dir / f"{name}.kb") as opened:
        store, encoder = opened.store, opened.encoder
        variants = compute(encoder, store, kb_dir / f"{name}.latectx.npz")
        plain_s, ctx_s, timed_tokens = timing(encoder, store)
        ids = sorted(variants["prefix"])
        stored = {
            kind: {i: v for i in ids if (v := store.index.vector(kind, i)) is not None} for kind in ("chunk", "late")
        }
        ids = [i for i in ids if i in stored["chunk"] and i in stored["late"]]
        by_id = {c.id: c for c in store.chunks.get_chunks(ids)}
        headers = [by_id[i].header.split("\n", 1)[0] for i in ids]
        distinct = list(dict.fromkeys(headers))
        print(f"[late_context] {name}: encoding {len(distinct):,} distinct headers", flush=True)
        head_vecs = dict(zip(distinct, encoder.encode(distinct, role="passage"), strict=True))
        head = np.stack([head_vecs[h] for h in headers]).astype(np.float32)
        late = matrix(ids, stored["late"])
        prefix = matrix(ids, variants["prefix"])
        rankers = {
            "dense (early, header + text)": matrix(ids, stored["chunk"]),
            "late, no context (today)": late,
            f"late + header mix β {BETA:g}": mixed(late, head),
            "late, context as prefix": prefix,
            "late, context pooled": matrix(ids, variants["pooled"]),
            f"late, context as prefix, + header mix β {BETA:g}": mixed(prefix, head),
        }
        key_of = opened.key_of if opened.key_of is not None else chunk_doc_keys(store)
        sums = {r: np.zeros(2 + len(KS)) for r in rankers}
        for q in opened.queries:
            qv = encoder.encode([q.text], role="query")[0]
            for r, m in rankers.items():
                top = np.argsort(-(m @ qv))[:100]
                ndcg, recalls, _mrr = score_ranking([ids[k] for k in top], q, key_of, KS, hit_only=opened.hit_only)
                sums[r] += np.array([ndcg, *(recalls[k] for k in KS), _mrr])
        n = max(1, len(opened.queries))
        lines = [
            f"**{opened.title}** ({len(opened.queries)} queries, {len(ids):,} chunks)",
            "",
            "| late vectors | nDCG@10 | R@1 | R@5 | R@10 | MRR |",
            "|---|---|---|---|---|---|",
        ]
        for r, s in sums.items():
            avg = s / n
            lines.append(f"| {r} | " + " | ".join(f"{x:.3f}" for x in avg) + " |")
        per_k = 1000 / max(1, timed_tokens)
        lines += [
            "",
            f"Late stage over the first {TIMING_DOCS} documents ({timed_tokens:,} tokens): {plain_s * per_k:.1f} s per"
            f" 1k tokens without the context, {ctx_s * per_k:.1f} s with it ({ctx_s / max(plain_s, 1e-9):.2f}x).",
        ]
        return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="tender,lawbench,2wiki")
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    started = dt.datetime.now()
    parts = [run_set(name, args.kb_dir) for name in args.sets.split(",")]
    header = (
        f"_`.venv/bin/python build/bench/bench_late_context.py --sets {args.sets}` on {started:%Y-%m-%d %H:%M};"
        f" {cpu_summary()}; Python {platform.python_version()}. Brute-force cosine over every chunk (the product's"
        " sqlite-vec search returns the same order), 100 deep; a chunk counts for its document (2Wiki), its article"
        " (LawBench) or every page it spans (tender)._"
    )
    section = "\n\n".join(
        [
            BEGIN + "\n## Late chunking that keeps the document's identity",
            header,
            *parts,
        ]
    )
    write_section(args.out, BEGIN, END, section + "\n" + END)
    print(f"[late_context] written to {args.out}", flush=True)


if __name__ == "__main__":
    main()
