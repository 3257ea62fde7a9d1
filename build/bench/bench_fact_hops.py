"""Fact hops (``query.retrieve.hops``): what they add to hybrid search on an enriched pooled multi-hop KB, for
each number of hops and least similarity, and what they cost; or, with ``--scale``, their cost on a 100k-chunk KB.

    .venv/bin/python build/bench/bench_fact_hops.py --kb KB --set 2wiki [--limit 50] [--seed 0] [--out FILE]
    .venv/bin/python build/bench/bench_fact_hops.py --scale ~/.cache/pikelocal-eval/graph100k-768.kb [--queries 20]

KB: a pooled evaluation KB enriched with entities (``build/bench/graph_pool.sh``; env as when it was built, e.g.
``PIKELOCAL_INGEST_LATE=false PIKELOCAL_SEARCH_LATE_WEIGHT=0``). Per question: dense, and hybrid as ``pikelocal eval
retrieval`` ranks it (the settings' fusion, 30 candidates a list) without hops, then with ``search.hops`` = 1, 2, 3
at each least similarity, scored as ``eval retrieval`` scores (nDCG@10, R@2/5/10 over paragraphs). Timed: each
question's ``fact_hops`` call at the settings' values (no encoder call: enrichment stored the names' vectors), beside
whatever else the machine runs: read the times as an upper bound when the note says it was busy.

``--scale KB``: the synthetic KB of ``build/bench/bench_graph.py --dim 768`` (100,000 chunks, 150,000 entities, 500,000
triples with random unit vectors); random unit vectors are added for its chunks when they have none (once; about
300 MB). Each query: a random question vector, ``fact_hops`` at the settings' values (no name is near another and
no chunk near a name, so every end of the 5 nearest triples is tried: the worst case). No LLM call either way.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from bench_graph import unit_rows  # noqa: E402
from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.eval.metrics import mean  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, ranked_by_mode, score_ranking  # noqa: E402
from pikelocal.eval.runner import opened_set  # noqa: E402
from pikelocal.query.retrieve.hops import HOP_AFTER, HOP_FACTS, add_hops, fact_hops  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

MARKER = "<!-- bench_fact_hops:{}:{} -->"
KS = (2, 5, 10)
DEPTH = 30  # as `eval retrieval --k 2,5,10` ranks: three times its depth of 10
HOPS = (1, 2, 3)
SIMILARITIES = (0.4, 0.45, 0.5, 0.55, 0.6)

Scores = list[tuple[float, dict[int, float], float]]


def row(name: str, rows: Scores) -> str:
    cells = [f"{mean([r[0] for r in rows]):.3f}", *(f"{mean([r[1][k] for r in rows]):.3f}" for k in KS)]
    return f"| {name} | " + " | ".join(cells) + " |"


def pooled(args: argparse.Namespace) -> list[str]:
    settings = load_settings()
    s = settings.search
    scores: dict[str, Scores] = {}
    times: list[float] = []
    hopped = 0
    with opened_set(
        settings, args.data, which=args.which, kb=args.kb, limit=args.limit, seed=args.seed, pool=True
    ) as opened:
        store, encoder = opened.store, opened.encoder
        key_of = chunk_doc_keys(store)
        if store.graph.counts()["triples_with_vectors"] == 0:
            raise SystemExit(f"{args.kb}: no fact vectors (enrich it with enrich.entities = true)")
        for q in opened.queries:
            ranked = ranked_by_mode(store, encoder, q.text, ["dense", "hybrid"], DEPTH, s.weights(), fusion=s.fusion)
            scores.setdefault("dense", []).append(score_ranking(ranked["dense"], q, key_of, KS))
            base = ranked["hybrid"]
            scores.setdefault("hybrid without hops (search.hops = 0)", []).append(score_ranking(base, q, key_of, KS))
            vector = encoder.encode([q.text], role="query")[0]
            scored = [(c, 0.0) for c in base]
            t0 = time.perf_counter()
            _, found = add_hops(store, encoder, q.text, vector, scored, s.hops, s.hop_similarity)
            times.append(time.perf_counter() - t0)
            hopped += bool(found)
            for n, least in itertools.product(HOPS, SIMILARITIES):
                merged = [c for c, _ in add_hops(store, encoder, q.text, vector, scored, n, least)[0]][:DEPTH]
                default = " (the default)" if (n, least) == (s.hops, s.hop_similarity) else ""
                name = f"hybrid + {n} hop{'s' if n > 1 else ''}, least similarity {least}{default}"
                scores.setdefault(name, []).append(score_ranking(merged, q, key_of, KS))
        title, count = opened.title, len(opened.queries)
    ms = sorted(t * 1000 for t in times)
    return [
        f"### Fact hops: {args.which}-{args.limit}, seed {args.seed}",
        "",
        f"_`.venv/bin/python build/bench/bench_fact_hops.py --kb {args.kb.name} --set {args.which} --limit {args.limit}"
        f" --seed {args.seed}` on {dt.datetime.now():%Y-%m-%d %H:%M}; {cpu_summary()}; Python"
        f" {platform.python_version()}. {title}; {count} questions. Hybrid: {s.fusion} fusion of the settings'"
        f" weights, {DEPTH} candidates a list (as `eval retrieval`); hops after its first {HOP_AFTER} hits. No LLM"
        " call._",
        "",
        "| ranking | nDCG@10 | R@2 | R@5 | R@10 |",
        "|---|---|---|---|---|",
        *(row(name, rows) for name, rows in scores.items()),
        "",
        f"At the defaults ({s.hops} hops, least similarity {s.hop_similarity}): {hopped} of {count} questions got a"
        f" hop; `fact_hops` took {statistics.median(ms):.0f} ms median, {ms[int(0.9 * (len(ms) - 1))]:.0f} ms at"
        f" the 90th percentile, {ms[-1]:.0f} ms at most.",
    ]


def scale(args: argparse.Namespace) -> list[str]:
    s = load_settings().search
    rng = np.random.default_rng(1)
    with Store.open_existing(args.scale, readonly=False) as store:
        n_chunks = int(store.db.rows("SELECT count(*) FROM chunks")[0][0])
        if store.index.vector("chunk", 1) is None:
            t0 = time.perf_counter()
            for start in range(1, n_chunks + 1, 20_000):
                ids = list(range(start, min(n_chunks, start + 19_999) + 1))
                store.index.put_vectors("chunk", ids, unit_rows(rng, len(ids), store.dim))
            print(f"[hops] chunk vectors added in {time.perf_counter() - t0:.0f} s", flush=True)
        counts = store.graph.counts()
        encoder = HashEncoder(dim=store.dim)
        times, tried = [], []
        for _ in range(args.queries):
            vector = unit_rows(rng, 1, store.dim)[0]
            t0 = time.perf_counter()
            found = fact_hops(store, encoder, "a question", vector, s.hops, min_similarity=s.hop_similarity)
            times.append(time.perf_counter() - t0)
            ends = {e for f in store.graph.facts([t for t, _ in store.index.knn("triple", vector, HOP_FACTS)]).values()
                    for e in (f.subject_id, f.object_id)}  # fmt: skip
            tried.append(len(ends))
            assert not found, "a random question vector found a hop"
    ms = sorted(t * 1000 for t in times)
    return [
        "### Fact hops on a 100k-chunk KB",
        "",
        f"_`.venv/bin/python build/bench/bench_fact_hops.py --scale {args.scale.name} --queries {args.queries}` on"
        f" {dt.datetime.now():%Y-%m-%d %H:%M}; {cpu_summary()}; Python {platform.python_version()}. The synthetic"
        f" KB of `build/bench/bench_graph.py --dim 768`: {n_chunks:,} chunks, {counts['entities']:,} entities,"
        f" {counts['triples']:,} triples, random unit vectors. Each query: a random question vector; no hop is"
        " found, so every end of the 5 nearest triples is tried (the worst case)._",
        "",
        "| measure | value |",
        "|---|---|",
        f"| ends tried a query, median | {statistics.median(tried):.0f} |",
        f"| `fact_hops`, median / max of {args.queries} | {statistics.median(ms):.0f} / {ms[-1]:.0f} ms |",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb", type=Path)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "multihop")
    ap.add_argument("--set", dest="which", default="2wiki")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=Path, help="the synthetic 100k-chunk KB of build/bench/bench_graph.py --dim 768")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    if (args.kb is None) == (args.scale is None):
        ap.error("give one of --kb and --scale")
    path = args.kb or args.scale
    if not path.exists():
        print(f"{path}: no such KB", file=sys.stderr)
        return 1
    body = scale(args) if args.scale else pooled(args)
    tag = "scale" if args.scale else f"{args.which}-{args.limit}-seed{args.seed}"
    begin, end = (MARKER.format(tag, part) for part in ("begin", "end"))
    write_section(args.out, begin, end, "\n".join([begin, *body, end]))
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
