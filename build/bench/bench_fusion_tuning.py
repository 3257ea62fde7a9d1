"""Hybrid's weights tuned per KB on its own atomic questions, against the fixed weights and the best single ranking,
on every retrieval set's real questions (the goal: a fusion that never loses).

    .venv/bin/python build/bench/bench_fusion_tuning.py [--sets tender,lawbench,2wiki,hotpotqa,vaswani] [--chunks 100]
        [--chunks-for vaswani=250] [--pool 2wiki:0:KB ...] [--kb-dir DIR] [--out docs/BENCHMARKS.md]

Per set:
1. **The real questions' rankings** (BM25, dense, late), from ``build/bench/tune_fusion.py``'s cache
   ``DIR/<set>.rankings.json`` (built by it when missing). A pooled multi-hop KB (``--pool which:seed:KB``, one
   that ``pikelocal eval retrieval --pool --limit 50 --seed S --kb KB`` built and enriched) is ranked here, cached
   beside it.
2. **Atomic questions for a sample.** A KB that is not enriched is copied to ``DIR/<set>.tuned.kb`` and the LLM
   writes the questions of ``--chunks`` of its chunks, drawn at random (seed 0). Summaries, chunk contexts and
   entities stay off, so no chunk's text or vectors change and the cached rankings stay the copy's. Resumable: a
   chunk asked once is not asked again. An enriched pooled KB is used as it is.
3. **The product's tuning** (``pikelocal.query.retrieve.fusion_tuning.tune_fusion``, as ``enrich`` runs it) on that KB.
4. **The real questions**, none of which the tuning saw, scored at each single ranking, at the configured fixed
   weights and at the tuned ones. Margin = the fusion's nDCG@10 and R@5, each less the best single ranking's; the
   smaller of the two. "Never loses" is a margin >= 0.

Section written between markers in the output file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import platform
import random
import shutil
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402
from tune_fusion import SETS, CachedQuery, CachedSet, build_cache, load, save  # noqa: E402

from pikelocal.config import Settings, load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.search import FusionTuning  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, score_ranking  # noqa: E402
from pikelocal.eval.runner import opened_set  # noqa: E402
from pikelocal.ingest.enrich.enrich import Enricher  # noqa: E402
from pikelocal.kb.options import enrich_options  # noqa: E402
from pikelocal.llm.factory import open_llm  # noqa: E402
from pikelocal.query.retrieve.fusion_tuning import STANDARD_ERRORS, grid_scores, tuned_weights, tuning_from  # noqa: E402
from pikelocal.query.retrieve.search import fuse, rankings  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_fusion_tuning:begin -->", "<!-- bench_fusion_tuning:end -->"
DATA = ROOT.parent / "shared" / "data"
SINGLES = ("bm25", "dense", "late")
DEPTH = 100
SETTINGS = load_settings()
CANDIDATES = SETTINGS.search.candidates
FUSION = SETTINGS.search.fusion


@dataclass(frozen=True)
class Scored:
    ndcg10: float
    r5: float
    r10: float
    per_query: tuple[tuple[float, float], ...] = ()  # (nDCG@10, R@5) of each question, in the set's order


@dataclass(frozen=True)
class Row:
    name: str
    title: str
    queries: int
    sampled: str  # how the questions came: "100 chunks sampled" or "enriched"
    tuning: FusionTuning | None
    one_se: FusionTuning | None  # the same tuning at one standard error instead of STANDARD_ERRORS
    singles: dict[str, Scored]
    configured: Scored
    tuned: Scored
    tuned_one_se: Scored

    def margin(self, s: Scored) -> float:
        return min(
            s.ndcg10 - max(x.ndcg10 for x in self.singles.values()), s.r5 - max(x.r5 for x in self.singles.values())
        )

    def margin_error(self, s: Scored) -> float:
        """The standard error of the margin: that of the per-question difference, on the binding measure, between
        ``s`` and the best single ranking on that measure (paired, as the two rank the same questions)."""
        by_ndcg = s.ndcg10 - max(x.ndcg10 for x in self.singles.values())
        m = 0 if by_ndcg <= s.r5 - max(x.r5 for x in self.singles.values()) else 1
        best = max(self.singles.values(), key=lambda x: (x.ndcg10, x.r5)[m])
        diffs = [a[m] - b[m] for a, b in zip(s.per_query, best.per_query, strict=True)]
        return statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else 0.0


def scored(
    cs: CachedSet, queries: Sequence[CachedQuery], weights: Mapping[str, float] | None, single: str = ""
) -> Scored:
    """Mean nDCG@10, R@5, R@10 of a single ranking, or of the product's fusion at ``weights``."""
    rows = []
    for q in queries:
        if single:
            ids = [c for c, _ in q.lists.get(single, [])]
        else:
            lists = {s: q.lists[s] for s in SINGLES if s in q.lists}
            ids = [c for c, _ in fuse(lists, weights, CANDIDATES, FUSION)]
        rows.append(score_ranking(ids, q.query, cs.key_of, (5, 10), hit_only=cs.hit_only))
    n = len(rows) or 1
    return Scored(
        sum(r[0] for r in rows) / n,
        sum(r[1][5] for r in rows) / n,
        sum(r[1][10] for r in rows) / n,
        tuple((r[0], r[1][5]) for r in rows),
    )


