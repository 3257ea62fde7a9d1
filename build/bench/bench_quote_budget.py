"""How much context the reader needs: does the gold fact stand in the sources naive answering sends, per compression
budget (the aim: "read less, find more"). No LLM: a scripted stand-in answers, and the sources it was sent are
scored.

    .venv/bin/python build/bench/bench_quote_budget.py --kb ~/.cache/pikelocal-eval/honesty/honesty.kb \
        [--data tests/data/honesty_qa.jsonl] [--budgets 0,1000,700,450,300] [--out docs/BENCHMARKS.md]

For every answerable question of the honesty set, ``KnowledgeBase.ask`` runs in naive mode with
``answer.compress_tokens`` set to each budget (0: whole sources), and the sources of its trace are checked for the
item's gold fact (letters and digits compared: ``eval.honesty.gold_sent``). Reported per budget: the share of
questions whose gold fact was sent, and the median tokens of the sources (the budget's own estimate). A reader can
only quote what it is sent; this is the ceiling of answerable accuracy at each budget.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.requests import AskRequest  # noqa: E402
from pikelocal.eval.honesty import gold_sent, load_honesty  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.kb.knowledge_base import open_kb  # noqa: E402
from pikelocal.llm.fake import FakeLLM  # noqa: E402
from pikelocal.query.context.expand import estimate_tokens  # noqa: E402

BEGIN, END = "<!-- bench_quote_budget:begin -->", "<!-- bench_quote_budget:end -->"
NOT_STATED = "原文：无\n答案：文档中没有说明"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "honesty_qa.jsonl")
    ap.add_argument("--budgets", default="0,1000,700,450,300")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    ap.add_argument("--subset", default="", help="only items whose PDF folder is this (zh_tender, zh_law, en_legal_au)")
    args = ap.parse_args()
    items = [i for i in load_honesty(args.data) if i.answerable and args.subset in i.source_pdf]
    budgets = [int(b) for b in args.budgets.split(",")]
    stand_in = FakeLLM({"answer-quote": NOT_STATED, "answer": "文档中没有说明"})
    rows: list[tuple[int, int, int, float]] = []
    subsets: dict[int, dict[str, list[bool]]] = {}
    for budget in budgets:
        settings = load_settings(overrides={"answer.compress_tokens": budget, "answer.mode": "naive"})
        sent: list[bool] = []
        tokens: list[int] = []
        with open_kb(args.kb, settings, llm=stand_in) as kb:
            for item in items:
                trace = kb.ask(item.question, AskRequest("naive"))
                ok = gold_sent(item, trace.answer.sources)
                sent.append(ok)
                subsets.setdefault(budget, {}).setdefault(item.source_pdf.split("/")[1], []).append(ok)
                tokens.append(sum(estimate_tokens(s.text) for s in trace.answer.sources))
        median = statistics.median(tokens)
        rows.append((budget, sum(sent), len(sent), median))
        print(f"budget {budget:>5}: gold fact sent {sum(sent)}/{len(sent)}, median source tokens {median:.0f}")
        record_result(
            args.json,
            benchmark="quote_budget",
            dataset=f"honesty:{args.data.name}",
            mode=f"naive compress_tokens={budget}{' ' + args.subset if args.subset else ''}",
            n=len(sent),
            metrics={"gold_sent": sum(sent) / len(sent), "median_source_tokens": median},
            command=" ".join(["build/bench/bench_quote_budget.py", *sys.argv[1:]]),
        )
    if args.out:
        names = sorted({n for per in subsets.values() for n in per})
        lines = [
            BEGIN,
            "## How much context the reader needs: the gold fact in the sources sent, per budget",
            "",
            f"{dt.date.today()} · {platform.node() or '?'} · {cpu_summary()}",
            "",
            f"`{' '.join(['.venv/bin/python build/bench/bench_quote_budget.py', *sys.argv[1:]])}`",
            "",
            "Naive mode's sources for each answerable question of the honesty set, with `answer.compress_tokens` at"
            " each budget (0: whole sources, 2,000 tokens at most); a scripted stand-in answers, so no LLM runs."
            " *Gold fact sent*: the item's gold fact stands in a source (letters and digits compared).",
            "",
            "| compress_tokens | gold fact sent | median source tokens | " + " | ".join(names) + " |",
            "|---|---|---|" + "---|" * len(names),
        ]
        for budget, hit, n, median in rows:
            per = [f"{sum(subsets[budget][x])}/{len(subsets[budget][x])}" for x in names]
            lines.append(f"| {budget or 'off'} | {hit}/{n} ({hit / n:.0%}) | {median:.0f} | " + " | ".join(per) + " |")
        lines += ["", END]
        write_section(args.out, BEGIN, END, "\n".join(lines))
    print(json.dumps({"budgets": rows}))


if __name__ == "__main__":
    main()
