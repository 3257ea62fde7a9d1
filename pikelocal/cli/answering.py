"""Commands for answering: `ask`, `trace`, `history`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import err, llm_settings, settings_of
from pikelocal.cli.keys import key_file_option, open_kb
from pikelocal.cli.output import HISTORY_ENTRY, TRACE, echo_records, json_option, trace_record


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("question")
@click.option("--mode", type=click.Choice(api.ANSWER_MODES), help="Answering method (default: answer.mode = naive).")
@click.option("--rounds", type=click.IntRange(1, 20), help="Decomposition rounds at most (default: answer.rounds = 5).")
@json_option(TRACE)  # at the end: nothing streams
@click.option("--quiet", "-q", is_flag=True, help="Do not show the reasoning steps on stderr.")
@key_file_option
@click.pass_context
def ask(ctx: click.Context, kb: Path, question: str, mode: api.AnswerMode | None, rounds: int | None, as_json: bool,
        quiet: bool) -> None:  # fmt: skip
    """Answer QUESTION from KB with numbered sources: [1] file, p. 12, lines 3–17.

    The answer streams to stdout as it is generated; the reasoning (sub-questions, picks) goes to stderr.
    """

    def sink(event: api.Event) -> None:
        if as_json:
            return
        if isinstance(event, api.AnswerDelta):
            click.echo(api.printable(event.text), nl=False)
            sys.stdout.flush()
        elif isinstance(event, api.ReasoningStep) and not quiet:
            err(api.printable(f"  round {event.round} · {event.kind}: {event.text}"), dim=True)

    with open_kb(ctx, kb, llm_settings(ctx)) as knowledge_base:
        trace = knowledge_base.ask(question, api.AskRequest(mode=mode, rounds=rounds), sink)
    if as_json:
        echo_records(TRACE, trace_record(trace))
        return
    click.echo("")
    if trace.answer.matched:
        marks = "".join(f"[{n}]" for n in trace.answer.matched)
        err(f"(the model cited nothing; {marks} added by matching the answer to the sources)", dim=True)
    _print_sources(trace)
    if not quiet:
        for line in api.claim_lines(trace.answer):
            err(line, dim=True)
        err(api.summary_line(trace), dim=True)


def _print_sources(trace: api.QueryTrace) -> None:
    sources = trace.answer.sources
    if not sources:
        return
    click.echo("")
    cited = set(trace.answer.cited)
    evidence = [c.evidence for c in trace.answer.claims if c.verdict == "supported" and c.evidence is not None]
    for s in sources:
        line = api.printable(f"[{s.number}] {s.location()}")
        click.echo(line if s.number in cited else click.style(f"{line}  (not cited)", dim=True))
        for where in dict.fromkeys(e.location() for e in evidence if e.source == s.number):
            click.echo(api.printable(f"      cited: {where}"))


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("trace_id", required=False, type=int)
@json_option(TRACE)
@key_file_option
@click.pass_context
def trace(ctx: click.Context, kb: Path, trace_id: int | None, as_json: bool) -> None:
    """Show how a question was answered: rounds, candidates, picks, sources, LLM calls (default: the newest)."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        t = knowledge_base.trace(trace_id)
    if as_json:
        echo_records(TRACE, trace_record(t))
        return
    for line in api.trace_lines(t):
        click.echo(line)


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--limit", type=click.IntRange(1), default=api.HISTORY_LIMIT, show_default=True)
@json_option(HISTORY_ENTRY)
@key_file_option
@click.pass_context
def history(ctx: click.Context, kb: Path, limit: int, as_json: bool) -> None:
    """Past questions asked of KB, newest first (open one with `pikelocal trace KB ID`)."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        rows = knowledge_base.history(limit)
    if as_json:
        echo_records(HISTORY_ENTRY, rows)
        return
    if not rows:
        click.echo("No questions asked yet.")
    for r in rows:
        answer = " ".join(r.answer.split())
        answer = answer[:60] + "…" if len(answer) > 60 else answer
        question = api.printable(r.question)
        click.echo(f"{r.id:>5}  {r.created_at[:19].replace('T', ' ')}  {r.mode:<9} {r.total_s:6.1f} s  {question}")
        click.echo(f"{'':>7}{api.printable(answer)}")
