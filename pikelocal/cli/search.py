"""`pikelocal search`: ranked chunks with document, page, lines and a marked snippet."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import settings_of
from pikelocal.cli.keys import key_file_option, open_kb


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("query")
@click.option("--mode", type=click.Choice(api.SEARCH_MODES), default="hybrid", show_default=True)
@click.option("-k", "k", type=click.IntRange(1, 1000), help="Number of results (default: search.k = 10).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@key_file_option
@click.pass_context
def search(ctx: click.Context, kb: Path, query: str, mode: api.SearchMode, k: int | None, as_json: bool) -> None:
    """Search KB: ranked chunks with document, page and a snippet with the matched terms marked."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        hits = knowledge_base.search(query, api.SearchRequest(mode=mode, k=k))
    if as_json:
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
        if c.page_start is None:  # an unpaged document (a workbook, a .docx without stored page breaks)
            pages = ""
        else:
            pages = f"p. {c.page_start}" if c.page_start == c.page_end else f"pp. {c.page_start}–{c.page_end}"
        parts = [Path(h.document.path).name, pages, f"lines {c.line_start}–{c.line_end}"]
        where = api.printable(", ".join(part for part in parts if part))
        click.echo(click.style(f"[{i}] {where}", bold=True) + f"  score {h.score:.4g}")
        if c.section_path:
            click.echo("    " + api.printable(" › ".join(c.section_path)))
        opening, closing = ("\x1b[1;33m", "\x1b[0m") if color else ("[", "]")
        click.echo("    " + h.snippet.marked(opening, closing, clean=api.printable))
