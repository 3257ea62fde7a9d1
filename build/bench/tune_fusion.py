"""Tune hybrid search's fusion on the dev halves of our retrieval sets; report on the held-out halves.

    .venv/bin/python build/bench/tune_fusion.py [--sets lawbench,2wiki,...] [--kb-dir DIR] [--out docs/BENCHMARKS.md]

1. **Rankings, once per set.** Each set's KB (``DIR/<set>.kb``, built by ``pikelocal eval retrieval … --kb`` or by
   this script, resumably) is asked every query in every source the KB has (bm25, dense, late; questions when it
   is enriched), ``--depth`` ids deep with their scores. They are cached in ``DIR/<set>.rankings.json``, so every
   fusion below is scored on the same lists without encoding a query again.
2. **Fusions.** Weighted reciprocal rank fusion (the product's ``reciprocal_rank_fusion``) and score fusion with
   min-max or z-score normalisation (``score_fusion``), each over a grid of BM25 and late weights (dense 1), on
   the first ``candidates`` ids of each list, as ``search`` fuses them.
3. **Choice.** Queries are split in two by a hash of their id. A configuration's margin on a set is its nDCG@10 and
   R@5 less those of the set's best single source (the best one on each measure); the chosen configuration has
   the largest smallest margin over the dev halves of all sets (ties: the largest mean). It is then reported on the
   test halves and on all queries. A fusion that "never loses" has margins ≥ 0 everywhere.

Section written between markers in the output file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.config import Settings, load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.base import Encoder  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.datasets import EvalQuery  # noqa: E402
from pikelocal.eval.datasets.tender import load_tender_questions  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, chunk_page_keys, score_ranking  # noqa: E402
from pikelocal.eval.runner import OpenedSet, opened_set  # noqa: E402
from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.kb.options import ingest_options  # noqa: E402
from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion, score_fusion  # noqa: E402
from pikelocal.query.retrieve.search import rankings  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- tune_fusion:begin -->", "<!-- tune_fusion:end -->"
DATA = ROOT.parent / "shared" / "data"
KS = (5, 10)


@dataclass(frozen=True)
class SetSpec:
    name: str
    data: Path
    which: str | None = None


SETS = {
    "lawbench": SetSpec("lawbench", DATA / "legal_zh"),
    "2wiki": SetSpec("2wiki", DATA / "multihop", "2wiki"),
    "hotpotqa": SetSpec("hotpotqa", DATA / "multihop", "hotpotqa"),
    "vaswani": SetSpec("vaswani", DATA / "retrieval" / "vaswani_npl"),
    "tender": SetSpec(
        "tender", DATA / "pdfs" / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
    ),  # noqa: E501
}
TENDER_QA = ROOT / "tests" / "data" / "tender_retrieval_qa.jsonl"
BM25_GRID = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0)
LATE_GRID = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0)
METHODS = ("rrf", "minmax", "zscore")
MIX_BETAS = (0.2, 0.35, 0.5)
PRODUCT_SINGLES = tuple(f"single:{s}" for s in ("bm25", "dense", "late", "questions"))  # search's own modes


@dataclass(frozen=True)
class CachedQuery:
    query: EvalQuery
    lists: dict[str, list[tuple[int, float]]]


@dataclass(frozen=True)
class CachedSet:
    name: str
    title: str
    hit_only: bool
    key_of: dict[int, tuple[str, ...]]
    queries: list[CachedQuery]


def sources_in(store_stats: Mapping[str, int]) -> tuple[str, ...]:
    out = ["bm25", "dense"]
    if store_stats.get("late", 0):
        out.append("late")
    if store_stats.get("questions", 0):
        out.append("questions")
    return tuple(out)


def late_settings() -> Settings:
    """The configured settings with late vectors on unless ``PIKELOCAL_INGEST_LATE`` (or a config file) says
    otherwise: these benchmarks measure late vectors against the other rankings, and the product builds none by
    default since 2026-11-26, so a KB they build would have none to measure."""
    return load_settings(environ={"PIKELOCAL_INGEST_LATE": "true", **os.environ})


@contextmanager
def open_set(spec: SetSpec, kb: Path) -> Iterator[OpenedSet]:
    """The set's KB, built first if it is missing or unfinished (with late vectors: :func:`late_settings`). The
    tender: its PDF, scored by page (a chunk counts for every page it spans; one gold page found is a hit)."""
    settings = late_settings()
    if spec.name != "tender":
        with opened_set(settings, spec.data, which=spec.which, kb=kb) as o:
            yield o
        return
    encoder = open_encoder(settings)
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder) as store:
        Ingestor(store, encoder, ingest_options(settings)).ingest_paths([spec.data])
        key_of = chunk_page_keys(store)
        queries = [q.query for q in load_tender_questions(TENDER_QA)]
        title = f"tender PDF page retrieval ({len(queries)} questions of tests/data), {encoder.model_id}"
        yield OpenedSet(store, encoder, queries, key_of, True, title, kb, ())


def build_cache(spec: SetSpec, kb: Path, depth: int) -> CachedSet:
    """Every query's ranking by every source of the KB."""
    with open_set(spec, kb) as opened:
        store = opened.store
        counted = store.counts()
        sources = sources_in({"late": counted["late_vectors"], "questions": counted["question_vectors"]})
        key_of = opened.key_of if opened.key_of is not None else chunk_doc_keys(store)
        cached = []
        started = time.perf_counter()
        mixes = late_header_mixes(store, opened.encoder, depth) if "late" in sources else None
        for n, q in enumerate(opened.queries, start=1):
            lists = rankings(store, opened.encoder, q.text, sources, depth)
            if mixes is not None:
                lists.update(mixes(q.text))
            cached.append(CachedQuery(q, lists))
            if n % 50 == 0:
                took = time.perf_counter() - started
                print(f"[tune_fusion] {spec.name}: {n}/{len(opened.queries)} queries, {took:.0f} s", flush=True)
        return CachedSet(spec.name, opened.title, opened.hit_only, dict(key_of), cached)


