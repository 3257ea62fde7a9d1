"""Record the headline figures of an ``eval qa`` answers file in docs/results.json: EM and F1 per task
(``accuracy`` for true/false and multiple-choice tasks, which score right or wrong), the share of "not stated"
answers, the number of LLM calls, and the answer-cost medians. No model runs.

    .venv/bin/python build/bench/record_qa.py --results ANSWERS.jsonl --dataset lawbench-1-1 --label "naive, quote"
        --command "pikelocal eval qa …" [--mode naive] [--json docs/results.json] [--costs-from EARLIER.jsonl]

Prints the figures (one line per task, then all) so that BENCHMARKS.md can quote them with the command.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal.eval.qa import QAResult, load_results  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.prompts.answer import says_not_stated  # noqa: E402

SCORED_RIGHT_OR_WRONG = {"tf", "mcq"}


def figures(rows: list[QAResult]) -> dict[str, float]:
    """The headline metrics of ``rows`` (one mode's answers)."""
    out: dict[str, float] = {
        "em": statistics.fmean(r.em for r in rows),
        "f1": statistics.fmean(r.f1 for r in rows),
        "not_stated": statistics.fmean(says_not_stated(r.prediction) for r in rows),
        "llm_calls": statistics.fmean(r.calls for r in rows),
    }
    if all(r.task in SCORED_RIGHT_OR_WRONG for r in rows):
        out["accuracy"] = out["em"]
    ran = [r for r in rows if not r.cached]
    if ran:
        out["median_total_s"] = statistics.median(r.total_s for r in ran)
        firsts = [r.first_token_s for r in ran if r.first_token_s is not None]
        if firsts:
            out["median_first_token_s"] = statistics.median(firsts)
    evaluated = [r.prompt_evaluated for r in ran if r.prompt_evaluated is not None]
    out["median_prompt_tokens"] = statistics.median(evaluated) if evaluated else 0.0
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, required=True)
    ap.add_argument("--dataset", required=True, help="e.g. lawbench-1-1, auslaw, hotpotqa-50, 2wiki-50")
    ap.add_argument("--label", required=True, help="what was run, e.g. 'naive, quote'")
    ap.add_argument("--command", required=True, help="the eval command that made the answers")
    ap.add_argument("--mode", default="naive")
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    ap.add_argument("--dry-run", action="store_true", help="print, do not record")
    ap.add_argument(
        "--costs-from",
        type=Path,
        help="take the answer-cost medians from this earlier run of the same prompts (a rerun whose every LLM call"
        " came from the cache costs nothing of its own)",
    )
    args = ap.parse_args()
    rows = [r for (_, mode), r in load_results(args.results).items() if mode == args.mode]
    if not rows:
        sys.exit(f"{args.results}: no answers in mode {args.mode!r}")
    by_task: dict[str, list[QAResult]] = {}
    for r in rows:
        by_task.setdefault(r.task, []).append(r)
    for task, part in sorted(by_task.items()):
        shown = ", ".join(f"{k} {v:.3f}" for k, v in figures(part).items())
        print(f"{args.dataset} {task} (n = {len(part)}): {shown}")
    headline = figures(rows)
    if args.costs_from:
        earlier = [r for (_, mode), r in load_results(args.costs_from).items() if mode == args.mode]
        headline |= {k: v for k, v in figures(earlier).items() if k.startswith("median_")}
    if len(by_task) > 1:
        for task, part in by_task.items():
            if task in SCORED_RIGHT_OR_WRONG:
                headline[f"accuracy_{task}"] = figures(part)["em"]
    print(f"{args.dataset} all (n = {len(rows)}): " + ", ".join(f"{k} {v:.3f}" for k, v in headline.items()))
    if not args.dry_run:
        record_result(
            args.json,
            benchmark="qa",
            dataset=args.dataset,
            mode=args.label,
            n=len(rows),
            metrics=headline,
            command=args.command,
        )


if __name__ == "__main__":
    main()
