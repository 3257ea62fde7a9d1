"""Commands that build and inspect a knowledge base: `ingest`, `enrich`, `reembed`, `docs`, `stats`, `rm`, `recover`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import llm_settings, settings_of
from pikelocal.cli.keys import key_file_option, open_kb
from pikelocal.cli.output import LIBRARY, STATS, echo_records, json_option
from pikelocal.cli.progress import ProgressPrinter
from pikelocal.domain.search import FusionTuning


@click.command()
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
    type=click.Choice(api.SPLITTERS),
    help="structure (fast, default) or llm: PIKE-RAG's LLM-guided splitter (an LLM call per chunk).",
)
@click.option(
    "--ocr",
    type=click.Choice(api.OCR_MODES),
    help="OCR of PDF pages (default: ingest.ocr = auto): auto, the pages without a text layer or with a garbled one;"
    " always, every page; never, none (an image-only PDF fails).",
)
@click.option("--encrypt", is_flag=True, help="Create KB encrypted (key: --key-file, $PIKELOCAL_KEY, or typed twice).")
@click.option(
    "--follow-links",
    is_flag=True,
    help="Read a symbolic link named in PATHS (as `folder/*` names each link in the folder); without it such a"
    " link fails with where it points. A link out of a walked folder is never followed.",
)
@key_file_option
@click.pass_context
def ingest(
    ctx: click.Context,
    kb: Path,
    paths: tuple[Path, ...],
    password: str | None,
    late: bool | None,
    then_enrich: bool,
    splitter: str | None,
    ocr: api.OcrMode | None,
    encrypt: bool,
    follow_links: bool,
) -> None:
    """Add files and folders (PDF, .txt, .md, .docx, .xlsx; recursively) to the knowledge base KB (created if missing).

    Unchanged files are skipped, changed files replace their old version, and a run that was interrupted
    continues where it stopped. Exits with 1 when any file failed.
    """
    overrides = {"ingest.splitter": splitter}
    uses_llm = then_enrich or (splitter or settings_of(ctx).ingest.splitter) == "llm"
    settings = llm_settings(ctx, overrides) if uses_llm else settings_of(ctx, overrides)
    with open_kb(ctx, kb, settings, encrypt=encrypt) as knowledge_base:
        request = api.AddRequest(password=password, late=late, ocr=ocr, follow_links=follow_links)
        added = knowledge_base.add(list(paths), request, ProgressPrinter())
        report = added.ingest
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
                click.echo("  skipped " + api.shown_name(f"{o.path}: {o.message}"))
        for o in report.failed:
            click.echo(api.shown_name(f"  failed  [{o.reason}] {o.message}"))
        if then_enrich:
            _enrich(knowledge_base, (), None, None)
    if report.failed:
        ctx.exit(1)


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--docs", "docs", multiple=True, help="Only this document (id, path, file name); repeatable.")
@click.option("--limit", type=click.IntRange(1), help="Enrich at most this many chunks (and tree nodes) in this run.")
@click.option(
    "--trees/--no-trees",
    default=None,
    help="Also build the summary trees (one LLM call per section or cluster); default: enrich.trees.",
)
@key_file_option
@click.pass_context
def enrich(ctx: click.Context, kb: Path, docs: tuple[str, ...], limit: int | None, trees: bool | None) -> None:
    """Let the LLM write document summaries and each chunk's atomic questions (what is not done yet).

    Slow on a CPU (seconds per chunk); Ctrl-C stops it and keeps everything finished, and running it again
    continues. The KB stays searchable meanwhile, from other processes too.
    """
    with open_kb(ctx, kb, llm_settings(ctx)) as knowledge_base:
        _enrich(knowledge_base, docs, limit, trees)


def _enrich(knowledge_base: api.KnowledgeBase, docs: Sequence[str], limit: int | None, trees: bool | None) -> None:
    report = knowledge_base.enrich(api.EnrichRequest(docs=tuple(docs), limit=limit, trees=trees), ProgressPrinter())
    q = report.question_cost
    click.echo(
        f"Enriched: {report.summarized} document summaries, {report.atomized} chunks with {report.questions}"
        f" questions ({report.dropped} refused by the checks); {len(report.failures)} failed."
    )
    if q is not None and q.calls:
        click.echo(
            f"  LLM: {q.calls} calls for questions ({q.cached} from the cache), {q.prompt_tokens:,} prompt and"
            f" {q.completion_tokens:,} output tokens, {q.seconds:.0f} s"
        )
    t = report.tree_cost
    if t is not None:
        click.echo(
            f"  Summary trees: {report.tree_nodes} nodes summarised; LLM: {t.calls} calls ({t.cached} from the"
            f" cache), {t.prompt_tokens:,} prompt and {t.completion_tokens:,} output tokens, {t.seconds:.0f} s"
        )
    f = report.fusion
    if f is not None:
        click.echo(
            f"  Hybrid search's weights, tuned on {f.queries:,} of the KB's atomic questions:"
            f" {_tuned_weights(f)}, the simplest within the noise of the best (nDCG@10 on them"
            f" {f.ndcg:.3f}; best {f.best_ndcg:.3f}, configured weights {f.configured_ndcg:.3f})."
            " search.tuned = false keeps the configured ones."
        )
    for line in report.failures:
        click.echo(api.printable(f"  failed  {line}"))


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@key_file_option
@click.pass_context
def reembed(ctx: click.Context, kb: Path) -> None:
    """Compute every vector of KB again with the configured encoder (no LLM call; resumable).

    For a KB whose vectors came from another build of the same encoder (another quantization, or integer
    kernels that computed other numbers on another CPU), which pikelocal refuses to search silently.
    """
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        report = knowledge_base.reembed(ProgressPrinter())
    units = report.ingest.units
    click.echo(
        f"Re-embedded {kb}: {units.get('embed', 0):,} chunk vectors, {units.get('late', 0):,} late vectors,"
        f" {report.questions:,} question vectors."
    )


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@json_option(LIBRARY)
@key_file_option
@click.pass_context
def docs(ctx: click.Context, kb: Path, as_json: bool) -> None:
    """List the documents of KB with their stage, and the files that failed with their reasons."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        lib = knowledge_base.documents()
    if as_json:
        data = {
            "documents": [dataclasses.asdict(d.record) | {"chunks": d.chunks, "paged": d.paged} for d in lib.documents],
            "failures": [dataclasses.asdict(f) for f in lib.failures],
        }
        echo_records(LIBRARY, data)
        return
    if not lib.documents and not lib.failures:
        click.echo(f"{kb} holds no documents yet: pikelocal ingest {kb} FILES…")
    if lib.documents:
        click.echo(f"{'id':>4}  {'stage':<9} {'pages':>7} {'chunks':>6}  title / path")
    for d in lib.documents:
        r = d.record
        pages = str(r.n_pages or 0) if d.paged else "unpaged"  # a .docx without page breaks, an .xlsx
        click.echo(api.shown_name(f"{r.id:>4}  {r.stage:<9} {pages:>7} {d.chunks:>6}  {r.title}"))
        click.echo(api.shown_name(f"{'':>37}{r.path}"))
    if lib.failures:
        click.echo(click.style(f"{len(lib.failures)} file(s) failed:", fg="red"))
        for f in lib.failures:
            click.echo(api.shown_name(f"  [{f.reason}] {f.message}"))


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@json_option(STATS)
@key_file_option
@click.pass_context
def stats(ctx: click.Context, kb: Path, as_json: bool) -> None:
    """Enrichment progress, LLM tokens and time per prompt, what remains, and failures."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        st = knowledge_base.stats()
    if as_json:
        data = dataclasses.asdict(st) | {"path": str(st.path), "seconds_per_chunk": st.seconds_per_chunk()}
        echo_records(STATS, data)
        return
    c = st.counts
    click.echo(f"KB: {kb}")
    click.echo("Layers: " + ", ".join(f"{name} {n:,}" for name, n in st.layers.items()))
    click.echo(f"Documents: {c.documents:,}  summaries: " + _statuses(c.summaries))
    contexts = f"; {c.contexts:,} with a context" if c.contexts else ""
    click.echo(
        f"Chunks: {c.chunks:,}  questions: " + _statuses(c.atoms) + f"; {c.questions:,} atomic questions{contexts}"
    )
    v = st.vectors
    late = f"{v.get('late_vectors', 0):,}/{v.get('chunks', 0):,}"
    if not settings_of(ctx).ingest.late:  # the default: nothing will add the missing ones
        late = f"{late} (ingest.late is off)" if v.get("late_vectors", 0) else "off (ingest.late)"
    elif st.late_pending:
        late += (
            f" ({st.late_pending:,} pending: search uses the late vectors present; `pikelocal enrich {kb}` or the"
            " next ingest adds the rest)"
        )
    click.echo(f"Vectors: dense {v.get('chunk_vectors', 0):,}/{v.get('chunks', 0):,} chunks, late {late}")
    if st.refs is not None and (st.refs.refs or st.refs.unread):
        r = st.refs
        unread = f"; {r.unread:,} chunks not read yet (`pikelocal refs {kb}` reads them)" if r.unread else ""
        click.echo(
            f"Citations of laws: {r.refs:,}, {r.resolved:,} resolved to their article or law in this KB,"
            f" {r.refs - r.resolved:,} not; {r.articles:,} article starts known{unread}"
        )
    if st.fusion is not None:
        t = st.fusion
        click.echo(
            f"Hybrid weights tuned on {t.queries:,} atomic questions: {_tuned_weights(t)}"
            " (used while search.tuned is on)"
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
        click.echo(api.shown_name(f"  failed  {Path(f.path).name} {where}: {f.message}"))


def _statuses(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n:,} {status}" for status, n in counts.items() if n) or "none"


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("doc")
@key_file_option
@click.pass_context
def rm(ctx: click.Context, kb: Path, doc: str) -> None:
    """Remove document DOC (id, path, file name or sha256 prefix) from KB with all its chunks and vectors."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        removed = knowledge_base.remove(doc)
    if isinstance(removed, api.DocumentRecord):
        click.echo(api.shown_name(f"Removed document {removed.id}: {removed.path}"))
    else:
        click.echo(api.shown_name(f"Forgot the failure recorded for {removed.path}"))