def late_header_mixes(
    store: Store, encoder: Encoder, depth: int
) -> Callable[[str], dict[str, list[tuple[int, float]]]]:
    """Late chunking that keeps the document's identity, the cheap variant: each chunk's late vector mixed with
    the early vector of its header alone (title › section path), normalised: v = (1 − β)·late + β·header. Returns
    a function giving, for a query, one ranking per β (brute force over all chunks; named ``late+h<β>``)."""
    ids: list[int] = []
    late: list[NDArray[np.float32]] = []
    headers: list[str] = []
    for d in store.docs.documents():
        for c in store.chunks.chunks_of(d.id):
            v = store.index.vector("late", c.id)
            if v is not None:
                ids.append(c.id)
                late.append(v)
                headers.append(c.header or d.title or "")
    distinct = list(dict.fromkeys(headers))
    print(f"[tune_fusion] encoding {len(distinct):,} distinct chunk headers for the late + header mix", flush=True)
    vectors = dict(zip(distinct, encoder.encode(distinct, role="passage"), strict=True))
    late_m = np.stack(late)
    head_m = np.stack([vectors[h] for h in headers])
    mixed = {}
    for beta in MIX_BETAS:
        m = (1 - beta) * late_m + beta * head_m
        mixed[f"late+h{beta:g}"] = m / np.linalg.norm(m, axis=1, keepdims=True)

    def rank(query: str) -> dict[str, list[tuple[int, float]]]:
        q = encoder.encode([query], role="query")[0]
        out = {}
        for name, m in mixed.items():
            sims = m @ q
            top = np.argsort(-sims)[:depth]
            out[name] = [(ids[i], float(sims[i])) for i in top]
        return out

    return rank


def save(cached: CachedSet, path: Path) -> None:
    payload = {
        "name": cached.name,
        "title": cached.title,
        "hit_only": cached.hit_only,
        "key_of": {str(c): list(k) for c, k in cached.key_of.items()},
        "queries": [
            {"id": c.query.query_id, "text": c.query.text, "relevant": c.query.relevant, "lists": c.lists}
            for c in cached.queries
        ],
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, ensure_ascii=False))
    tmp.replace(path)


def load(path: Path) -> CachedSet:
    raw = json.loads(path.read_text())
    queries = [
        CachedQuery(
            EvalQuery(q["id"], q["text"], {k: int(v) for k, v in q["relevant"].items()}),
            {s: [(int(c), float(v)) for c, v in lst] for s, lst in q["lists"].items()},
        )
        for q in raw["queries"]
    ]
    key_of = {int(c): tuple(k) for c, k in raw["key_of"].items()}
    return CachedSet(raw["name"], raw["title"], bool(raw["hit_only"]), key_of, queries)


