"""A document's clauses as the review views read them: each page's sentences (``text/sentences.py``, as the
statements and the key-figures sheet cut them), and each Markdown table row whole, its cells after their column's
name, so a cell is never cut from its row. Each with its page, lines (1-based, as citations count them) and the
nearest heading above it. Pure: the stored pages and chunks in, no model.

A sentence that runs over a page break is cut there (a ``Located`` names one page), as the statements do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.obligations import Clause
from pikelocal.domain.review import Located
from pikelocal.ingest.enrich.headings import HeadingMarks
from pikelocal.ingest.enrich.table_rows import Row, row_sentence, table_rows
from pikelocal.text.sentences import clean_sentence, line_number, sentence_spans

MIN_CHARS = 4  # a shorter "sentence" (a page number, a lone label) binds and rejects nothing


def document_clauses(
    doc_id: int, title: str, pages: Sequence[PageRecord], chunks: Sequence[ChunkRecord]
) -> list[Clause]:
    """Every clause of one document in document order: prose sentences and table rows, each cited."""
    ordered = sorted(pages, key=lambda p: p.page_no)
    unpaged = bool(chunks) and all(c.page_start is None for c in chunks)
    headings = HeadingMarks(ordered, chunks)
    out: list[Clause] = []
    header: list[str] = []
    for page in ordered:
        rows, header = table_rows(page.text, header)
        out += _page_clauses(doc_id, title, page, None if unpaged else page.page_no, rows, headings)
    return out


def _page_clauses(
    doc_id: int, title: str, page: PageRecord, page_no: int | None, rows: Sequence[Row], headings: HeadingMarks
) -> Iterator[Clause]:
    text = page.text
    pieces: list[tuple[int, int, str, bool]] = [(r.start, r.end, row_sentence(text, r), True) for r in rows]
    for a, b in sentence_spans(text):
        if any(r.start <= a < r.end for r in rows):
            continue
        pieces.append((a, b, clean_sentence(text[a:b]), False))
    for a, b, sentence, in_table in sorted(pieces):
        if len(sentence) < MIN_CHARS:
            continue
        first = line_number(text, page.line_offsets, a)
        last = line_number(text, page.line_offsets, max(a, b - 1))
        where = Located(doc_id, title, page_no, first, last)
        yield Clause(sentence, where, headings.at(page.char_start + a), in_table)
