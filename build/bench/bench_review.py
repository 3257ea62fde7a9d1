"""A checklist review scored against a gold fact sheet: per-item accuracy, not-stated accuracy, conflicts
found and wall time, written to docs/BENCHMARKS.md (a section between markers) and docs/results.json.

    .venv/bin/python build/bench/bench_review.py --kb KB --checklist tender-zh
        --gold tests/data/review/tender-zh-gold.jsonl --section bench_review_tender [--dataset zh_tender]
        [--run [--fresh] [--config FILE] [--set KEY=VALUE …]]
        [--wall-s SECONDS] [--mode naive] [--out docs/BENCHMARKS.md] [--json docs/results.json] [--dry-run]

Without ``--run`` no model loads: the rows the KB holds (``pikelocal review KB --checklist NAME`` stored them) are
scored, and the wall time is ``--wall-s`` (the time of the run that made them, measured by whoever ran it) or else
the sum of the rows' own seconds (answering only, without loading the models). With ``--run`` the checklist is
run here through ``api`` (items already answered on the KB as it is are kept; ``--fresh`` asks every item again)
and its wall time, model loading included, is measured.

The results.json record is ``{"benchmark": "review", "dataset": DATASET, "mode": MODE, "metrics":
{"item_accuracy", "not_stated_accuracy", "conflicts_found", "wall_s"}}``; a later run of the same dataset and mode
replaces it, so a GPU run should name its own mode (``--mode "naive, gpu"``). The gold format and the scoring rules
are in ``pikelocal/eval/review_score.py``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.config import Settings, load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.events import Event, StageAdvanced, StageStarted  # noqa: E402
from pikelocal.domain.review import Checklist, ReviewRow  # noqa: E402
from pikelocal.embed.base import Encoder  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.eval.review_score import ItemScore, ReviewScore, load_gold, score, unknown_items  # noqa: E402
from pikelocal.llm.base import LLM  # noqa: E402
from pikelocal.review.checklist import load_checklist  # noqa: E402

QUOTE_CHARS = 70
_SETTINGS_KEY = re.compile(r"(?:llama_cpp|openai)/[^:]*")  # review/runner.state_of's settings part


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--checklist", required=True, help="a built-in checklist name or a TOML file")
    ap.add_argument("--gold", type=Path, required=True, help="the gold fact sheet (JSONL)")
    ap.add_argument("--section", required=True, help="the BENCHMARKS.md section's marker name")
    ap.add_argument("--dataset", help="the document set's name in results.json (default: the KB's file stem)")
    ap.add_argument("--title", help="the section's heading")
    ap.add_argument("--mode", default="naive", help="results.json mode (default naive; e.g. 'naive, gpu')")
    ap.add_argument("--run", action="store_true", help="run the checklist now (loads the models)")
    ap.add_argument("--fresh", action="store_true", help="with --run: ask every item again")
    ap.add_argument("--docs", action="append", default=[], help="with --run: only this document (repeatable)")
    ap.add_argument("--config", type=Path, help="with --run: the settings file")
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                    help="with --run: a setting, e.g. llm.gpu_layers=-1 (repeatable)")  # fmt: skip
    ap.add_argument("--wall-s", type=float, help="without --run: the measured wall time of the run that made the rows")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    ap.add_argument("--dry-run", action="store_true", help="print the section; write neither file")
    ap.add_argument("--held-out", choices=("yes", "no"), help="no rule was written on this document (results.json)")
    args = ap.parse_args(argv)
    if not args.kb.exists():
        sys.exit(f"{args.kb}: no such knowledge base")
    checklist = load_checklist(args.checklist)
    gold = load_gold(args.gold)
    unknown = unknown_items(gold, (i.id for i in checklist.items))
    if unknown:
        sys.exit(f"{args.gold}: not items of checklist {checklist.name}: {', '.join(unknown)}")
    settings = load_settings(args.config, _overrides(args.overrides), environ=None if args.run else {})
    asked = None
    if args.run:
        rows, wall_s, asked = run_review(args.kb, settings, args.checklist, args.docs, args.fresh)
        timing = f"wall time of the run, models loaded included ({asked} item(s) asked)"
    else:
        with api.open_kb(args.kb, settings) as kb:
            rows = kb.review_rows(args.checklist)[1]
        if args.wall_s is not None:
            wall_s, timing = args.wall_s, "wall time of the run that stored the rows (--wall-s)"
        else:
            wall_s, timing = sum(r.seconds for r in rows), "sum of the rows' answering seconds (models' loading not in)"
    result = score(rows, gold, sources_sent(args.kb, settings, rows))
    dataset = args.dataset or args.kb.stem
    command = "python build/bench/bench_review.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    machine = machine_line(settings if args.run else None)
    section = render_section(
        args.section, args.title or f"Checklist review: {checklist.name} on {dataset}", command, machine,
        checklist, rows, result, wall_s, timing,
    )  # fmt: skip
    print(summary_line(dataset, result, wall_s))
    if args.dry_run:
        print(section)
        return 0
    begin, end = markers(args.section)
    write_section(args.out, begin, end, section)
    record_result(
        args.json,
        benchmark="review",
        dataset=dataset,
        mode=args.mode,
        n=len(gold),
        metrics=metrics(result, wall_s),
        command=command,
        machine=machine,
        held_out=None if args.held_out is None else args.held_out == "yes",
    )
    print(f"[review] section {args.section} written to {args.out}; record added to {args.json}")
    return 0


def run_review(
    kb_path: Path,
    settings: Settings,
    checklist: str,
    docs: Sequence[str] = (),
    fresh: bool = False,
    *,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
) -> tuple[list[ReviewRow], float, int]:
    """Run the checklist through the API; its rows, wall seconds (models loaded included) and items asked.
    ``encoder`` and ``llm``: models already made (a test's stand-ins); None: the settings' own, loaded here."""
    start = time.perf_counter()
    with api.open_kb(kb_path, settings, encoder=encoder, llm=llm) as kb:
        report = kb.review(api.ReviewRequest(checklist, tuple(docs), None, fresh), progress)
    return list(report.rows), time.perf_counter() - start, report.asked


def sources_sent(kb_path: Path, settings: Settings, rows: Sequence[ReviewRow]) -> dict[str, list[str]]:
    """By item, the texts of the sources its answer was given (its stored trace); rows read by the system
    (a ticked box, a title block) have no trace and are left out."""
    sent: dict[str, list[str]] = {}
    with api.open_kb(kb_path, settings) as kb:
        for row in rows:
            if row.trace_id is not None:
                sent[row.item_id] = [s.text for s in kb.trace(row.trace_id).answer.sources]
    return sent


def progress(event: Event) -> None:
    if isinstance(event, StageStarted):
        print(f"[review] {event.total} item(s) to ask", file=sys.stderr, flush=True)
    elif isinstance(event, StageAdvanced):
        print(f"[review] {event.done}/{event.total} {event.detail}", file=sys.stderr, flush=True)


def metrics(result: ReviewScore, wall_s: float) -> dict[str, float]:
    """The record's figures; reader failures and retrieval misses only where the rows' traces told them."""
    lost = {
        "reader_failures": _share(len(result.reader_failures), result.answerable),
        "retrieval_misses": _share(len(result.retrieval_misses), result.answerable),
    }
    return {
        "item_accuracy": result.item_accuracy,
        "not_stated_accuracy": result.not_stated_accuracy,
        "conflicts_found": float(result.conflicts_found),
        "false_conflicts": float(len(result.false_conflicts)),
        "to_check": float(result.to_check),
        "to_check_right": float(result.to_check_right),
        "right_drafts_removed": _share(len(result.right_drafts_removed), result.right_drafts),
        "inventions_kept": _share(len(result.inventions_kept), result.inventions_drafted),
        "wrong_drafts_kept": _share(len(result.wrong_drafts_kept), result.wrong_drafts),
        "wall_s": wall_s,
    } | (lost if result.looked_up else {})


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def summary_line(dataset: str, result: ReviewScore, wall_s: float) -> str:
    return (
        f"{dataset}: item accuracy {result.answerable_right}/{result.answerable} ({result.item_accuracy:.1%}),"
        f" not stated {result.not_stated_right}/{result.not_stated} ({result.not_stated_accuracy:.1%}),"
        f" conflicts found {result.conflicts_found}/{result.conflicts}"
        f" ({len(result.false_conflicts)} where the gold has none), to check {result.to_check_right}/"
        f"{result.to_check} right, right drafts removed {len(result.right_drafts_removed)}/{result.right_drafts},"
        f" inventions kept {len(result.inventions_kept)}/{result.inventions_drafted}, wrong drafts kept"
        f" {len(result.wrong_drafts_kept)}/{result.wrong_drafts}"
        + (
            f", reader failures {len(result.reader_failures)} and retrieval misses {len(result.retrieval_misses)}"
            f" of {result.answerable} stated"
            if result.looked_up
            else ""
        )
        + f", wall {wall_s:.0f} s"
    )


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def machine_line(settings: Settings | None) -> str:
    """The CPU (model, SIMD flags), the cores this process may use, the GPU when there is one, and the LLM of a
    run made here."""
    parts = [f"{cpu_summary()}, {len(os.sched_getaffinity(0))} cores"]
    gpu = gpu_name()
    if gpu:
        parts.append(f"GPU {gpu}")
    if settings is not None:
        llm = settings.llm
        parts.append(f"LLM {llm.backend}/{llm.model}" + (f", {llm.gpu_layers} GPU layers" if llm.gpu_layers else ""))
    return "; ".join(parts)


def gpu_name() -> str:
    """The first NVIDIA GPU's name, or "" without one (or without nvidia-smi)."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return ""
    try:
        out = subprocess.run(
            [smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""


def render_section(
    name: str,
    title: str,
    command: str,
    machine: str,
    checklist: Checklist,
    rows: Sequence[ReviewRow],
    result: ReviewScore,
    wall_s: float,
    timing: str,
) -> str:
    """The BENCHMARKS.md section: how it was made, the headline figures, and the per-item table with each gold
    quote and its page."""
    begin, end = markers(name)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M")
    answered_by = sorted({m.group(0) for r in rows if (m := _SETTINGS_KEY.search(r.kb_state))})
    labels = {i.id: i.label for i in checklist.items}
    lines = [
        begin,
        f"### {title}",
        "",
        f"_`{command}` on {when} UTC; {machine}; Python {platform.python_version()}."
        + (f" Rows answered with {', '.join(answered_by)}." if answered_by else "")
        + f" {len(rows)} stored row(s) of {len(checklist.items)} items; {len(result.items)} judged by the gold._",
        "",
        f"- Item accuracy: **{result.answerable_right}/{result.answerable}** ({result.item_accuracy:.1%}) of the"
        " items the document states, answered with an accepted value.",
        f"- Not-stated accuracy: **{result.not_stated_right}/{result.not_stated}**"
        f" ({result.not_stated_accuracy:.1%}) of the items it does not state, left not stated.",
        f"- Conflicts found: **{result.conflicts_found}/{result.conflicts}** (the row is conflicting and shows both"
        f" values); shown where the gold has none: {_list(result.false_conflicts)}.",
        f"- To check (the answer stands in a sentence not clearly about the item; counted as neither found nor not"
        f" stated): **{result.to_check}** row(s), {result.to_check_right} of them right.",
        f"- The checks' two error rates: right drafts removed **{len(result.right_drafts_removed)}/"
        f"{result.right_drafts}** ({_list(result.right_drafts_removed)}); inventions kept (a value drafted for an"
        f" item the document does not state, shown as found) **{len(result.inventions_kept)}/"
        f"{result.inventions_drafted}** ({_list(result.inventions_kept)}). Misreadings kept (another value drafted"
        f" for a stated item, shown as found): {len(result.wrong_drafts_kept)}/{result.wrong_drafts}"
        f" ({_list(result.wrong_drafts_kept)}).",
        *_lost_lines(result),
        f"- Wall time: **{wall_s:,.0f} s** ({timing}).",
        f"- Answered wrong: {_list(result.answered_wrong)}; missed (said not stated): {_list(result.missed)};"
        f" no row: {_list(result.no_row)}.",
        "",
        "| item | gold | where | row | verdict | outcome | cited | sent | gold quote |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_table_row(s, labels.get(s.item, s.item)) for s in result.items]
    lines.append(end)
    return "\n".join(lines)


def _lost_lines(result: ReviewScore) -> list[str]:
    """Where the stated items not found were lost, when the rows' traces told it."""
    if not result.looked_up:
        return []
    return [
        f"- Where the stated items not found were lost (from the rows' traces): reader failures (the gold sentence"
        f" was in the sources sent; the draft was not right) **{len(result.reader_failures)}/{result.answerable}**"
        f" ({_list(result.reader_failures)}); retrieval misses (the gold sentence was not sent)"
        f" **{len(result.retrieval_misses)}/{result.answerable}** ({_list(result.retrieval_misses)})."
    ]


def _table_row(s: ItemScore, label: str) -> str:
    g = s.gold
    where = f"p. {g.page}" if g.page is not None else f"line {g.line}" if g.line is not None else "–"
    gold = g.shown() + (" (conflict: " + " / ".join(g.conflict_values) + ")" if g.conflict else "")
    verdict: str = s.verdict or "–"
    if s.conflict_caught is not None:
        verdict += " ✓" if s.conflict_caught else " ✗"
    cited = "–" if s.cited is None else "yes" if s.cited else "no"
    quote = g.quote or g.note
    if len(quote) > QUOTE_CHARS:
        quote = quote[: QUOTE_CHARS - 1] + "…"
    sent = "–" if s.gold_sent is None else "yes" if s.gold_sent else "no"
    cells = [f"{s.item} ({label})", gold, where, s.got or "–", verdict, s.outcome, cited, sent, quote]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|") or "–"


def _list(items: Sequence[str]) -> str:
    return ", ".join(items) if items else "none"


def _overrides(pairs: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            sys.exit(f"--set {pair!r}: KEY=VALUE expected (e.g. llm.gpu_layers=-1)")
        out[key.strip()] = value.strip()
    return out


if __name__ == "__main__":
    raise SystemExit(main())