@dataclass(frozen=True)
class Config:
    method: str  # rrf | minmax | zscore | single:<source>
    bm25: float = 0.0
    late: float = 0.0
    questions: float = 0.0

    def label(self) -> str:
        if self.method.startswith("single:"):
            return self.method.removeprefix("single:")
        return f"{self.method} {self.bm25:g} / 1 / {self.late:g}" + (
            f" / q {self.questions:g}" if self.questions else ""
        )


def fused_ids(config: Config, lists: Mapping[str, list[tuple[int, float]]], candidates: int) -> list[int]:
    if config.method.startswith("single:"):
        return [c for c, _ in lists.get(config.method.removeprefix("single:"), [])]
    weights = {"bm25": config.bm25, "dense": 1.0, "late": config.late, "questions": config.questions}
    used = {s: lst[:candidates] for s, lst in lists.items() if weights.get(s, 0.0) > 0}
    w = {s: weights[s] for s in used}
    if config.method == "rrf":
        return [c for c, _ in reciprocal_rank_fusion({s: [c for c, _ in lst] for s, lst in used.items()}, weights=w)]
    return [c for c, _ in score_fusion(used, weights=w, norm=config.method)]


@dataclass(frozen=True)
class Scores:
    n: int
    ndcg10: float
    r5: float
    r10: float


def score(cached: CachedSet, queries: Sequence[CachedQuery], config: Config, candidates: int) -> Scores:
    rows = [
        score_ranking(fused_ids(config, q.lists, candidates), q.query, cached.key_of, KS, hit_only=cached.hit_only)
        for q in queries
    ]
    n = len(rows) or 1
    return Scores(
        len(rows),
        sum(r[0] for r in rows) / n,
        sum(r[1][5] for r in rows) / n,
        sum(r[1][10] for r in rows) / n,
    )


def is_dev(query_id: str) -> bool:
    return hashlib.sha1(query_id.encode()).digest()[0] % 2 == 0


def grid(sources: set[str], lates: Sequence[float]) -> list[Config]:
    """Each source alone, and every fusion of the grid. A set without late vectors gets the late weights too: there
    they fuse BM25 and dense alone, as ``search`` does on a KB built with ``ingest.late = false``, so every
    configuration is scored on every set."""
    configs = [Config(f"single:{s}") for s in sorted(sources)]
    for method, b, lt in itertools.product(METHODS, BM25_GRID, lates):
        configs.append(Config(method, b, lt))
    return configs


def margins(per_set: Mapping[str, Mapping[Config, Scores]], config: Config) -> list[float]:
    """Per set: the config's nDCG@10 and R@5, each less the best single source's."""
    out = []
    for results in per_set.values():
        singles = [s for c, s in results.items() if c.method in PRODUCT_SINGLES]
        if config not in results:
            continue
        mine = results[config]
        out.append(mine.ndcg10 - max(s.ndcg10 for s in singles))
        out.append(mine.r5 - max(s.r5 for s in singles))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval")
    ap.add_argument("--depth", type=int, default=100, help="ids kept per source ranking")
    ap.add_argument("--candidates", type=int, default=50, help="ids of each list fused (search.candidates)")
    ap.add_argument("--only-cached", action="store_true", help="skip sets whose rankings are not cached yet")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    started = dt.datetime.now()
    chosen_sets = [SETS[s.strip()] for s in args.sets.split(",") if s.strip()]
    cached_sets: dict[str, CachedSet] = {}
    for spec in chosen_sets:
        cache = args.kb_dir / f"{spec.name}.rankings.json"
        if not cache.exists():
            if args.only_cached:
                continue
            print(f"[tune_fusion] {spec.name}: ranking every query (KB {args.kb_dir / f'{spec.name}.kb'})")
            save(build_cache(spec, args.kb_dir / f"{spec.name}.kb", args.depth), cache)
        cached_sets[spec.name] = load(cache)
    if not cached_sets:
        sys.exit("no set has cached rankings; run without --only-cached")
    halves: dict[str, dict[str, list[CachedQuery]]] = {}
    per_half: dict[str, dict[str, dict[Config, Scores]]] = {"dev": {}, "test": {}, "all": {}}
    configs: set[Config] = set()
    any_late = any("late" in q.lists for cs in cached_sets.values() for q in cs.queries)
    lates = LATE_GRID if any_late else (0.0,)
    for name, cs in cached_sets.items():
        sources = set().union(*(q.lists for q in cs.queries))
        dev = [q for q in cs.queries if is_dev(q.query.query_id)]
        test = [q for q in cs.queries if not is_dev(q.query.query_id)]
        halves[name] = {"dev": dev, "test": test, "all": cs.queries}
        for half, qs in halves[name].items():
            per_half[half][name] = {c: score(cs, qs, c, args.candidates) for c in grid(sources, lates)}
        configs |= set(grid(sources, lates))
    fusions = [c for c in configs if not c.method.startswith("single:")]
    best = max(fusions, key=lambda c: (min(margins(per_half["dev"], c)), sum(margins(per_half["dev"], c))))
    best_per_method = {
        m: max(
            (c for c in fusions if c.method == m),
            key=lambda c: (min(margins(per_half["dev"], c)), sum(margins(per_half["dev"], c))),
        )
        for m in METHODS
    }
    section = report(cached_sets, halves, per_half, best, best_per_method, shipped_fusion(), args, started)
    write_section(args.out, BEGIN, END, BEGIN + "\n" + section + END)
    print(f"[tune_fusion] chosen: {best.label()}; section written to {args.out}")


