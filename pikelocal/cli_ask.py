"""Command line for answering: `ask`, `trace`, `history` (registered on the main group by ``pikelocal.cli``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pikelocal import api
from pikelocal.trace_text import claim_lines, summary_line, trace_lines

if TYPE_CHECKING:
    from pikelocal.eval.qa import QAResult
    from pikelocal.events import Event
    from pikelocal.query.records import QueryTrace

ANSWER_MODES = ("naive", "hier", "decompose")  # pikelocal.query.records.ANSWER_MODES, without importing numpy


def _settings(ctx: click.Context) -> api.Settings:
    from pikelocal.cli import _settings as settings_of

    return settings_of(ctx)


def _err(text: str, **style: object) -> None:
    click.echo(click.style(text, **style) if sys.stderr.isatty() else text, err=True)  # type: ignore[arg-type]


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("question")
@click.option("--mode", type=click.Choice(ANSWER_MODES), help="Answering method (default: answer.mode = decompose).")
@click.option("--rounds", type=click.IntRange(1, 20), help="Decomposition rounds at most (default: answer.rounds = 5).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole trace as JSON at the end (no streaming).")
@click.option("--quiet", "-q", is_flag=True, help="Do not show the reasoning steps on stderr.")
@click.pass_context
def ask(ctx: click.Context, kb: Path, question: str, mode: str | None, rounds: int | None, as_json: bool,
        quiet: bool) -> None:  # fmt: skip
    """Answer QUESTION from KB with numbered sources: [1] file, p. 12, lines 3–17.

    The answer streams to stdout as it is generated; the reasoning (sub-questions, picks) goes to stderr.
    """
    from pikelocal.events import AnswerDelta, ReasoningStep

    def sink(event: Event) -> None:
        if as_json:
            return
        if isinstance(event, AnswerDelta):
            click.echo(event.text, nl=False)
            sys.stdout.flush()
        elif isinstance(event, ReasoningStep) and not quiet:
            _err(f"  round {event.round} · {event.kind}: {event.text}", dim=True)

    trace = api.ask(_settings(ctx), kb, question, mode=mode, rounds=rounds, sink=sink)
    if as_json:
        click.echo(json.dumps({"id": trace.id, **trace.to_dict()}, ensure_ascii=False, indent=2))
        return
    click.echo("")
    if trace.answer.matched:
        marks = "".join(f"[{n}]" for n in trace.answer.matched)
        _err(f"(the model cited nothing; {marks} added by matching the answer to the sources)", dim=True)
    _print_sources(trace)
    if not quiet:
        for line in claim_lines(trace.answer):
            _err(line, dim=True)
        _err(summary_line(trace), dim=True)


def _print_sources(trace: QueryTrace) -> None:
    sources = trace.answer.sources
    if not sources:
        return
    click.echo("")
    cited = set(trace.answer.cited)
    evidence = [c.evidence for c in trace.answer.claims if c.verdict == "supported" and c.evidence is not None]
    for s in sources:
        line = f"[{s.number}] {s.location()}"
        click.echo(line if s.number in cited else click.style(f"{line}  (not cited)", dim=True))
        for where in dict.fromkeys(e.location() for e in evidence if e.source == s.number):
            click.echo(f"      cited: {where}")


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("trace_id", required=False, type=int)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def trace(kb: Path, trace_id: int | None, as_json: bool) -> None:
    """Show how a question was answered: rounds, candidates, picks, sources, LLM calls (default: the newest)."""
    t = api.trace(kb, trace_id)
    if as_json:
        click.echo(json.dumps({"id": t.id, "created_at": t.created_at, **t.to_dict()}, ensure_ascii=False, indent=2))
        return
    for line in trace_lines(t):
        click.echo(line)


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def history(kb: Path, limit: int, as_json: bool) -> None:
    """Past questions asked of KB, newest first (open one with `pikelocal trace KB ID`)."""
    rows = api.history(kb, limit)
    if as_json:
        click.echo(json.dumps([r.__dict__ for r in rows], ensure_ascii=False, indent=2))
        return
    if not rows:
        click.echo("No questions asked yet.")
    for r in rows:
        answer = " ".join(r.answer.split())
        answer = answer[:60] + "…" if len(answer) > 60 else answer
        click.echo(f"{r.id:>5}  {r.created_at[:19].replace('T', ' ')}  {r.mode:<9} {r.total_s:6.1f} s  {r.question}")
        click.echo(f"{'':>7}{answer}")


@click.command(name="qa")
@click.argument("data", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--kb", type=click.Path(path_type=Path), required=True, help="KB to ask (multi-hop, AusLaw: built if missing)."
)
@click.option("--modes", default="naive,hier,decompose", show_default=True, help="Comma-separated answer modes.")
@click.option("--limit", type=click.IntRange(1), help="A seeded random subset of this many questions.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--take", type=click.IntRange(1), help="Answer only the first N questions of the subset in this run.")
@click.option("--rounds", type=click.IntRange(1, 20), help="Decomposition rounds at most (default: answer.rounds).")
@click.option("--results", type=click.Path(path_type=Path), help="Answers file (default: <kb>.qa-<data>.jsonl).")
@click.option("--out", type=click.Path(path_type=Path), help="Append the Markdown table to this file.")
@click.pass_context
def eval_qa(ctx: click.Context, data: Path, kb: Path, modes: str, limit: int | None, seed: int, take: int | None,
            rounds: int | None, results: Path | None, out: Path | None) -> None:  # fmt: skip
    """EM / F1 / precision / recall of the answers per mode over DATA, with LLM calls, tokens and timings.

    DATA: a multi-hop *_questions.json, a LawBench task file (1-1.json …), auslaw_questions.jsonl, or an honesty
    set (tests/data/honesty_qa.jsonl: accuracy, "not stated" rate, citation precision/recall, script). Every answer
    is saved as it is scored; run the same command again to continue a stopped run.
    """
    from pikelocal.eval.qa import format_table, run_qa
    from pikelocal.eval.qa_data import detect_qa_layout

    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())
    bad = [m for m in chosen if m not in ANSWER_MODES]
    if bad or not chosen:
        raise click.BadParameter(f"unknown mode(s) {bad} (use {', '.join(ANSWER_MODES)})", param_hint="--modes")
    if detect_qa_layout(data) == "honesty":
        from pikelocal.eval.honesty import run_honesty

        def said(row: dict[str, object]) -> None:
            verdict = "not stated" if row["not_stated"] else "correct" if row["correct"] else "wrong"
            _err(f"  {row['item_id']} {row['mode']:<9} {verdict:<10} {row['total_s']:5.1f} s  {row['answer']!s:.70}",
                 dim=True)  # fmt: skip

        table, answers = run_honesty(_settings(ctx), data, kb, modes=chosen, take=take, results_file=results,
                                     on_result=said)  # fmt: skip
        click.echo(table)
        click.echo(f"answers: {answers}")
        if out is not None:
            from pikelocal.cli import append_table

            append_table(out, table, ())
        return

    def show(r: QAResult) -> None:
        _err(f"  {r.item_id} {r.mode:<9} F1 {r.f1:.2f}  {r.total_s:5.1f} s  {r.prediction[:70]!r}", dim=True)

    from pikelocal.progress import ProgressPrinter

    run = run_qa(_settings(ctx), data, kb, modes=chosen, limit=limit, seed=seed, take=take, rounds=rounds,
                 results_file=results, on_result=show, sink=ProgressPrinter())  # fmt: skip
    table = format_table(run)
    click.echo(table)
    for note in run.notes:
        click.echo(f"note: {note}")
    click.echo(f"answers: {run.results_file}")
    if out is not None:
        from pikelocal.cli import append_table

        append_table(out, table, run.notes)


@click.command()
@click.argument("kb", required=False, type=click.Path(path_type=Path))
@click.pass_context
def tui(ctx: click.Context, kb: Path | None) -> None:
    """Open the terminal UI on KB: ask, read cited pages, follow the reasoning, manage the library.

    Without KB, choose a knowledge base file or name a new one. F1 shows the keys.
    """
    from pikelocal.errors import InputError

    settings = _settings(ctx)
    if kb is not None:
        kb = kb.expanduser().resolve()
        if (problem := api.kb_problem(kb)) is not None:
            raise InputError(problem)
    from pikelocal.tui.app import run

    run(settings, kb)


def register(group: click.Group) -> None:
    for command in (ask, trace, history, tui):
        group.add_command(command)
    eval_group = group.commands.get("eval")
    if isinstance(eval_group, click.Group):
        eval_group.add_command(eval_qa)
