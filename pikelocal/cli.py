"""Command line: `pikelocal …`. Turns every PikeError into one line and an exit code (--debug: traceback)."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from pikelocal import __version__, api, cli_ask
from pikelocal.errors import PikeError

SEARCH_MODES = ("bm25", "dense", "late", "questions", "hybrid")  # pikelocal.query.search.MODES, without importing numpy
OWN_MODELS_HELP = """\
Use your own models (nothing is ever downloaded):
  GGUF LLM     pikelocal --llm-model /path/to/model.gguf …      or  PIKELOCAL_LLM_MODEL=/path/to/model.gguf
  LLM server   pikelocal --llm-backend openai --llm-url http://127.0.0.1:8080/v1 --llm-model NAME …
  ONNX encoder pikelocal --encoder /path/to/folder …            or  PIKELOCAL_ENCODER_MODEL=/path/to/folder
               (a folder with encoder.json, the .onnx model and tokenizer.json; see models/README.md)"""


def _settings(ctx: click.Context) -> api.Settings:
    obj: dict[str, Any] = ctx.ensure_object(dict)
    if "settings" not in obj:
        obj["settings"] = api.load_settings(obj.get("config"), obj.get("overrides"))
    return obj["settings"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pikelocal")
@click.option("--config", type=click.Path(path_type=Path), help="Settings file (default ./pikelocal.toml).")
@click.option("--llm-backend", type=click.Choice(["llama_cpp", "openai"]), help="In-process or HTTP server.")
@click.option("--llm-model", help="default | fast | tiny | path.gguf | the server's model name.")
@click.option("--llm-url", help="OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1.")
@click.option("--encoder", help="default (EmbeddingGemma) | minilm | path to an encoder folder.")
@click.option("--threads", type=int, help="CPU threads for the models (default: all cores).")
@click.option("--gpu-layers", type=int, help="LLM layers to offload to the GPU (-1: all; needs a GPU build).")
@click.option(
    "--force",
    is_flag=True,
    help="Open a KB even when this encoder's numbers differ from those it was built with (recall may drop).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logging.")
@click.pass_context
def cli(
    ctx: click.Context,
    config: Path | None,
    llm_backend: str | None,
    llm_model: str | None,
    llm_url: str | None,
    encoder: str | None,
    threads: int | None,
    gpu_layers: int | None,
    force: bool,
    debug: bool,
) -> None:
    """pikelocal: ask grounded, cited questions of your documents, offline, in one SQLite file."""
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    overrides = {
        "llm.backend": llm_backend,
        "llm.model": llm_model,
        "llm.base_url": llm_url,
        "encoder.model": encoder,
        "llm.threads": threads,
        "encoder.threads": threads,
        "llm.gpu_layers": gpu_layers,
        "encoder.force": True if force else None,
    }
    ctx.ensure_object(dict).update(config=config, overrides=overrides, debug=debug)


@cli.command()
@click.option("--verify", is_flag=True, help="Re-hash every file instead of trusting the last verification.")
@click.pass_context
def models(ctx: click.Context, verify: bool) -> None:
    """List installed models: verified, missing or corrupt."""
    manifest, statuses = api.model_statuses(_settings(ctx), full=verify)
    click.echo(f"Models folder: {manifest.folder}")
    for st in statuses:
        mark = {
            "verified": click.style("ok     ", fg="green"),
            "missing": click.style("missing", fg="yellow"),
            "corrupt": click.style("CORRUPT", fg="red"),
        }[st.state]
        size = f"{st.size_bytes / 1e6:,.0f} MB" if st.state == "verified" else ""
        click.echo(f"  {mark} {st.artifact.role:<16} {st.artifact.id:<36} {size:>9}  {st.artifact.licence}")
        if st.state != "verified":
            click.echo(f"          {st.detail}")
    if any(st.state != "verified" for st in statuses):
        click.echo("Install or repair with: make models")
    click.echo("\n" + OWN_MODELS_HELP)


@cli.command()
@click.argument("kb", required=False, type=click.Path(path_type=Path))
@click.option("--verify", is_flag=True, help="Re-hash model files.")
@click.pass_context
def doctor(ctx: click.Context, kb: Path | None, verify: bool) -> None:
    """Check versions, CPU/GPU, models, and (given KB) a knowledge-base file."""
    sections = api.doctor(_settings(ctx), kb, full=verify)
    for section in sections:
        click.echo(click.style(section.title, bold=True))
        for check in section.checks:
            mark = {True: click.style("ok  ", fg="green"), False: click.style("FAIL", fg="red"), None: "    "}
            click.echo(f"  {mark[check.ok]} {check.name:<24} {check.value}")
    if any(s.failed for s in sections):
        ctx.exit(1)


@cli.command()
@click.argument("kb", default="demo.kb", type=click.Path(path_type=Path))
@click.pass_context
def demo(ctx: click.Context, kb: Path) -> None:
    """Run the default models end to end and write a small KB file (default ./demo.kb)."""
    api.demo(_settings(ctx), kb, click.echo)


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--password", help="Password for encrypted PDFs.")
@click.option(
    "--late/--no-late",
    default=None,
    help="Late-chunked vectors now (default: ingest.late). --no-late makes documents searchable sooner; "
    "`enrich` or the next ingest adds them.",
)
@click.option("--enrich", "then_enrich", is_flag=True, help="Then run `enrich` (LLM summaries and questions).")
@click.option(
    "--splitter",
    type=click.Choice(["structure", "llm"]),
    help="structure (fast, default) or llm: PIKE-RAG's LLM-guided splitter (an LLM call per chunk).",
)
@click.pass_context
def ingest(
    ctx: click.Context,
    kb: Path,
    paths: tuple[Path, ...],
    password: str | None,
    late: bool | None,
    then_enrich: bool,
    splitter: str | None,
) -> None:
    """Add files and folders (PDF, .txt, .md; recursively) to the knowledge base KB (created if missing).

    Unchanged files are skipped, changed files replace their old version, and a run that was interrupted
    continues where it stopped. Exits with 1 when any file failed.
    """
    from pikelocal.progress import ProgressPrinter

    settings = _settings(ctx)
    if splitter is not None:
        settings = api.load_settings(
            ctx.obj.get("config"), {**(ctx.obj.get("overrides") or {}), "ingest.splitter": splitter}
        )
    report = api.ingest(settings, kb, list(paths), password=password, late=late, sink=ProgressPrinter())
    done = report.count("ingested", "replaced", "resumed")
    chunks = sum(o.chunks for o in report.outcomes if o.status in ("ingested", "replaced"))
    skipped = report.count("unchanged", "duplicate")
    click.echo(
        f"Ingested {done} file(s) ({chunks:,} new chunks), skipped {skipped} unchanged,"
        f" failed {len(report.failed)}. Knowledge base: {kb}"
    )
    secs = report.seconds
    if "embed" in secs:
        late_note = f"; late-chunked vectors took {secs['late']:.0f} s more" if secs.get("late") else ""
        click.echo(f"  searchable (BM25 + dense) after {secs.get('parse', 0) + secs['embed']:.0f} s{late_note}")
    for o in report.outcomes:
        if o.status == "duplicate":
            click.echo(f"  skipped {o.path}: {o.message}")
    for o in report.failed:
        click.echo(f"  failed  [{o.reason}] {o.message}")
    if then_enrich:
        _enrich(ctx, kb, (), None)
    if report.failed:
        ctx.exit(1)


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--docs", "docs", multiple=True, help="Only this document (id, path, file name); repeatable.")
@click.option("--limit", type=click.IntRange(1), help="Enrich at most this many chunks in this run.")
@click.pass_context
def enrich(ctx: click.Context, kb: Path, docs: tuple[str, ...], limit: int | None) -> None:
    """Let the LLM write document summaries and each chunk's atomic questions (what is not done yet).

    Slow on a CPU (seconds per chunk); Ctrl-C stops it and keeps everything finished, and running it again
    continues. The KB stays searchable meanwhile, from other processes too.
    """
    _enrich(ctx, kb, docs, limit)


def _enrich(ctx: click.Context, kb: Path, docs: Sequence[str], limit: int | None) -> None:
    from pikelocal.progress import ProgressPrinter

    report = api.enrich(_settings(ctx), kb, docs=docs, limit=limit, sink=ProgressPrinter())
    q = report.costs.get("questions")
    click.echo(
        f"Enriched: {report.summarized} document summaries, {report.atomized} chunks with {report.questions}"
        f" questions ({report.dropped} refused by the checks); {len(report.failures)} failed."
    )
    if q is not None and q.calls:
        click.echo(
            f"  LLM: {q.calls} calls for questions ({q.cached} from the cache), {q.prompt_tokens:,} prompt and"
            f" {q.completion_tokens:,} output tokens, {q.seconds:.0f} s"
        )
    for line in report.failures:
        click.echo(f"  failed  {line}")


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.pass_context
def reembed(ctx: click.Context, kb: Path) -> None:
    """Compute every vector of KB again with the configured encoder (no LLM call; resumable).

    For a KB whose vectors came from another build of the same encoder (another quantization, or integer
    kernels that computed other numbers on another CPU), which pikelocal refuses to search silently.
    """
    from pikelocal.progress import ProgressPrinter

    report = api.reembed(_settings(ctx), kb, sink=ProgressPrinter())
    units = report.ingest.units
    click.echo(
        f"Re-embedded {kb}: {units.get('embed', 0):,} chunk vectors, {units.get('late', 0):,} late vectors,"
        f" {report.questions:,} question vectors."
    )


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def docs(kb: Path, as_json: bool) -> None:
    """List the documents of KB with their stage, and the files that failed with their reasons."""
    lib = api.library(kb)
    if as_json:
        import dataclasses
        import json

        data = {
            "documents": [dataclasses.asdict(d.record) | {"chunks": d.chunks} for d in lib.documents],
            "failures": [dataclasses.asdict(f) for f in lib.failures],
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    if not lib.documents and not lib.failures:
        click.echo(f"{kb} holds no documents yet: pikelocal ingest {kb} FILES…")
    if lib.documents:
        click.echo(f"{'id':>4}  {'stage':<9} {'pages':>5} {'chunks':>6}  title / path")
    for d in lib.documents:
        r = d.record
        click.echo(f"{r.id:>4}  {r.stage:<9} {r.n_pages or 0:>5} {d.chunks:>6}  {r.title}")
        click.echo(f"{'':>35}{r.path}")
    if lib.failures:
        click.echo(click.style(f"{len(lib.failures)} file(s) failed:", fg="red"))
        for f in lib.failures:
            click.echo(f"  [{f.reason}] {f.message}")


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def stats(kb: Path, as_json: bool) -> None:
    """Enrichment progress, LLM tokens and time per prompt, what remains, and failures."""
    import dataclasses
    import json

    st = api.stats(kb)
    if as_json:
        data = dataclasses.asdict(st) | {"path": str(st.path), "seconds_per_chunk": st.seconds_per_chunk()}
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
        return
    c = st.counts
    click.echo(f"KB: {kb}")
    click.echo(f"Documents: {c.documents:,}  summaries: " + _statuses(c.summaries))
    click.echo(f"Chunks: {c.chunks:,}  questions: " + _statuses(c.atoms) + f"; {c.questions:,} atomic questions")
    v = st.vectors
    late = f"{v.get('late_vectors', 0):,}/{v.get('chunks', 0):,}"
    click.echo(
        f"Vectors: dense {v.get('chunk_vectors', 0):,}/{v.get('chunks', 0):,} chunks, late {late}"
        + (
            f" ({st.late_pending:,} pending: search uses the late vectors present; `pikelocal enrich {kb}` or the"
            " next ingest adds the rest)"
            if st.late_pending
            else ""
        )
    )
    if st.usage:
        click.echo(f"{'LLM prompt':<20}{'calls':>7}{'tokens in':>11}{'tokens out':>11}{'seconds':>9}{'s/call':>8}")
        for u in st.usage:
            click.echo(
                f"{u.tag:<20}{u.calls:>7,}{u.prompt_tokens:>11,}{u.completion_tokens:>11,}{u.seconds:>9.0f}"
                f"{u.seconds / u.calls:>8.1f}"
            )
    pending = c.atoms.get("pending", 0)
    per_chunk = st.seconds_per_chunk()
    if pending:
        eta = f", about {pending * per_chunk / 60:,.0f} min at {per_chunk:.1f} s per chunk" if per_chunk else ""
        click.echo(f"Remaining: {pending:,} chunks to enrich{eta} (run `pikelocal enrich {kb}`)")
    for f in st.failures:
        where = "summary" if f.chunk_ord is None else f"chunk {f.chunk_ord}"
        click.echo(f"  failed  {Path(f.path).name} {where}: {f.message}")


def _statuses(counts: dict[str, int] | Any) -> str:
    return ", ".join(f"{n:,} {status}" for status, n in counts.items() if n) or "none"


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("doc")
def rm(kb: Path, doc: str) -> None:
    """Remove document DOC (id, path, file name or sha256 prefix) from KB with all its chunks and vectors."""
    removed = api.remove(kb, doc)
    if hasattr(removed, "sha256"):
        click.echo(f"Removed document {removed.id}: {removed.path}")  # type: ignore[union-attr]
    else:
        click.echo(f"Forgot the failure recorded for {removed.path}")


@cli.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("query")
@click.option("--mode", type=click.Choice(SEARCH_MODES), default="hybrid", show_default=True)
@click.option("-k", "k", type=click.IntRange(1, 1000), help="Number of results (default: search.k = 10).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
def search(ctx: click.Context, kb: Path, query: str, mode: str, k: int | None, as_json: bool) -> None:
    """Search KB: ranked chunks with document, page and a snippet with the matched terms marked."""
    from pikelocal.query.snippet import render

    hits = api.search(_settings(ctx), kb, query, mode=mode, k=k)  # type: ignore[arg-type]
    if as_json:
        import json

        rows = [
            {
                "rank": i,
                "score": h.score,
                "ranks": dict(h.ranks),
                "chunk_id": h.chunk.id,
                "document": h.document.path,
                "title": h.document.title,
                "pages": [h.chunk.page_start, h.chunk.page_end],
                "lines": [h.chunk.line_start, h.chunk.line_end],
                "section": list(h.chunk.section_path),
                "snippet": h.snippet.text,
                "marks": [list(m) for m in h.snippet.marks],
            }
            for i, h in enumerate(hits, start=1)
        ]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not hits:
        hint = f" (this mode needs atomic questions: run `pikelocal enrich {kb}`)" if mode == "questions" else ""
        click.echo(f"No results.{hint}")
    color = sys.stdout.isatty()
    for i, h in enumerate(hits, start=1):
        c = h.chunk
        pages = f"p. {c.page_start}" if c.page_start == c.page_end else f"pp. {c.page_start}–{c.page_end}"
        where = f"{Path(h.document.path).name}, {pages}, lines {c.line_start}–{c.line_end}"
        click.echo(click.style(f"[{i}] {where}", bold=True) + f"  score {h.score:.4g}")
        if c.section_path:
            click.echo("    " + " › ".join(c.section_path))
        opening, closing = ("\x1b[1;33m", "\x1b[0m") if color else ("[", "]")
        click.echo("    " + render(h.snippet, opening, closing))


@cli.group(name="eval")
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


@eval_group.command(name="retrieval")
@click.argument("data", type=click.Path(exists=True, path_type=Path))
@click.option("--set", "which", type=click.Choice(["hotpotqa", "2wiki"]), help="Which set of a multi-hop folder.")
@click.option("--kb", type=click.Path(path_type=Path), help="KB file to build or reuse (default: eval-<set>-….kb).")
@click.option(
    "--modes",
    default="bm25,dense,late,hybrid",
    show_default=True,
    help="Comma-separated: bm25, dense, late, questions, hybrid; chunks = hybrid without questions.",
)
@click.option("--k", "ks", default="1,2,5,10,100", show_default=True, callback=_int_list, help="Recall@k cut-offs.")
@click.option("--limit", type=int, help="Evaluate a seeded random subset of this many queries.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--chunk-tokens", type=click.IntRange(8, 4096), help="Override ingest.chunk_tokens (e.g. 48).")
@click.option("--pool", is_flag=True, help="Multi-hop sets: the corpus is only the chosen questions' paragraphs.")
@click.option("--out", type=click.Path(path_type=Path), help="Append the Markdown table to this file.")
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
    retrieval for LawBench 1-1's questions). The KB is built once and reused by later runs.
    """
    from pikelocal.eval.retrieval import format_table
    from pikelocal.eval.runner import run_retrieval
    from pikelocal.progress import ProgressPrinter

    chosen = tuple(m.strip() for m in modes.split(",") if m.strip())
    known = (*SEARCH_MODES, "chunks")
    bad = [m for m in chosen if m not in known]
    if bad or not chosen:
        raise click.BadParameter(f"unknown mode(s) {bad}; use {', '.join(known)}", param_hint="--modes")
    run = run_retrieval(
        _settings(ctx), data, which=which, kb=kb, modes=chosen, ks=ks, limit=limit, seed=seed,
        chunk_tokens=chunk_tokens, pool=pool, sink=ProgressPrinter(),
    )  # fmt: skip
    table = format_table(run.title, run.scores, run.ks)
    click.echo(table)
    for note in run.notes:
        click.echo(f"note: {note}")
    click.echo(f"KB: {run.kb}")
    if out is not None:
        append_table(out, table, run.notes)


def append_table(out: Path, table: str, notes: Sequence[str]) -> None:
    """Append a Markdown table and its notes (in italics) to ``out`` (an eval command's --out)."""
    with out.open("a", encoding="utf-8") as fh:
        fh.write(table + "\n" + "".join(f"\n_{n}_" for n in notes) + "\n\n")


cli_ask.register(cli)


def _stop_on_sigterm(signum: int, frame: object) -> None:
    """`kill` (SIGTERM) stops like Ctrl-C: the running write rolls back and finished work is kept."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("PIKELOCAL_DEBUG"))
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        code = cli.main(args=args, prog_name="pikelocal", standalone_mode=False)
    except PikeError as exc:
        if debug:
            raise
        click.echo(f"Error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:  # click's form of Ctrl-C (and of SIGTERM, see _stop_on_sigterm)
        click.echo("Interrupted. Finished work is kept: run the same command again to continue.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted. Finished work is kept: run the same command again to continue.", err=True)
        sys.exit(130)
    except Exception as exc:  # last resort: one line, never a traceback without --debug
        if debug:
            raise
        click.echo(f"Error: unexpected {type(exc).__name__}: {exc} (run with --debug for details)", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