@click.command()
@click.argument("kb", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("new", type=click.Path(path_type=Path, dir_okay=False))
@key_file_option
@click.pass_context
def recover(ctx: click.Context, kb: Path, new: Path) -> None:
    """Copy what can still be read of the damaged knowledge base KB into the new knowledge base NEW.

    KB is only read, never written. NEW gets every row SQLite can read, its full-text index made again and the
    vectors that were lost made again by KB's encoder; it appears only once complete and checked. An encrypted KB is
    read with its key (--key-file, $PIKELOCAL_KEY, or asked) and NEW is encrypted with the same key.
    """
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        report = knowledge_base.recover(new, ProgressPrinter())
    click.echo(
        api.printable(
            f"Recovered {report.chunks:,} chunks into {new} ({report.vectors_copied:,} vectors copied,"
            f" {report.vectors_embedded:,} made again) in {report.seconds:.1f} s; {kb} is unchanged."
        )
    )
    for line in report.damage:
        click.echo(api.printable(f"  damage: {line}"))
    for line in report.unreadable:
        click.echo(api.printable(f"  lost: {line}"))
    for table, n in report.dropped.items():
        click.echo(f"  dropped: {n:,} rows of {table} whose owner was lost")
    click.echo(api.printable(f"  Check it with `pikelocal doctor {new}`, then use it in place of {kb}."))


def _tuned_weights(t: FusionTuning) -> str:
    """ "BM25 0.5, late 0" (no late part when the KB has no late vectors)."""
    return f"BM25 {t.bm25_weight:g}" + ("" if t.late_weight is None else f", late {t.late_weight:g}")
