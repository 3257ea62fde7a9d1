"""Record a finished honesty run: its tables in docs/BENCHMARKS.md and its headline figures in docs/results.json.

    .venv/bin/python build/bench/record_honesty.py --results ANSWERS.jsonl --kb KB \
        --label "naive, quote, compress 450" --command "PIKELOCAL_ANSWER_COMPRESS_TOKENS=450 pikelocal eval qa …" \
        [--section honesty_quote_450] \
        [--data tests/data/honesty_qa.jsonl] [--out docs/BENCHMARKS.md] [--json docs/results.json]

The answers come from ``pikelocal eval qa tests/data/honesty_qa.jsonl --kb KB --results ANSWERS.jsonl`` (a long,
resumable run); nothing is asked here, so no model is loaded. Rows written before the answers file carried the
answer's cost take it from the trace the row names in the KB (first token, prompt tokens evaluated, whether every
call came from the LLM cache: such answers are left out of the timings).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.honesty import format_honesty, load_honesty, read_answers, score_of  # noqa: E402
from pikelocal.eval.honesty_headline import headline  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.kb.knowledge_base import open_kb  # noqa: E402


def with_costs(rows: dict[tuple[str, str], dict[str, Any]], kb: Path) -> None:
    """Fill each row's missing cost fields from its stored trace."""
    missing = [r for r in rows.values() if "prompt_evaluated" not in r and r.get("trace_id") is not None]
    if not missing:
        return
    with open_kb(kb, load_settings()) as knowledge_base:
        for row in missing:
            trace = knowledge_base.trace(int(row["trace_id"]))
            row["first_token_s"] = trace.first_token_s
            row["prompt_tokens"] = trace.prompt_tokens
            row["prompt_evaluated"] = trace.prompt_evaluated
            row["cached"] = bool(trace.calls) and all(c.cached for c in trace.calls)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, required=True)
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--label", required=True, help="what was run, e.g. 'naive, quote, compress 450'")
    ap.add_argument("--command", required=True, help="the eval command that made the answers")
    ap.add_argument("--mode", default="naive")
    ap.add_argument("--section", default="honesty_run")
    ap.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "honesty_qa.jsonl")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    ap.add_argument(
        "--costs-from",
        type=Path,
        help="take the answer-cost medians from this earlier run of the same prompt (when --results was re-checked"
        " from the LLM cache, its own answers cost nothing)",
    )
    args = ap.parse_args()
    items = load_honesty(args.data)
    rows = read_answers(args.results)
    with_costs(rows, args.kb)
    figures = headline(items, rows, args.mode)
    if args.costs_from:
        earlier = read_answers(args.costs_from)
        with_costs(earlier, args.kb)
        figures |= {k: v for k, v in headline(items, earlier, args.mode).items() if k.startswith("median_")}
    n = sum((i.item_id, args.mode) in rows for i in items)
    record_result(
        args.json,
        benchmark="honesty",
        dataset=args.data.name,
        mode=args.label,
        n=n,
        metrics=figures,
        command=args.command,
    )
    by_id = {i.item_id: i for i in items}
    table = format_honesty(
        f"{args.data.name}: {n} of {len(items)} questions",
        [
            (mode, by_id[item_id], score_of(row), row["model_s"], row["check_s"])
            for (item_id, mode), row in rows.items()
            if mode == args.mode and item_id in by_id
        ],
    )
    begin, end = f"<!-- {args.section}:begin -->", f"<!-- {args.section}:end -->"
    shown = ", ".join(f"{k} {v:.3f}" if v < 10 else f"{k} {v:.0f}" for k, v in figures.items())
    section = "\n".join(
        [
            begin,
            f"### Honesty set, {args.label} (n = {n})",
            "",
            f"{dt.date.today()} · {platform.node() or '?'} · {cpu_summary()}",
            "",
            f"`{args.command}`, recorded by `build/bench/record_honesty.py`.",
            "",
            table,
            f"Headline (docs/results.json): {shown}.",
            "",
            end,
        ]
    )
    write_section(args.out, begin, end, section)
    print(shown)


if __name__ == "__main__":
    main()