def enrich_sample(kb: Path, chunks: int, settings: Settings) -> None:
    """Atomic questions for ``chunks`` random chunks of ``kb`` (seed 0), nothing else changed; resumable."""
    quiet = replace(settings.enrich, summaries=False, context=False, entities=False, trees=False)
    settings = replace(settings, enrich=quiet)
    encoder = open_encoder(settings)
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder) as store:
        every = [c.id for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
        sample = tuple(random.Random(0).sample(sorted(every), min(chunks, len(every))))
        options = replace(enrich_options(settings, None, None), chunk_ids=sample)
        started = time.perf_counter()
        report = Enricher(store, encoder, open_llm(settings), options).run()
        took = time.perf_counter() - started
        print(
            f"[bench_fusion_tuning] {kb.name}: {report.atomized} chunks asked now ({report.questions} questions,"
            f" {len(report.failures)} failed) in {took:.0f} s; {store.chunks.question_count()} questions in all",
            flush=True,
        )


def pool_cache(which: str, seed: int, kb: Path, cache: Path, settings: Settings) -> CachedSet:
    """The 50 pooled questions' rankings on an enriched pooled KB (cached)."""
    if cache.exists():
        return load(cache)
    with opened_set(settings, DATA / "multihop", which=which, kb=kb, limit=50, seed=seed, pool=True) as o:
        sources = ("bm25", "dense", "late") if o.store.index.has_vectors("late") else ("bm25", "dense")
        cached = [CachedQuery(q, rankings(o.store, o.encoder, q.text, sources, DEPTH)) for q in o.queries]
        key_of = o.key_of if o.key_of is not None else chunk_doc_keys(o.store)
        out = CachedSet(f"{which}-50-seed{seed}", o.title, o.hit_only, dict(key_of), cached)
    save(out, cache)
    return out


def tunings_on(kb: Path, settings: Settings) -> tuple[FusionTuning | None, FusionTuning | None]:
    """The product's tuning of ``kb`` at STANDARD_ERRORS and at one standard error, from one scoring of the grid."""
    encoder = open_encoder(settings)
    s = settings.search
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder) as store:
        grid = grid_scores(store, encoder, s.weights(), fusion=s.fusion, candidates=s.candidates)
    if grid is None:
        return None, None
    return tuning_from(grid, STANDARD_ERRORS), tuning_from(grid, 1.0)


def with_tuning(weights: Mapping[str, float], tuning: FusionTuning | None) -> dict[str, float]:
    """The weights search would use on the KB with this tuning stored (``kb.options.search_weights``)."""
    return tuned_weights(weights, tuning, tuning.encoder_id if tuning else "", FUSION)


