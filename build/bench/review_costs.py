"""What a checklist review's answers cost: prompt tokens sent and evaluated, and seconds, per item, from the traces a
KB stored, for each run in turn.

    .venv/bin/python build/bench/review_costs.py --kb KB --checklist tender-zh --runs quote,select [--json OUT]

A review stores one trace per item it asked, in the checklist's order; ``--runs`` names the consecutive runs the
KB's traces hold, oldest first (each run as many traces as the checklist has items), so two runs of the same
checklist on one KB (the default reader, then ``answer.select``) are told apart without a run log. Items are split
into *typed* (a value kind the selection reader serves: amount, date, count, duration, percentage) and the others.
A call answered from the KB's completion cache counts its prompt as sent but not evaluated and its seconds as spent.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal.domain.answers import QueryTrace  # noqa: E402
from pikelocal.prompts.select import SELECT_TAG  # noqa: E402
from pikelocal.review.checklist import load_checklist  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

TYPED = frozenset({"amount", "date", "count", "duration", "percentage"})
TRACE_LIMIT = 100_000


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--checklist", required=True)
    ap.add_argument("--runs", required=True, help="the runs' names, oldest first, comma-separated")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    checklist = load_checklist(args.checklist)
    kinds = {q: item.kind for item in checklist.items for q in item.questions.values()}
    with Store.open_existing(args.kb) as store:
        rows = sorted(store.traces.trace_rows(TRACE_LIMIT), key=lambda r: r.id)
    traces = [QueryTrace.from_dict(json.loads(r.json)) for r in rows]
    names = args.runs.split(",")
    size = len(checklist.items)
    if len(traces) < size * len(names):
        print(f"{args.kb}: {len(traces)} trace(s), fewer than {len(names)} run(s) of {size} items", file=sys.stderr)
    out = {}
    for n, name in enumerate(names):
        block = traces[n * size : (n + 1) * size]
        out[name] = figures(block, kinds)
        print(f"{name}: {json.dumps(out[name])}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


def figures(traces: Sequence[QueryTrace], kinds: dict[str, str]) -> dict[str, float | int]:
    """Medians (tokens sent, evaluated, seconds) for all items and the typed ones, and the totals."""
    typed = [t for t in traces if kinds.get(t.answer.question) in TYPED]
    out: dict[str, float | int] = {"items": len(traces), "typed_items": len(typed)}
    out["selected"] = sum(any(c.tag == SELECT_TAG for c in t.calls) for t in traces)  # answered by the selection
    for label, group in (("all", traces), ("typed", typed)):
        if not group:
            continue
        out[f"{label}_median_prompt_tokens"] = statistics.median(sum(c.prompt_tokens for c in t.calls) for t in group)
        out[f"{label}_median_evaluated_tokens"] = statistics.median(sum(c.ran for c in t.calls) for t in group)
        out[f"{label}_median_s"] = round(statistics.median(t.total_s for t in group), 2)
        out[f"{label}_sum_s"] = round(sum(t.total_s for t in group), 1)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
