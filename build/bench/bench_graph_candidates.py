"""Does the entity graph help decompose's candidates? (the idea: "an atomic question's chunk plus the chunks one hop
away through a shared entity. Measure whether it helps.")

    .venv/bin/python build/bench/bench_graph_candidates.py --kb KB [--set 2wiki] [--limit 20] [--hops 1,2] [--out FILE]

KB: a pooled multi-hop evaluation KB (``pikelocal eval retrieval … --pool --limit N --kb KB``) enriched with atomic
questions and entities (``PIKELOCAL_ENRICH_ENTITIES=true pikelocal enrich KB``). For each question, the candidates
decompose would show the selector when it looks up the question itself (``atom_candidates`` with the question as
the one query: decompose's "question → atomic questions" path; the sub-questions a model proposes are not
simulated), then the same with ``with_graph_hops`` at each ``--hops``. Reported: the share of each question's gold
paragraphs among the candidates' chunks, how many questions have every gold paragraph there, and how many
candidates the selector reads (its prompt grows with them). No LLM call.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.config import Settings, load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.retrieval import chunk_doc_keys  # noqa: E402
from pikelocal.eval.runner import opened_set  # noqa: E402
from pikelocal.query.answer.decompose import DecomposeOptions  # noqa: E402
from pikelocal.query.retrieve.candidates import atom_candidates, with_graph_hops  # noqa: E402

BEGIN, END = "<!-- bench_graph_candidates:begin -->", "<!-- bench_graph_candidates:end -->"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "multihop")
    ap.add_argument("--set", dest="which", default="2wiki")
    ap.add_argument("--limit", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hops", default="1,2")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    if not args.kb.exists():
        print(f"{args.kb}: no such KB (build and enrich it first; see the docstring)", file=sys.stderr)
        return 1
    options = DecomposeOptions.from_settings(Settings())
    hops = [int(h) for h in args.hops.split(",") if h.strip()]
    settings = load_settings()
    rows: dict[str, list[tuple[float, bool, int]]] = {"atoms": [], **{f"atoms + {h} hop(s) each": [] for h in hops}}
    with opened_set(
        settings, args.data, which=args.which, kb=args.kb, limit=args.limit, seed=args.seed, pool=True
    ) as s:
        store, encoder = s.store, s.encoder
        with_entities = store.graph.counts()["chunks_with_entities"]
        chunks = sum(len(store.chunks.chunks_of(d.id)) for d in store.docs.documents())
        doc_of = chunk_doc_keys(store)
        for q in s.queries:
            gold = {d for d, grade in q.relevant.items() if grade > 0}
            found = atom_candidates(
                store, encoder, [q.text], k=options.atoms_k, threshold=options.threshold, limit=options.max_candidates
            )
            lists = {"atoms": found}
            for h in hops:
                lists[f"atoms + {h} hop(s) each"] = with_graph_hops(store, found, h, set(), options.max_candidates)
            for name, cands in lists.items():
                docs = {key for c in cands for key in doc_of.get(c.chunk_id, ())}
                share = len(gold & docs) / len(gold) if gold else 0.0
                rows[name].append((share, gold <= docs, len(cands)))
        title = s.title
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = [
        "### Decompose's candidates with the entity graph",
        "",
        f"_`.venv/bin/python build/bench/bench_graph_candidates.py --kb {args.kb.name} --set {args.which} --limit"
        f" {args.limit} --hops {args.hops}` on {when}; {cpu_summary()}; Python {platform.python_version()}. {title};"
        f" {with_entities} of {chunks} chunks read with entities by the default 1.5B model. For each question, the"
        " candidates decompose's question → atomic questions path shows the selector (atoms_k"
        f" {options.atoms_k}, threshold {options.threshold}, at most {options.max_candidates}), and the same with the"
        " chunks one shared entity away from each of the best 3 (`answer.graph_hops`). No LLM call; the model's"
        " own sub-questions are not simulated._",
        "",
        "| candidates | questions | gold paragraphs among them (mean share) | all gold there | shown (mean) |",
        "|---|---|---|---|---|",
    ]
    for name, got in rows.items():
        n = len(got)
        body.append(
            f"| {name} | {n} | {statistics.fmean(g[0] for g in got) if n else 0:.3f} |"
            f" {sum(g[1] for g in got)} / {n} | {statistics.fmean(g[2] for g in got) if n else 0:.1f} |"
        )
    write_section(args.out, BEGIN, END, "\n".join([BEGIN, *body, END]))
    print("\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
