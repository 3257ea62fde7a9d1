"""Recall of the sign-bit pre-filter on real encoder vectors.

The entity graph's seeds come from the KNN of the question's vector over the entity names' and the triples'
vectors. Above ``store.index.BIT_SCAN_MIN_ROWS`` rows that KNN scans sign bits (hamming) for
``k x BIT_OVERSAMPLE`` candidates and re-scores them by cosine (``store/vectors.knn_binary_rescore``). Random
vectors (``bench_graph.py``) show its speed, not whether it finds what the exact scan finds. Here the rows are
real short texts encoded by the configured encoder (the default: EmbeddingGemma) in the query role, as names
are: the titles and the sentences of the HotpotQA and 2Wiki dev-500 corpora in ../shared/data/multihop, and the queries
are those sets' questions. Recall@k = the share of the exact top k that the pre-filter returns, per oversample.

    .venv/bin/python build/bench/bench_bit_recall.py --out docs/BENCHMARKS.md

The encoded vectors are kept in build/cache/bit_recall-<encoder>.npz, so a second run only measures.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.store import db, index, vectors  # noqa: E402

BEGIN, END = "<!-- bench_bit_recall:begin -->", "<!-- bench_bit_recall:end -->"
MULTIHOP = ROOT.parent / "shared" / "data" / "multihop"
SETS = ("hotpotqa_dev500", "2wikimultihopqa_dev500")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def texts_and_questions() -> tuple[list[str], list[str]]:
    """Distinct titles and sentences (the rows), and the questions (the queries), of both corpora."""
    rows: dict[str, None] = {}
    questions: list[str] = []
    for name in SETS:
        for doc in json.loads((MULTIHOP / f"{name}_corpus.json").read_text(encoding="utf-8")):
            rows.setdefault(str(doc["title"]).strip(), None)
            for sentence in SENTENCE_END.split(str(doc["text"])):
                if 3 <= len(sentence.split()) <= 60:
                    rows.setdefault(sentence.strip(), None)
        for q in json.loads((MULTIHOP / f"{name}_questions.json").read_text(encoding="utf-8")):
            questions.append(str(q["question"]))
    return [r for r in rows if r], questions


def encoded(cache: Path) -> tuple[np.ndarray, np.ndarray, str]:
    encoder = open_encoder(load_settings())
    path = cache / f"bit_recall-{encoder.model_id.replace('/', '_')}.npz"
    if path.exists():
        data = np.load(path)
        return data["rows"], data["queries"], encoder.model_id
    rows, questions = texts_and_questions()
    print(f"[bit_recall] encoding {len(rows):,} rows and {len(questions):,} questions with {encoder.model_id}")
    t0 = time.perf_counter()
    row_vectors = np.concatenate(
        [encoder.encode(rows[i : i + 256], role="query") for i in range(0, len(rows), 256)]
    ).astype(np.float32)
    query_vectors = encoder.encode(questions, role="query").astype(np.float32)
    print(f"[bit_recall] encoded in {time.perf_counter() - t0:.0f} s")
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, rows=row_vectors, queries=query_vectors)
    return row_vectors, query_vectors, encoder.model_id


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=5, help="the seeds' k (query/retrieve/graph: 5 names, 5 facts)")
    ap.add_argument("--oversample", default="2,4,8,16")
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "cache")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows, queries, model_id = encoded(args.cache)
    dim = rows.shape[1]
    with tempfile.TemporaryDirectory() as tmp:
        conn = db.connect(Path(tmp) / "bits.sqlite")
        try:
            conn.execute(f"CREATE VIRTUAL TABLE floats USING vec0(embedding float[{dim}] distance_metric=cosine)")
            vectors.create_bit_table(conn, "bits", dim)
            with conn:
                conn.executemany(
                    "INSERT INTO floats(rowid, embedding) VALUES (?, ?)",
                    [(i + 1, vectors.float32_blob(v)) for i, v in enumerate(rows)],
                )
            vectors.fill_bit_table(conn, "bits", "floats")
            exact, exact_ms = [], []
            for q in queries:
                t0 = time.perf_counter()
                exact.append({i for i, _ in vectors.knn(conn, "floats", q, args.k)})
                exact_ms.append((time.perf_counter() - t0) * 1000)
            table = []
            for over in (int(o) for o in args.oversample.split(",")):
                found, ms = [], []
                for q, truth in zip(queries, exact, strict=True):
                    t0 = time.perf_counter()
                    got = vectors.knn_binary_rescore(
                        conn, bit_table="bits", float_table="floats", query=q, k=args.k, oversample=over
                    )
                    ms.append((time.perf_counter() - t0) * 1000)
                    found.append(len(truth & {i for i, _ in got}) / len(truth))
                full = sum(1 for f in found if f == 1.0) / len(found)
                table.append((over, float(np.mean(found)), full, statistics.median(ms)))
                print(f"[bit_recall] oversample {over}: recall@{args.k} {table[-1][1]:.3f}, all {args.k} found"
                      f" {full:.3f}, median {table[-1][3]:.1f} ms", flush=True)  # fmt: skip
        finally:
            db.close(conn)
    print(f"[bit_recall] exact scan median {statistics.median(exact_ms):.1f} ms over {len(rows):,} rows")
    if args.out:
        body = [
            BEGIN,
            "### The sign-bit pre-filter on real vectors",
            "",
            f"_`.venv/bin/python build/bench/bench_bit_recall.py --out docs/BENCHMARKS.md` on {dt.date.today()};"
            f" {cpu_summary()}. Rows: {len(rows):,} distinct titles and sentences of the HotpotQA and 2Wiki dev-500"
            f" corpora, encoded by `{model_id}` ({dim}-d, in the query role, as the graph's names are; its facts"
            " are encoded as passages); queries:"
            f" their {len(queries):,} questions. Recall@{args.k}: the share of the exact scan's top {args.k} the"
            f" pre-filter returns (hamming KNN for k × oversample, then cosine). The product uses oversample"
            f" {index.BIT_OVERSAMPLE} above {index.BIT_SCAN_MIN_ROWS:,} rows._",
            "",
            f"| oversample | candidates | recall@{args.k} | queries with all {args.k} found | median ms |",
            "|---|---|---|---|---|",
            *(f"| {o} | {o * args.k} | {r:.3f} | {f:.3f} | {m:.1f} |" for o, r, f, m in table),
            f"| exact scan | all {len(rows):,} | 1.000 | 1.000 | {statistics.median(exact_ms):.1f} |",
            END,
        ]
        write_section(args.out, BEGIN, END, "\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
