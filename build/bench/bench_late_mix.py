"""Late vectors mixed with their header's early vector: the mixing weight β measured on every set.

    .venv/bin/python build/bench/bench_late_mix.py [--sets tender,lawbench] [--pool 2wiki:0 ...] [--kb-dir DIR]
        [--pool-dir DIR] [--out docs/BENCHMARKS.md]

``ingest.late_context = "mix"`` stores v = (1 − β)·late + β·early(title › section path), normalised
(``pikelocal/ingest/enrich/embed.py:mixed_with_headers``). This script takes KBs whose late vectors are plain (made with
``late_context = "off"``), mixes them in memory at each β of ``BETAS``
(``build/bench/tune_fusion.py:late_header_mixes``, the same formula; it reads a chunk's whole header, so the KB must
be as ingested, where a header is one line: title › section path) and ranks every question by brute-force cosine:
- ``--sets``: the KBs ``build/bench/tune_fusion.py`` builds (``DIR/<set>.kb``; the tender scored by page, LawBench by
  article);
- ``--pool which:seed``: a pooled 50-question multi-hop KB, built here when missing (``POOLDIR/<which><seed>.kb``,
  late vectors plain), scored by document.
Reported per β: late alone (nDCG@10, R@1, R@5, R@10) and hybrid at the configured fixed weights with that late
ranking in place of the plain one (the product's fusion over BM25, dense and late); and hybrid without late (BM25
and dense at the same weights), which is what the late vectors' ingest time buys against. Section written between
markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

BUILD = Path(__file__).resolve().parent  # build/bench: sections.py, tune_fusion.py
ROOT = BUILD.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BUILD))

import tune_fusion  # noqa: E402
from sections import write_section  # noqa: E402
from tune_fusion import DATA, SETS, open_set  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, score_ranking  # noqa: E402
from pikelocal.eval.runner import OpenedSet, opened_set  # noqa: E402
from pikelocal.ingest.enrich.embed import HEADER_MIX  # noqa: E402
from pikelocal.query.retrieve.search import fuse, rankings  # noqa: E402

BEGIN, END = "<!-- bench_late_mix:begin -->", "<!-- bench_late_mix:end -->"
BETAS = (0.2, 0.35, 0.5)
KS = (1, 5, 10)
DEPTH = 100


@contextmanager
def opened(name: str, kb_dir: Path, pool_dir: Path) -> Iterator[OpenedSet]:
    settings = load_settings()
    plain = replace(settings, ingest=replace(settings.ingest, late=True, late_context="off"))
    if ":" in name:
        which, seed = name.split(":", 1)
        kb = pool_dir / f"{which}{seed}.kb"
        with opened_set(plain, DATA / "multihop", which=which, kb=kb, limit=50, seed=int(seed), pool=True) as o:
            yield o
    else:
        with open_set(SETS[name], kb_dir / f"{name}.kb") as o:
            yield o


def run_set(name: str, kb_dir: Path, pool_dir: Path) -> str:
    search = load_settings().search
    weights = {"bm25": search.bm25_weight, "dense": search.dense_weight, "late": search.late_weight}
    tune_fusion.MIX_BETAS = BETAS
    with opened(name, kb_dir, pool_dir) as o:
        if o.store.meta().get("late_context", "off") != "off":
            sys.exit(f"{o.kb}: its late vectors are not plain (late_context = {o.store.meta()['late_context']})")
        if any("\n" in c.header for d in o.store.docs.documents() for c in o.store.chunks.chunks_of(d.id)):
            # tune_fusion's mix reads a chunk's whole header, the product's (mixed_with_headers) its first line
            sys.exit(f"{o.kb}: some chunk headers have more than one line (enriched?); use a KB as ingested")
        mixes = tune_fusion.late_header_mixes(o.store, o.encoder, DEPTH)
        key_of = o.key_of if o.key_of is not None else chunk_doc_keys(o.store)
        lates = ["late", *(f"late+h{b:g}" for b in BETAS)]
        sums: dict[str, list[float]] = {}
        for q in o.queries:
            lists = rankings(o.store, o.encoder, q.text, ("bm25", "dense", "late"), DEPTH)
            lists.update(mixes(q.text))
            ranked = {s: [c for c, _ in lists[s]] for s in ("dense", *lates)}
            # what the late vectors add to hybrid at all: BM25 and dense alone, at the same weights
            alone = fuse({"bm25": lists["bm25"], "dense": lists["dense"]}, weights, search.candidates, search.fusion)
            ranked["hybrid without late"] = [c for c, _ in alone]
            for s in lates:
                fused = fuse({"bm25": lists["bm25"], "dense": lists["dense"], "late": lists[s]}, weights,
                             search.candidates, search.fusion)  # fmt: skip
                ranked[f"hybrid with {s}"] = [c for c, _ in fused]
            for s, ids in ranked.items():
                ndcg, recalls, _mrr = score_ranking(ids, q, key_of, KS, hit_only=o.hit_only)
                row = sums.setdefault(s, [0.0, 0.0, 0.0, 0.0])
                row[0] += ndcg
                row[1] += recalls[1]
                row[2] += recalls[5]
                row[3] += recalls[10]
        n = max(1, len(o.queries))
        lines = [
            f"**{o.title}**",
            "",
            "| ranking | β | nDCG@10 | R@1 | R@5 | R@10 |",
            "|---|---|---|---|---|---|",
        ]
        for s, (ndcg, r1, r5, r10) in sums.items():
            beta = s.rsplit("+h", 1)[1] if "+h" in s else ("—" if s in ("dense", "hybrid without late") else "0")
            label = s.split("+h", 1)[0] + (" mixed" if "+h" in s else "")
            lines.append(f"| {label} | {beta} | {ndcg / n:.3f} | {r1 / n:.3f} | {r5 / n:.3f} | {r10 / n:.3f} |")
        return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default="tender,lawbench", help=f"of {', '.join(SETS)}")
    ap.add_argument("--pool", action="append", default=[], help="which:seed, a pooled 50-question multi-hop set")
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval")
    ap.add_argument("--pool-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "latemix")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    started = dt.datetime.now()
    args.pool_dir.mkdir(parents=True, exist_ok=True)
    names = [s for s in args.sets.split(",") if s] + list(args.pool)
    parts = []
    for name in names:
        parts.append(run_set(name, args.kb_dir, args.pool_dir))
        print(parts[-1], flush=True)
    s = load_settings().search
    section = "\n\n".join(
        [
            BEGIN + "\n## Late vectors mixed with their header's: β on every set",
            f"_`.venv/bin/python build/bench/bench_late_mix.py {' '.join(sys.argv[1:])}` on {started:%Y-%m-%d %H:%M};"
            f" {cpu_summary()}; Python {platform.python_version()}. Plain late vectors mixed in memory at each β;"
            f" brute-force cosine, {DEPTH} deep; hybrid = {s.fusion} at BM25 {s.bm25_weight:g} / dense"
            f" {s.dense_weight:g} / late {s.late_weight:g} with that late ranking. The product's β is"
            f" {HEADER_MIX:g}._",
            *parts,
        ]
    )
    write_section(args.out, BEGIN, END, section + "\n" + END)
    print(f"[late_mix] written to {args.out}", flush=True)


if __name__ == "__main__":
    main()
