"""Contextual chunk headers: the document title and section path put before a chunk's text.

The embedded text and the BM25 text are ``header + blank line + chunk text``; the chunk text itself is stored
unchanged, so offsets and segment extraction stay exact.
"""

from __future__ import annotations

from collections.abc import Sequence

SECTION_SEPARATOR = " › "


def chunk_header(
    title: str,
    section_path: Sequence[str],
    *,
    summary: str | None = None,
    table_header: str = "",
    context: str | None = None,
) -> str:
    """``title › section › subsection``, then the document summary on its own line when there is one, then the
    chunk's context (contextual retrieval: what situates it in the document, from enrichment), then the header
    row of the table the chunk starts inside (its rows continue a table begun in an earlier chunk).

    A section that repeats the title (a Markdown file whose first heading is its title) is not repeated.
    """
    parts = [title.strip()] if title.strip() else []
    parts += [s.strip() for s in section_path if s.strip() and s.strip() != title.strip()]
    header = SECTION_SEPARATOR.join(parts)
    if summary and summary.strip():
        header = f"{header}\n{summary.strip()}" if header else summary.strip()
    if context and context.strip():
        line = " ".join(context.split())
        header = f"{header}\n{line}" if header else line
    if table_header:
        header = f"{header}\n{table_header}" if header else table_header
    return header


def with_header(header: str, text: str) -> str:
    """The text an encoder or the full-text index sees for a chunk."""
    return f"{header}\n\n{text}" if header else text
