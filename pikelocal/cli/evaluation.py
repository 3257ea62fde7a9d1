"""`pikelocal eval retrieval` and `pikelocal eval qa`: benchmark runs that print Markdown tables."""

from __future__ import annotations

from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import append_table, err, llm_settings, settings_of
from pikelocal.cli.keys import key_file_option, key_for_run
from pikelocal.cli.progress import ProgressPrinter


@click.group(name="eval")
def eval_group() -> None:
    """Measure retrieval quality on benchmark data."""


def _int_list(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected comma-separated numbers, got {value!r}") from None
    if not ks or min(ks) < 1:
        raise click.BadParameter("every k must be at least 1")
    return ks


def _print(report: api.EvalReport, out: Path | None) -> None:
    click.echo(report.table)
    for note in report.notes:
        click.echo(f"note: {note}")
    if report.answers is not None:
        click.echo(f"answers: {report.answers}")
    elif report.kb is not None:
        click.echo(f"KB: {report.kb}")
    if out is not None:
        append_table(out, report.table, report.notes)


@eval_group.command(name="retrieval")
@click.argument("data", type=click.Path(exists=True, path_type=Path))
@click.option("--set", "which", type=click.Choice(["hotpotqa", "2wiki"]), help="Which set of a multi-hop folder.")
@click.option("--kb", type=click.Path(path_type=Path), help="KB file to build or reuse (default: eval-<set>-….kb).")
@click.option(
    "--modes",
    default="bm25,dense,late,hybrid",
    show_default=True,
    help="Comma-separated: bm25, dense, late, questions, graph, hybrid; chunks = hybrid without questions; refs ="
    " hybrid with the articles a question cites first (as search ranks).",
)
@click.option("--k", "ks", default="1,2,5,10,100", show_default=True, callback=_int_list, help="Recall@k cut-offs.")
@click.option("--limit", type=int, help="Evaluate a seeded random subset of this many queries.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--chunk-tokens", type=click.IntRange(8, 4096), help="Override ingest.chunk_tokens (e.g. 48).")
@click.option("--pool", is_flag=True, help="Multi-hop sets: the corpus is only the chosen questions' paragraphs.")
@click.option("--out", type=click.Path(path_type=Path), help="Append the Markdown table to this file.")
@key_file_option
@click.pass_context
def eval_retrieval(
    ctx: click.Context,
    data: Path,
    which: str | None,
    kb: Path | None,
    modes: str,
    ks: tuple[int, ...],
    limit: int | None,
    seed: int,
    chunk_tokens: int | None,
    pool: bool,
    out: Path | None,
) -> None:
    """nDCG@10, Recall@k and MRR per mode over DATA.

    DATA is a BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv), a pooled multi-hop folder or
    *_corpus.json file (with --set), or a legal_zh folder (law_articles.jsonl + lawbench/1-1.json: article
    retrieval for LawBench 1-1's questions). The KB is built once and reused by later runs. An encrypted KB's key:
    --key-file, $PIKELOCAL_KEY, or asked; a KB built with a key is encrypted with it.
    """
    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())
    known = (*api.SEARCH_MODES, "chunks", "refs")
    bad = [m for m in chosen if m not in known]
    if bad or not chosen:
        raise click.BadParameter(f"unknown mode(s) {bad}; use {', '.join(known)}", param_hint="--modes")
    report = api.eval_retrieval(
        settings_of(ctx), data, which=which, kb=kb, modes=chosen, ks=ks, limit=limit, seed=seed,
        chunk_tokens=chunk_tokens, pool=pool, sink=ProgressPrinter(), key=key_for_run(ctx, kb),
    )  # fmt: skip
    _print(report, out)


@eval_group.command(name="qa")
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
@key_file_option
@click.pass_context
def eval_qa(ctx: click.Context, data: Path, kb: Path, modes: str, limit: int | None, seed: int, take: int | None,
            rounds: int | None, results: Path | None, out: Path | None) -> None:  # fmt: skip
    """EM / F1 / precision / recall of the answers per mode over DATA, with LLM calls, tokens and timings.

    DATA: a multi-hop *_questions.json, a LawBench task file (1-1.json …), auslaw_questions.jsonl, or an honesty
    set (tests/data/honesty_qa.jsonl: accuracy, "not stated" rate, citation precision/recall, script). Every answer
    is saved as it is scored; run the same command again to continue a stopped run. An encrypted KB's key:
    --key-file, $PIKELOCAL_KEY, or asked; a KB built with a key is encrypted with it.
    """
    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())
    bad = [m for m in chosen if m not in api.ANSWER_MODES]
    if bad or not chosen:
        raise click.BadParameter(f"unknown mode(s) {bad} (use {', '.join(api.ANSWER_MODES)})", param_hint="--modes")
    report = api.eval_qa(
        llm_settings(ctx), data, kb, modes=chosen, limit=limit, seed=seed, take=take, rounds=rounds,
        results_file=results, on_answer=lambda line: err(line, dim=True), sink=ProgressPrinter(),
        key=key_for_run(ctx, kb),
    )  # fmt: skip
    _print(report, out)
