"""Variants of graph retrieval's seeding on an enriched pooled multi-hop KB: which of HippoRAG's knobs
moves the entity graph's ranking, measured, before any default changes.

    .venv/bin/python build/bench/bench_graph_variants.py --kb KB [--set 2wiki] [--limit 20] [--out FILE]

KB: a pooled evaluation KB enriched with entities (as for ``bench_graph_candidates.py``; env as when it was built,
e.g. ``PIKELOCAL_INGEST_LATE=false``). Per question: the dense ranking (the baseline, and the passage seeds), then
``graph_ranking`` with each combination of damping (0.5 = HippoRAG's), the weight of the dense passage seeds
(0.05 = HippoRAG 2's; 1.0, the default since these runs) and node specificity (entity seeds divided by how many
chunks mention the entity, as HippoRAG 1 does), all without fact seeds; then, as HippoRAG 2 seeds from facts,
with the ends of the ``FACT_SEEDS`` triples whose stored vector (schema 9; ``enrich`` embeds a KB's older triples)
is nearest the question, alone and fused with dense (RRF, min-max and z-score fusion, and dense's first 1-3 hits
followed by the graph's ranking). Scored as ``pikelocal eval
retrieval`` scores (nDCG@10, R@2/5/10 over paragraphs).
No LLM call. With n = 20 questions a difference of one question's gold paragraph is 0.025 in R@k: read the table
as a probe of which knob matters, not as a tuning.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.metrics import mean  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, score_ranking  # noqa: E402
from pikelocal.eval.runner import opened_set  # noqa: E402
from pikelocal.query.retrieve.graph import (  # noqa: E402
    FACT_SEEDS,
    PASSAGE_SEED_WEIGHT,
    PASSAGE_SEEDS,
    SPECIFICITY,
    graph_ranking,
)
from pikelocal.query.retrieve.ppr import DAMPING  # noqa: E402
from pikelocal.query.retrieve.search import fuse  # noqa: E402

MARKER = "<!-- bench_graph_variants:{}-{}:{} -->"  # one section per set and question count
KS = (2, 5, 10)
DAMPINGS = (0.5, 0.85)
PASSAGE_WEIGHTS = (0.05, 0.3, 1.0)
DEPTH = 30
FUSED_GRAPH_WEIGHTS = (0.3, 1.0, 3.0)
DENSE_HEADS = (1, 2, 3)


def head_then(dense: list[tuple[int, float]], graph: list[tuple[int, float]], head: int) -> list[int]:
    """Dense's first ``head`` chunks, then the graph's ranking, then the rest of dense's, each chunk once."""
    out: list[int] = []
    for c in [c for c, _ in dense[:head]] + [c for c, _ in graph] + [c for c, _ in dense[head:]]:
        if c not in out:
            out.append(c)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "multihop")
    ap.add_argument("--set", dest="which", default="2wiki")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    if not args.kb.exists():
        print(f"{args.kb}: no such KB (build and enrich it first; see the docstring)", file=sys.stderr)
        return 1
    variants = list(itertools.product(DAMPINGS, PASSAGE_WEIGHTS, (False, True)))
    scores: dict[str, list[tuple[float, dict[int, float], float]]] = {"dense": []}
    fusions: dict[str, list[tuple[float, dict[int, float], float]]] = {}  # listed after the graph's own rows
    with opened_set(
        load_settings(), args.data, which=args.which, kb=args.kb, limit=args.limit, seed=args.seed, pool=True
    ) as s:
        store, encoder = s.store, s.encoder
        key_of = chunk_doc_keys(store)
        with_facts = store.graph.counts()["triples_with_vectors"] > 0
        if not with_facts:
            print(f"{args.kb}: no fact vectors; `pikelocal enrich` embeds its triples (no LLM call)", file=sys.stderr)
        for q in s.queries:
            vector = encoder.encode([q.text], role="query")[0]
            dense = [(c, 1.0 - d) for c, d in store.index.knn("chunk", vector, max(DEPTH, PASSAGE_SEEDS))]
            scores["dense"].append(score_ranking([c for c, _ in dense[:DEPTH]], q, key_of, KS))
            for damping, weight, specific in variants:
                ranked = graph_ranking(
                    store, q.text, vector, DEPTH, dense_hits=dense[:PASSAGE_SEEDS], damping=damping,
                    passage_weight=weight, specificity=specific, facts=0,
                )  # fmt: skip
                name = f"graph: damping {damping}, passage seeds × {weight}, specificity {'on' if specific else 'off'}"
                scores.setdefault(name, []).append(score_ranking([c for c, _ in ranked], q, key_of, KS))
            if not with_facts:
                continue
            for weight, specific in itertools.product(PASSAGE_WEIGHTS, (False, True)):
                ranked = graph_ranking(  # HippoRAG 2's fact retrieval: the ends of the nearest triples seed too
                    store, q.text, vector, DEPTH, dense_hits=dense[:PASSAGE_SEEDS], passage_weight=weight,
                    specificity=specific, facts=FACT_SEEDS,
                )  # fmt: skip
                name = (
                    f"graph + {FACT_SEEDS} nearest triples' ends: damping 0.5, passage seeds × {weight},"
                    f" specificity {'on' if specific else 'off'}"
                )
                scores.setdefault(name, []).append(score_ranking([c for c, _ in ranked], q, key_of, KS))
                # fused with dense: the default, and HippoRAG 2's weak passage seeds with specificity (the widest
                # reach at R@10 on 2Wiki-50), which might add its deep hits below dense's top
                wide = weight == min(PASSAGE_WEIGHTS) and specific
                if (weight == PASSAGE_SEED_WEIGHT and specific == SPECIFICITY) or wide:
                    label = "fact seeds, passage × {}{}".format(weight, ", specificity on" if specific else "")
                    label = label if wide else f"the default: {label}"
                    for method, g in itertools.product(("rrf", "minmax", "zscore"), FUSED_GRAPH_WEIGHTS):
                        both = {"dense": dense[:DEPTH], "graph": ranked}
                        fused = fuse(both, {"dense": 1.0, "graph": g}, DEPTH, method)  # type: ignore[arg-type]
                        name = f"dense + graph ({label}), {method}, weight {g}"
                        fusions.setdefault(name, []).append(score_ranking([c for c, _ in fused], q, key_of, KS))
                    for head in DENSE_HEADS:  # dense's first hits kept, then the walk's, then dense's rest
                        merged = head_then(dense[:DEPTH], ranked, head)
                        name = f"dense top {head}, then graph ({label}), then dense"
                        fusions.setdefault(name, []).append(score_ranking(merged, q, key_of, KS))
        title, n = s.title, len(s.queries)
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = [
        f"### Graph retrieval's seeding, varied: {args.which}-{args.limit}",
        "",
        f"_`.venv/bin/python build/bench/bench_graph_variants.py --kb {args.kb.name} --set {args.which} --limit"
        f" {args.limit}` on {when}; {cpu_summary()}; Python {platform.python_version()}. {title}; {n} questions."
        f" Defaults today: damping {DAMPING}, passage seeds × {PASSAGE_SEED_WEIGHT}, specificity"
        f" {'on' if SPECIFICITY else 'off'}, fact seeds {FACT_SEEDS}. No LLM call._",
        "",
        "| ranking | nDCG@10 | R@2 | R@5 | R@10 |",
        "|---|---|---|---|---|",
    ]
    for name, rows in {**scores, **fusions}.items():
        body.append(
            f"| {name} | {mean([r[0] for r in rows]):.3f} | "
            + " | ".join(f"{mean([r[1][k] for r in rows]):.3f}" for k in KS)
            + " |"
        )
    begin, end = (MARKER.format(args.which, args.limit, part) for part in ("begin", "end"))
    write_section(args.out, begin, end, "\n".join([begin, *body, end]))
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
