"""Graph retrieval's speed on a 100k-chunk KB (the goal: "a 100k-chunk KB answers a graph query in ≤ 200 ms").

    .venv/bin/python build/bench/bench_graph.py [--chunks 100000] [--queries 20] [--dim 768] [--out docs/BENCHMARKS.md]

A synthetic KB file (no model): ``--chunks`` chunks in 100 documents, each chunk linked to 8 entities drawn from a
vocabulary of 1.5 × chunks names with a Zipf-like skew (a few names in many chunks, most in few), 5 triples per
chunk between its entities, and a synonym edge for 2 % of the entities. It measures, with the product's code:
reading the edges from SQLite and building the sparse matrix (what the first graph query of a process pays, cached
after that), and then each query: seeds from 3 entities named in the question plus 10 dense passage seeds, the
personalized PageRank and the top 50 chunks (``query.retrieve.graph.graph_ranking`` without the encoder). With ``--dim``
(768 is EmbeddingGemma's), every entity and triple also gets a random unit vector of that size, and each query a random
question vector: the query then pays what a real one pays for its vector seeds, the KNN over the entity names and
over the triples (fact seeds), both exact float32 scans in sqlite-vec.

Section written between markers in the output file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
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

from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.query.retrieve import graph as graph_module  # noqa: E402
from pikelocal.store.index import BIT_OVERSAMPLE, BIT_SCAN_MIN_ROWS  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

MARKER = "<!-- bench_graph{}:{} -->"  # with --dim, a section of its own: "bench_graph_vectors"
DIM = 8  # without --dim the vectors are not read (no question vector): the smallest vec0 table


def unit_rows(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def add_vectors(store: Store, table: str, n: int, rng: np.random.Generator) -> None:
    """Random unit vectors for ids 1..n of ``table`` ('entity' or 'triple'), in batches."""
    for start in range(1, n + 1, 20_000):
        ids = list(range(start, min(n, start + 19_999) + 1))
        store.index.put_vectors(table, ids, unit_rows(rng, len(ids), store.dim))  # type: ignore[arg-type]


def make_kb(path: Path, n_chunks: int, rng: np.random.Generator, dim: int) -> tuple[int, int, int]:
    """The synthetic KB; (entities, mentions, triples)."""
    n_entities = int(1.5 * n_chunks)
    with Store.open(path, encoder_id="synthetic", dim=dim) as store, store.transaction():
        conn = store.db
        per_doc = n_chunks // 100
        for d in range(100):
            conn.execute(
                "INSERT INTO documents(id, path, sha256, title, stage) VALUES (?, ?, ?, ?, 'ready')",
                (d + 1, f"/synthetic/{d}.txt", f"{d:064x}", f"doc {d}"),
            )
            conn.executemany(
                "INSERT INTO chunks(id, doc_id, ord, char_start, char_end, text) VALUES (?, ?, ?, 0, 1, 'x')",
                [(d * per_doc + i + 1, d + 1, i) for i in range(per_doc)],
            )
        conn.executemany(
            "INSERT INTO entities(id, name, key, linked) VALUES (?, ?, ?, 1)",
            [(e + 1, f"entity {e}", f"entity{e}") for e in range(n_entities)],
        )
        weights = 1.0 / np.arange(1, n_entities + 1) ** 0.8
        weights /= weights.sum()
        mentions: set[tuple[int, int]] = set()
        triples = []
        for c in range(1, 100 * per_doc + 1):
            ents = rng.choice(n_entities, size=8, replace=False, p=weights) + 1
            mentions.update((c, int(e)) for e in ents)
            for _ in range(5):
                a, b = rng.choice(ents, size=2, replace=False)
                triples.append((c, int(a), "relates to", int(b)))
        conn.executemany("INSERT INTO chunk_entities(chunk_id, entity_id) VALUES (?, ?)", sorted(mentions))
        conn.executemany("INSERT INTO triples(chunk_id, subject, relation, object) VALUES (?, ?, ?, ?)", triples)
        syn = rng.choice(n_entities, size=(n_entities // 50, 2)) + 1
        conn.executemany(
            "INSERT OR IGNORE INTO entity_synonyms(a, b, similarity) VALUES (?, ?, 0.92)",
            [(int(min(a, b)), int(max(a, b))) for a, b in syn if a != b],
        )
        conn.execute("INSERT INTO kb_meta(key, value) VALUES ('graph_version', '1')")
    if dim != DIM:
        with Store.open_existing(path, readonly=False) as store:
            add_vectors(store, "entity", n_entities, rng)
            add_vectors(store, "triple", len(triples), rng)
    return n_entities, len(mentions), len(triples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--kb", type=Path, help="keep the synthetic KB here and reuse it when present")
    ap.add_argument("--dim", type=int, default=DIM, help="vectors for entities and triples of this size (e.g. 768)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        kb = args.kb or Path(tmp) / "graph.kb"
        if kb.exists():
            with Store.open_existing(kb) as store:
                counts = store.graph.counts()
                n_entities, n_triples = counts["entities"], counts["triples"]
                n_mentions = int(store.db.rows("SELECT count(*) FROM chunk_entities")[0][0])
            rng.random(1)  # (the queries below draw from the same generator either way)
        else:
            t0 = time.perf_counter()
            n_entities, n_mentions, n_triples = make_kb(kb, args.chunks, rng, args.dim)
            made = time.perf_counter() - t0
            print(f"[graph] KB: {args.chunks:,} chunks, {n_entities:,} entities, {n_mentions:,} links, {n_triples:,}"
                  f" triples in {made:.0f} s", flush=True)  # fmt: skip
        with Store.open_existing(kb) as store:
            dim = store.dim
            t0 = time.perf_counter()
            edges = store.graph.edges()
            read = time.perf_counter() - t0
            t0 = time.perf_counter()
            graph = graph_module.load_graph(store)
            built = time.perf_counter() - t0  # edges read again, plus the matrix
            nnz = graph.adjacency.nnz
            chunk_ids = [int(c) for c in edges.chunk_ids]
            times = []
            for q in range(args.queries):
                names = " ".join(f"entity {int(e)}" for e in rng.integers(0, n_entities, size=3))
                dense = [(chunk_ids[int(i)], 0.5) for i in rng.integers(0, len(chunk_ids), size=10)]
                vector = unit_rows(rng, 1, dim)[0] if dim != DIM else None
                t0 = time.perf_counter()
                top = graph_module.graph_ranking(store, names, vector, 50, dense_hits=dense)
                times.append(time.perf_counter() - t0)
                assert top, f"query {q} found nothing"
    median, worst = statistics.median(times), max(times)
    print(f"[graph] edges read {read:.2f} s, matrix {built:.2f} s ({nnz:,} non-zeros); query median"
          f" {median * 1000:.0f} ms, max {worst * 1000:.0f} ms", flush=True)  # fmt: skip
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = [
        f"### Graph retrieval speed{' with vector seeds' if dim != DIM else ''}",
        "",
        f"_`.venv/bin/python build/bench/bench_graph.py --chunks {args.chunks} --queries {args.queries}"
        f"{f' --dim {dim}' if dim != DIM else ''}` on {when};"
        f" {cpu_summary()}; Python {platform.python_version()}. A synthetic KB file (no model): 8 entities per chunk"
        " from a Zipf-skewed vocabulary of 1.5 names per chunk, 5 triples per chunk, synonyms for 2 % of the"
        " entities. A query: 3 entities named in it and 10 dense passage seeds"
        + (
            f", and a {dim}-d question vector: KNN over the entity names' and the triples' vectors (random"
            f" unit vectors; the {graph_module.ENTITY_SEEDS} nearest names, the {graph_module.FACT_SEEDS} nearest"
            f" facts), through their sign bits above {BIT_SCAN_MIN_ROWS:,} rows (hamming KNN for k ×"
            f" {BIT_OVERSAMPLE} candidates, re-scored by cosine; schema 10)"
            if dim != DIM
            else " (no question vector, so no KNN over the entities' or triples' vectors)"
        )
        + "; personalized PageRank (damping 0.5, scipy.sparse), the top 50 chunks._",
        "",
        "| measure | value |",
        "|---|---|",
        f"| chunks / entities / chunk–entity links / triples | {args.chunks:,} / {n_entities:,} / {n_mentions:,} /"
        f" {n_triples:,} |",
        f"| matrix non-zeros | {nnz:,} |",
        f"| reading the edges from SQLite | {read:.2f} s |",
        f"| first query of a process: edges + matrix (then cached until the graph changes) | {built:.2f} s |",
        f"| each query after that, median / max of {args.queries} | {median * 1000:.0f} / {worst * 1000:.0f} ms |",
        "",
    ]
    begin, end = (MARKER.format("_vectors" if dim != DIM else "", edge) for edge in ("begin", "end"))
    write_section(args.out, begin, end, "\n".join([begin, *body, end]))
    print(f"[graph] section written to {args.out}")


if __name__ == "__main__":
    main()
