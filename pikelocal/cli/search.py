"""`pikelocal search`: ranked chunks with document, page, lines and a marked snippet; or, with --segments, the
relevant segments answering would read (runs of consecutive chunks with their values)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pikelocal import api
from pikelocal.cli.common import settings_of
from pikelocal.cli.keys import key_file_option, open_kb
from pikelocal.cli.output import HIT, SEGMENT, SUMMARY_NODE, echo_records, json_option
from pikelocal.domain.answers import location


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("query")
@click.option("--mode", type=click.Choice(api.SEARCH_MODES), default="hybrid", show_default=True)
@click.option(
    "-k",
    "k",
    type=click.IntRange(1, 1000),
    help="Number of results (default: search.k = 10); with --segments, the ranked chunks valued (search.candidates).",
)
@click.option(
    "--segments",
    is_flag=True,
    help="Relevant segments instead of chunks: runs of consecutive chunks valued from the ranking, within"
    " answer.context_tokens, as answering reads them.",
)
@click.option("--preset", type=click.Choice(api.SEGMENT_PRESETS), help="With --segments (default: answer.segments).")
@click.option(
    "--summaries",
    is_flag=True,
    help="Summary-tree nodes instead of chunks: sections and clusters summarised by `pikelocal enrich --trees`.",
)
@json_option(HIT, SEGMENT, SUMMARY_NODE)
@key_file_option
@click.pass_context
def search(
    ctx: click.Context,
    kb: Path,
    query: str,
    mode: api.SearchMode,
    k: int | None,
    segments: bool,
    preset: api.SegmentPreset | None,
    summaries: bool,
    as_json: bool,
) -> None:
    """Search KB: ranked chunks with document, page and a snippet with the matched terms marked."""
    request = api.SearchRequest(mode=mode, k=k, preset=preset)
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        if summaries:
            show_summaries(knowledge_base.summaries(query, k), kb, as_json=as_json)
        elif segments:
            show_segments(knowledge_base.segments(query, request), as_json=as_json)
        else:
            show_hits(knowledge_base.search(query, request), kb, mode, as_json=as_json)


def hit_row(rank: int, h: api.Hit) -> dict[str, Any]:
    """A ranked chunk as a ``hit`` record (:data:`HIT`)."""
    return {
        "rank": rank,
        "score": h.score,
        "ranks": dict(h.ranks),
        "chunk_id": h.chunk.id,
        "document": h.document.path,
        "title": h.document.title,
        "pages": [h.chunk.page_start, h.chunk.page_end],
        "lines": [h.chunk.line_start, h.chunk.line_end],
        "section": list(h.chunk.section_path),
        "snippet": h.snippet.text,
        "via": h.via,
        "marks": [list(m) for m in h.snippet.marks],
        "cites": [
            {"text": r.text, "resolved": r.resolved, "target_chunk": r.target_chunk, "to": r.destination()}
            for r in h.cites
        ],
    }


def show_hits(hits: list[api.Hit], kb: Path, mode: api.SearchMode, *, as_json: bool) -> None:
    """Each hit: file, pages, lines and score; its section; the snippet with the matched terms marked."""
    if as_json:
        echo_records(HIT, [hit_row(i, h) for i, h in enumerate(hits, start=1)])
        return
    if not hits:
        hint = {
            "questions": f" (this mode needs atomic questions: run `pikelocal enrich {kb}`)",
            "graph": f" (this mode needs the entity graph: set enrich.entities = true and run `pikelocal enrich {kb}`)",
        }.get(mode, "")
        click.echo(f"No results.{hint}")
    color = sys.stdout.isatty()
    for i, h in enumerate(hits, start=1):
        c = h.chunk
        if c.page_start is None:  # an unpaged document (a workbook, a .docx without stored page breaks)
            pages = ""
        else:
            pages = f"p. {c.page_start}" if c.page_start == c.page_end else f"pp. {c.page_start}–{c.page_end}"
        parts = [Path(h.document.path).name, pages, f"lines {c.line_start}–{c.line_end}"]
        where = api.shown_name(", ".join(part for part in parts if part))
        click.echo(click.style(f"[{i}] {where}", bold=True) + f"  score {h.score:.4g}")
        if c.section_path:
            click.echo("    " + api.printable(" › ".join(c.section_path)))
        opening, closing = ("\x1b[1;33m", "\x1b[0m") if color else ("[", "]")
        click.echo("    " + h.snippet.marked(opening, closing, clean=api.printable))
        if h.via:  # a fact hop: the fact that led here
            click.echo(api.printable(f"    via the fact: {h.via}"))
        for r in h.cites:
            if r.resolved:  # where the chunk's citations lead (all of them: `pikelocal refs`)
                click.echo(api.printable(f"    cites {r.text} → {r.destination()}"))


SEGMENT_PREVIEW_CHARS = 200


def show_summaries(found: list[api.SummaryHit], kb: Path, *, as_json: bool) -> None:
    """Each summary node: its document (or "across documents"), label, level, pages, chunks below, and its text."""
    if as_json:
        rows = [
            {
                "rank": i,
                "score": h.score,
                "node_id": h.node.id,
                "kind": h.node.kind,
                "level": h.node.level,
                "label": h.node.label,
                "document": h.document.path if h.document else None,
                "pages": list(h.pages),
                "chunk_ids": list(h.chunk_ids),
                "summary": h.node.summary,
            }
            for i, h in enumerate(found, start=1)
        ]
        echo_records(SUMMARY_NODE, rows)
        return
    if not found:
        click.echo(f"No summary nodes. (Summary trees are built by `pikelocal enrich {kb} --trees`.)")
    for i, h in enumerate(found, start=1):
        where = Path(h.document.path).name if h.document else "across documents"
        first, last = h.pages
        pages = "" if first is None else (f", p. {first}" if first == last else f", pp. {first}–{last}")
        head = f"[{i}] {where}{pages} · {h.node.kind} level {h.node.level} · {len(h.chunk_ids)} chunks below"
        click.echo(click.style(api.shown_name(head), bold=True) + f"  score {h.score:.4g}")
        click.echo("    " + api.printable(h.node.label))
        click.echo("    " + api.printable(h.node.summary or ""))


def show_segments(found: list[api.Segment], *, as_json: bool) -> None:
    """Each segment: where it is, its value, the chunks it covers (position and rank, "–" where not ranked)."""
    if as_json:
        rows = [
            {
                "rank": i,
                "value": s.value,
                "document": s.document.path,
                "title": s.document.title,
                "pages": list(s.pages),
                "lines": list(s.lines),
                "section": list(s.chunks[0].section_path),
                "chunk_ids": [c.id for c in s.chunks],
                "chunk_ords": [c.ord for c in s.chunks],
                "chunk_values": list(s.values),
                "chunk_ranks": list(s.ranks),
                "text": "\n".join(c.text for c in s.chunks),
            }
            for i, s in enumerate(found, start=1)
        ]
        echo_records(SEGMENT, rows)
        return
    if not found:
        click.echo("No results.")
    for i, s in enumerate(found, start=1):
        where = api.printable(location(s.document.path, s.pages, s.lines))
        click.echo(click.style(f"[{i}] {where}", bold=True) + f"  value {s.value:.3f}")
        if s.chunks[0].section_path:
            click.echo("    " + api.printable(" › ".join(s.chunks[0].section_path)))
        first, last = s.chunks[0].ord + 1, s.chunks[-1].ord + 1
        span = f"chunk {first}" if first == last else f"chunks {first}–{last}"
        ranks = ", ".join("–" if r is None else str(r) for r in s.ranks)
        click.echo(f"    {span} of the document, ranked {ranks}")
        text = " ".join(" ".join(c.text for c in s.chunks).split())
        preview = text[:SEGMENT_PREVIEW_CHARS] + ("…" if len(text) > SEGMENT_PREVIEW_CHARS else "")
        click.echo("    " + api.printable(preview))
