"""Variants of graph retrieval's seeding on an enriched pooled multi-hop KB (issue 20): which of HippoRAG's knobs
moves the entity graph's ranking, measured, before any default changes.

    .venv/bin/python build/bench_graph_variants.py --kb KB [--set 2wiki] [--limit 20] [--out FILE]

KB: a pooled evaluation KB enriched with entities (as for ``bench_graph_candidates.py``; env as when it was built,
e.g. ``PIKELOCAL_INGEST_LATE=false``). Per question: the dense ranking (the baseline, and the passage seeds), then
``graph_ranking`` with each combination of damping (0.5 = HippoRAG's), the weight of the dense passage seeds
(0.05 = HippoRAG 2's, the default) and node specificity (entity seeds divided by how many chunks mention the
entity, as HippoRAG 1 does); then, as HippoRAG 2 seeds from facts, the ends of the ``FACTS`` triples whose text
("subject relation object", encoded here) is nearest the question added as seeds. Scored as ``pikelocal eval
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build"))

import numpy as np  # noqa: E402
from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.metrics import mean  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys, score_ranking  # noqa: E402
from pikelocal.eval.runner import opened_set  # noqa: E402
from pikelocal.query.graph import PASSAGE_SEEDS, graph_ranking  # noqa: E402
from pikelocal.query.search import fuse  # noqa: E402

BEGIN, END = "<!-- bench_graph_variants:begin -->", "<!-- bench_graph_variants:end -->"
KS = (2, 5, 10)
DAMPINGS = (0.5, 0.85)
PASSAGE_WEIGHTS = (0.05, 0.3, 1.0)
DEPTH = 30
FUSED_GRAPH_WEIGHTS = (0.3, 1.0)
FACTS = 5  # triples nearest the question whose ends seed the walk (HippoRAG 2 keeps the top 5 before its filter)


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
    with opened_set(
        load_settings(), args.data, which=args.which, kb=args.kb, limit=args.limit, seed=args.seed, pool=True
    ) as s:
        store, encoder = s.store, s.encoder
        key_of = chunk_doc_keys(store)
        facts = store._rows(
            "SELECT t.subject, t.object, s.name || ' ' || t.relation || ' ' || o.name FROM triples t"
            " JOIN entities s ON s.id = t.subject JOIN entities o ON o.id = t.object"
        )
        fact_vectors = encoder.encode([f[2] for f in facts], role="passage") if facts else None
        for q in s.queries:
            vector = encoder.encode([q.text], role="query")[0]
            dense = [(c, 1.0 - d) for c, d in store.index.knn("chunk", vector, max(DEPTH, PASSAGE_SEEDS))]
            scores["dense"].append(score_ranking([c for c, _ in dense[:DEPTH]], q, key_of, KS))
            for damping, weight, specific in variants:
                ranked = graph_ranking(
                    store, q.text, vector, DEPTH, dense_hits=dense[:PASSAGE_SEEDS], damping=damping,
                    passage_weight=weight, specificity=specific,
                )  # fmt: skip
                name = f"graph: damping {damping}, passage seeds × {weight}, specificity {'on' if specific else 'off'}"
                scores.setdefault(name, []).append(score_ranking([c for c, _ in ranked], q, key_of, KS))
            if fact_vectors is not None:  # HippoRAG 2's fact retrieval: the ends of the nearest triples seed too
                similarity = fact_vectors @ vector
                seeds: dict[int, float] = {}
                for i in np.argsort(-similarity)[:FACTS]:
                    for eid in (int(facts[i][0]), int(facts[i][1])):
                        seeds[eid] = seeds.get(eid, 0.0) + float(similarity[i])
                for weight in PASSAGE_WEIGHTS:
                    ranked = graph_ranking(
                        store, q.text, vector, DEPTH, dense_hits=dense[:PASSAGE_SEEDS], passage_weight=weight,
                        specificity=True, entity_seeds=seeds,
                    )  # fmt: skip
                    name = (
                        f"graph + {FACTS} nearest triples' ends: damping 0.5, passage seeds × {weight}, specificity on"
                    )
                    scores.setdefault(name, []).append(score_ranking([c for c, _ in ranked], q, key_of, KS))
                    if weight == PASSAGE_WEIGHTS[0]:  # fused with dense as hybrid fuses (RRF), graph weighted so
                        for g in FUSED_GRAPH_WEIGHTS:
                            fused = fuse({"dense": dense[:DEPTH], "graph": ranked}, {"dense": 1.0, "graph": g}, DEPTH)
                            name = f"dense + that graph (passage seeds × {weight}), RRF, graph weight {g}"
                            scores.setdefault(name, []).append(score_ranking([c for c, _ in fused], q, key_of, KS))
        title, n = s.title, len(s.queries)
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = [
        "### Graph retrieval's seeding, varied (issue 20)",
        "",
        f"_`.venv/bin/python build/bench_graph_variants.py --kb {args.kb.name} --set {args.which} --limit"
        f" {args.limit}` on {when}; {cpu_summary()}; Python {platform.python_version()}. {title}; {n} questions."
        " Defaults today: damping 0.5, passage seeds × 0.05, specificity off. No LLM call._",
        "",
        "| ranking | nDCG@10 | R@2 | R@5 | R@10 |",
        "|---|---|---|---|---|",
    ]
    for name, rows in scores.items():
        body.append(
            f"| {name} | {mean([r[0] for r in rows]):.3f} | "
            + " | ".join(f"{mean([r[1][k] for r in rows]):.3f}" for k in KS)
            + " |"
        )
    write_section(args.out, BEGIN, END, "\n".join([BEGIN, *body, END]))
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