OLD_DEFAULT = Config("rrf", 0.3, 0.3)  # the shipped fusion before z-score (2026-11-25), kept in the tables


def shipped_fusion() -> Config:
    """The fusion the product ships: config.py's defaults, whatever the environment says."""
    search = load_settings(environ={}).search
    return Config(search.fusion, search.bm25_weight, search.late_weight)


def report(
    cached_sets: Mapping[str, CachedSet],
    halves: Mapping[str, Mapping[str, Sequence[CachedQuery]]],
    per_half: Mapping[str, Mapping[str, Mapping[Config, Scores]]],
    best: Config,
    best_per_method: Mapping[str, Config],
    today: Config,
    args: argparse.Namespace,
    started: dt.datetime,
) -> str:
    lines = [
        "## Fusion that never loses: tuned on dev halves, checked on held-out halves",
        "",
        f"_`.venv/bin/python build/bench/tune_fusion.py --sets {args.sets}`"
        f" on {started:%Y-%m-%d %H:%M}; {cpu_summary()};"
        f" Python {platform.python_version()}. Rankings {args.depth} deep per source, the first {args.candidates}"
        " of each fused. Queries split in two by a hash of their id; the choice is made on the dev halves only._",
        "",
        "Margin = the fusion's nDCG@10 (and R@5) less the best single source's on that set and half; the chosen"
        " configuration has the largest smallest margin over the dev halves of all sets.",
        "",
    ]
    shown = list(dict.fromkeys([today, OLD_DEFAULT, best, *best_per_method.values()]))
    for name, cs in cached_sets.items():
        results_all = per_half["all"][name]
        singles = [c for c in results_all if c.method.startswith("single:")]
        lines += [
            f"**{cs.title}** (dev {len(halves[name]['dev'])} / test {len(halves[name]['test'])} queries)",
            "",
            "| ranking | nDCG@10 test | R@5 test | R@10 test | nDCG@10 all | R@5 all | R@10 all |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in [*sorted(singles, key=lambda c: c.method), *shown]:
            if c not in results_all:
                continue
            t, a = per_half["test"][name][c], results_all[c]
            tag = {today: " (the default)", OLD_DEFAULT: " (the default before 2026-11-25)"}.get(c, "")
            tag += " **(chosen)**" if c == best else ""
            lines.append(
                f"| {c.label()}{tag} | {t.ndcg10:.3f} | {t.r5:.3f} | {t.r10:.3f} | {a.ndcg10:.3f} | {a.r5:.3f} |"
                f" {a.r10:.3f} |"
            )
        lines.append("")
    lines += ["Smallest margin over all sets (nDCG@10 and R@5), per half:", ""]
    lines += ["| fusion | dev | test | all |", "|---|---|---|---|"]
    for c in shown:
        cells = [f"{min(margins(per_half[h], c)):+.3f}" for h in ("dev", "test", "all")]
        lines.append(f"| {c.label()} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