def row_for(name: str, cs: CachedSet, kb: Path, sampled: str, settings: Settings) -> Row:
    tuning, one_se = tunings_on(kb, settings)
    weights = settings.search.weights()
    present = [s for s in SINGLES if any(s in q.lists for q in cs.queries)]
    return Row(
        name,
        cs.title,
        len(cs.queries),
        sampled,
        tuning,
        one_se,
        {s: scored(cs, cs.queries, None, single=s) for s in present},
        scored(cs, cs.queries, weights),
        scored(cs, cs.queries, with_tuning(weights, tuning)),
        scored(cs, cs.queries, with_tuning(weights, one_se)),
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sets", default="tender,lawbench,2wiki,hotpotqa,vaswani", help=f"of {', '.join(SETS)}; '' for none"
    )
    ap.add_argument("--chunks", type=int, default=100, help="chunks whose questions the LLM writes, per set")
    ap.add_argument("--chunks-for", action="append", default=[], help="set=N: another sample size for that set")
    ap.add_argument("--pool", action="append", default=[], help="which:seed:KB, an enriched pooled multi-hop KB")
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    started = dt.datetime.now()
    settings = SETTINGS
    rows: list[Row] = []
    sizes = {k: int(v) for k, v in (item.split("=", 1) for item in args.chunks_for)}
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        spec = SETS[name]
        cache = args.kb_dir / f"{name}.rankings.json"
        if not cache.exists():
            save(build_cache(spec, args.kb_dir / f"{name}.kb", DEPTH), cache)
        tuned_kb = args.kb_dir / f"{name}.tuned.kb"
        if not tuned_kb.exists():
            shutil.copyfile(args.kb_dir / f"{name}.kb", tuned_kb)
        chunks = sizes.get(name, args.chunks)
        enrich_sample(tuned_kb, chunks, settings)
        rows.append(row_for(name, load(cache), tuned_kb, f"{chunks} chunks sampled", settings))
        print(f"[bench_fusion_tuning] {name}: {rows[-1].tuning}", flush=True)
    no_late = replace(settings, ingest=replace(settings.ingest, late=False))  # the pools were built without
    for spec in args.pool:
        which, seed, kb = spec.split(":", 2)
        kb_path = Path(kb).expanduser()
        cs = pool_cache(which, int(seed), kb_path, kb_path.with_suffix(".rankings.json"), no_late)
        rows.append(row_for(cs.name, cs, kb_path, "enriched", no_late))
        print(f"[bench_fusion_tuning] {cs.name}: {rows[-1].tuning}", flush=True)
    write_section(args.out, BEGIN, END, BEGIN + "\n" + report(rows, args, started) + END)
    print(f"[bench_fusion_tuning] written to {args.out}")


def report(rows: Sequence[Row], args: argparse.Namespace, started: dt.datetime) -> str:
    cmd = " ".join(sys.argv[1:])
    s = SETTINGS.search
    lines = [
        "## Fusion tuned per KB on its own atomic questions",
        "",
        f"_`.venv/bin/python build/bench/bench_fusion_tuning.py {cmd}` on {started:%Y-%m-%d %H:%M}; {cpu_summary()};"
        f" Python {platform.python_version()}. Fusion {s.fusion}, configured weights BM25 {s.bm25_weight:g} / dense"
        f" {s.dense_weight:g} / late {s.late_weight:g}; the tuning sees only the KB's atomic questions, never the"
        " set's questions; margin = min(nDCG@10, R@5) less the best single ranking's; ± its standard error, that"
        " of the per-question difference on the binding measure._",
        "",
        f"| set | questions | tuned on | tuned BM25 / late | margin, fixed weights | margin, tuned"
        f" ({STANDARD_ERRORS:g} SE, the product's) | tuned at 1 SE | margin at 1 SE |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def shown(t: FusionTuning | None) -> str:
        return "—" if t is None else f"{t.bm25_weight:g} / " + ("—" if t.late_weight is None else f"{t.late_weight:g}")

    for r in rows:
        t = r.tuning
        on = "too few questions" if t is None else f"{t.queries} atomic questions ({r.sampled})"
        lines.append(
            f"| {r.name} | {r.queries} | {on} | {shown(t)} | {r.margin(r.configured):+.3f}"
            f" | {r.margin(r.tuned):+.3f} ± {r.margin_error(r.tuned):.3f}"
            f" | {shown(r.one_se)} | {r.margin(r.tuned_one_se):+.3f} |"
        )
    lines.append("")
    for r in rows:
        lines += [f"**{r.name}: {r.title}**", "", "| ranking | nDCG@10 | R@5 | R@10 |", "|---|---|---|---|"]
        for name, sc in r.singles.items():
            lines.append(f"| {name} | {sc.ndcg10:.3f} | {sc.r5:.3f} | {sc.r10:.3f} |")
        lines.append(
            f"| hybrid, fixed weights | {r.configured.ndcg10:.3f} | {r.configured.r5:.3f} | {r.configured.r10:.3f} |"
        )
        lines.append(f"| hybrid, tuned | {r.tuned.ndcg10:.3f} | {r.tuned.r5:.3f} | {r.tuned.r10:.3f} |")
        u = r.tuned_one_se
        lines.append(f"| hybrid, tuned at 1 SE | {u.ndcg10:.3f} | {u.r5:.3f} | {u.r10:.3f} |")
        if r.tuning is not None:
            t = r.tuning
            lines.append("")
            lines.append(
                f"On its atomic questions: nDCG@10 {t.ndcg:.3f} at the tuned weights, {t.best_ndcg:.3f} the grid's"
                f" best, {t.configured_ndcg:.3f} at the fixed ones."
            )
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
