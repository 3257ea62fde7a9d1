"""The honesty set's typed questions (an amount, a date, a count, a duration or a percentage asked:
``text/question_kind.asked_value``) answered by quote-then-answer and by the selection reader, side by side.

    python build/bench/bench_typed_honesty.py subset --out TYPED.jsonl
    pikelocal eval qa TYPED.jsonl --kb KB --modes naive --results quote.jsonl
    PIKELOCAL_ANSWER_SELECT=true pikelocal eval qa TYPED.jsonl --kb KB --modes naive --results select.jsonl
    python build/bench/bench_typed_honesty.py report --quote quote.jsonl --select select.jsonl \
        [--docs docs/BENCHMARKS.md] [--note TEXT]

``report`` reads the two answers files (as ``eval qa`` writes them) and prints, per document set and in all:
answerable right, unanswerable left not stated, reader failures (a wrong or "not stated" answer with the gold
sentence in the sources sent), and the median prompt tokens evaluated and seconds per answer; with ``--docs`` it
writes them as the section "typed_honesty" and records in docs/results.json. No rule of the selection reader was
written on the honesty set, so every figure here is held out for it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sections import write_section  # noqa: E402

from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.text.question_kind import asked_value  # noqa: E402

HONESTY = ROOT / "tests" / "data" / "honesty_qa.jsonl"
BEGIN, END = "<!-- typed_honesty:begin -->", "<!-- typed_honesty:end -->"
SETS = {"zh_tender": "mainland tender", "zh_law": "civil code, constitution", "en_legal_au": "Australian contract law"}


def typed(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if asked_value(r["question"]) is not None]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy both ways, reader failures, and the median cost of an answer that was not read from the cache."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    asked = [r for r in rows if not r.get("cached")]
    return {
        "n": len(rows),
        "answerable": sum(r["correct"] for r in answerable),
        "n_answerable": len(answerable),
        "not_stated": sum(r["not_stated"] for r in unanswerable),
        "n_unanswerable": len(unanswerable),
        "reader_failures": sum(1 for r in answerable if r.get("gold_sent") and not r["correct"]),
        "tokens": statistics.median(r["prompt_evaluated"] for r in asked) if asked else None,
        "seconds": statistics.median(r["total_s"] for r in asked) if asked else None,
    }


def by_set(rows: Sequence[dict[str, Any]], sources: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in SETS}
    for r in rows:
        out[sources[r["item_id"]]].append(r)
    return out


def cell(f: dict[str, Any]) -> str:
    return f"{f['answerable']}/{f['n_answerable']} · {f['not_stated']}/{f['n_unanswerable']}"


def section(results: dict[str, dict[str, dict[str, Any]]], command: str, note: str) -> str:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        BEGIN,
        "## Typed questions of the honesty set: the selection reader against quote-then-answer",
        "",
        f"_`{command}` on {when}; {cpu_summary()}; default models; naive mode._",
        "",
        "The honesty set's questions that ask for an amount, a date, a count, a duration or a percentage "
        "(`text/question_kind.asked_value`), asked both ways on one KB. Cells: answerable right · unanswerable left "
        "not stated; reader failures: answerable questions answered wrong or not stated with the gold sentence in "
        "the sources sent. No rule of either reader was written on this set: held out.",
        "",
        "| set | quote | select | quote: reader failures | select: reader failures | quote: tokens, s | "
        "select: tokens, s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in [*SETS, "all"]:
        q, s = results["quote"][name], results["select"][name]
        label = f"**{name}** ({q['n']} questions)" if name == "all" else f"{SETS[name]} ({q['n']})"
        lines.append(
            f"| {label} | {cell(q)} | {cell(s)} | {q['reader_failures']} | {s['reader_failures']} | "
            f"{q['tokens']:.0f}, {q['seconds']:.1f} | {s['tokens']:.0f}, {s['seconds']:.1f} |"
        )
    lines += ["", note, END] if note else ["", END]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    cut = sub.add_parser("subset", help="write the typed questions of the honesty set")
    cut.add_argument("--out", type=Path, required=True)
    rep = sub.add_parser("report", help="compare two answers files")
    rep.add_argument("--quote", type=Path, required=True)
    rep.add_argument("--select", type=Path, required=True)
    rep.add_argument("--docs", type=Path, help="docs/BENCHMARKS.md: write the section and results.json records")
    rep.add_argument("--note", default="", help="a paragraph written under the table")
    args = ap.parse_args(argv)
    questions = typed(read_jsonl(HONESTY))
    if args.command == "subset":
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in questions), encoding="utf-8")
        print(f"{len(questions)} typed question(s) → {args.out}")
        return 0
    sources = {r["id"]: r["source_pdf"].split("/")[1] for r in questions}
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for reader, path in (("quote", args.quote), ("select", args.select)):
        rows = [r for r in read_jsonl(path) if r["item_id"] in sources]
        missing = len(sources) - len({r["item_id"] for r in rows})
        if missing:
            print(f"{path}: {missing} typed question(s) not answered yet; figures are over those answered")
        results[reader] = {name: figures(part) for name, part in by_set(rows, sources).items() if part}
        results[reader]["all"] = figures(rows)
        print(reader, json.dumps(results[reader]["all"]))
    if args.docs is not None:
        command = "python build/bench/bench_typed_honesty.py report --quote quote.jsonl --select select.jsonl"
        write_section(args.docs, BEGIN, END, section(results, command, args.note), topic="answering")
        for reader in ("quote", "select"):
            f = results[reader]["all"]
            record_result(
                args.docs.parent / "results.json", benchmark="typed_honesty", dataset="honesty_typed",
                mode=f"naive, {reader}", n=f["n"], held_out=True, command=command,
                metrics={"answerable": f["answerable"] / f["n_answerable"],
                         "not_stated": f["not_stated"] / f["n_unanswerable"],
                         "prompt_tokens_median": f["tokens"], "seconds_median": f["seconds"]},
            )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
