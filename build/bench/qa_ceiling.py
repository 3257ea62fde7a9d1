"""Per answer mode of an `eval qa` run: prompt tokens sent and evaluated, output tokens, wall time, and the ceiling
time for those tokens (the target: "median time per question within 1.15x of the ceiling time for the tokens it
evaluates and generates").

Reads the answers file and each answer's stored trace (its calls' tokens) from the KB. Only answers whose calls
all ran live count (a cached call took no time now). The ceiling comes from ``build/bench/bench_llm_ceiling.py --json``;
``--rates P,G`` adds the estimate for another machine (e.g. 48,17 for a 2-core AVX2 CPU).

    python build/bench/qa_ceiling.py KB ANSWERS.jsonl [--ceiling build/cache/ceiling.json] [--rates 48,17]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal import api  # noqa: E402
from pikelocal.eval.qa import load_results  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kb", type=Path)
    parser.add_argument("results", type=Path)
    parser.add_argument("--ceiling", type=Path, default=ROOT / "build" / "cache" / "ceiling.json")
    parser.add_argument("--rates", default="48,17", help="prompt,generation tok/s of another machine")
    args = parser.parse_args()
    ceiling = json.loads(args.ceiling.read_text())
    p_rate, g_rate = ceiling["prompt_tps"], ceiling["generation_tps"]["1"]
    other_p, other_g = (float(x) for x in args.rates.split(","))
    rows: dict[str, list[tuple[int, int, int, float, float, float, float]]] = {}
    knowledge_base = api.open_kb(args.kb, api.load_settings())
    for (_item, mode), r in sorted(load_results(args.results).items()):
        if r.trace_id is None:
            continue
        trace = knowledge_base.trace(r.trace_id)
        if any(c.cached for c in trace.calls):
            continue
        sent = trace.prompt_tokens
        evaluated = trace.prompt_evaluated
        out = trace.completion_tokens
        ceil = evaluated / p_rate + out / g_rate
        other = evaluated / other_p + out / other_g
        rows.setdefault(mode, []).append((len(trace.calls), sent, evaluated, out, trace.total_s, ceil, other))
    print(
        f"ceiling here: prompt {p_rate:.1f}, generation {g_rate:.1f} tok/s; other machine: {other_p:g}, {other_g:g}\n"
    )
    print(
        "| mode | answers (live) | LLM calls (mean) | prompt tok sent (median) | evaluated (median) | output (median)"
        " | total s (median) | ceiling s (median) | total / ceiling (median) | estimate s at "
        f"{other_p:g}/{other_g:g} tok/s (median) |"
    )
    print("|---" * 10 + "|")
    for mode, rs in rows.items():
        med = statistics.median
        print(
            f"| {mode} | {len(rs)} | {statistics.mean(r[0] for r in rs):.1f} | {med(r[1] for r in rs):,.0f}"
            f" | {med(r[2] for r in rs):,.0f} | {med(r[3] for r in rs):,.0f} | {med(r[4] for r in rs):.1f}"
            f" | {med(r[5] for r in rs):.1f} | {med(r[4] / r[5] for r in rs):.2f} | {med(r[6] for r in rs):.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
