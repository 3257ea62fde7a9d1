"""The key-figures sheet: every amount, date, duration and percentage of a document with the
sentence that holds it, its page and lines, and the nearest heading above it. Made from the stored pages and chunks
with no model, so it is ready the moment a document is ingested.

A view of the document's statements (``ingest/enrich/statements.py``), the values of the figure kinds: the sheet
and the statement index read values, sentences, lines and headings the same way. Lines are numbered as citations
number them: 1-based on the page. Each page is read on its own, because a ``Located`` names one page: a sentence
that runs over a page break is cut there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.review import KeyFigure, Located
from pikelocal.ingest.enrich.statements import document_statements
from pikelocal.text.values import FIGURE_KINDS


def key_figures(title: str, doc_id: int, pages: Sequence[PageRecord], chunks: Sequence[ChunkRecord]) -> list[KeyFigure]:
    """Every amount, date, duration and percentage of one document, in document order, each with its sentence,
    page (None for a document without pages: its chunks have no page), lines and nearest heading."""
    return [
        KeyFigure(s.value, s.sentence, Located(doc_id, title, s.page, s.line_start, s.line_end), s.heading)
        for s in document_statements(doc_id, pages, chunks)
        if s.value.kind in FIGURE_KINDS
    ]


def group_by_heading(figures: Iterable[KeyFigure]) -> list[tuple[str, list[KeyFigure]]]:
    """The figures in runs under one heading, in document order. A run ends where the heading or the document
    changes, so two sections that share a name ("说明" in two chapters) stay two groups, each in its place."""
    groups: list[tuple[str, list[KeyFigure]]] = []
    last: tuple[int, str] | None = None
    for figure in figures:
        key = (figure.where.doc_id, figure.heading)
        if key != last:
            groups.append((figure.heading, []))
            last = key
        groups[-1][1].append(figure)
    return groups
