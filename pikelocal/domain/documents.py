"""Documents as the knowledge base holds them: documents, pages, chunks and atomic questions, rows in and rows
out (frozen; no SQL here)."""

from __future__ import annotations

from dataclasses import dataclass

from pikelocal.domain.kinds import SummaryNodeKind


@dataclass(frozen=True)
class DocumentRecord:
    id: int
    path: str
    sha256: str
    title: str | None
    summary: str | None
    kind: str | None
    n_pages: int | None
    stage: str
    error: str | None
    added_at: str  # ISO-8601 UTC
    updated_at: str


@dataclass(frozen=True)
class NewPage:
    page_no: int  # 1-based
    text: str
    char_start: int = 0  # offset of the page in the document's text
    line_offsets: tuple[int, ...] = ()  # char offset (in the page) of each line start


@dataclass(frozen=True)
class TableRecord:
    """A table in a document's text (Markdown, as the parsers write it): where it is and its shape."""

    char_start: int  # [start, end) in the document's text: the header row to the last row
    char_end: int
    page_start: int | None  # None for a document without pages (DOCX without page breaks, XLSX)
    page_end: int | None
    n_rows: int  # body rows, the header row not counted
    n_cols: int
    header: str  # the header row and its rule, as in the text


@dataclass(frozen=True)
class NewChunk:
    ord: int  # position in the document, 0-based
    text: str
    char_start: int  # [start, end) in the document's text
    char_end: int
    page_start: int | None = None
    page_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    section_path: tuple[str, ...] = ()
    header: str = ""  # contextual header (document title / section), indexed and embedded with the text
    summary: str | None = None


@dataclass(frozen=True)
class ChunkRecord:
    id: int
    doc_id: int
    ord: int
    text: str
    char_start: int
    char_end: int
    page_start: int | None
    page_end: int | None
    line_start: int | None
    line_end: int | None
    section_path: tuple[str, ...]
    header: str
    summary: str | None
    context: str | None = None  # contextual retrieval: what situates the chunk in its document (in the header)


@dataclass(frozen=True)
class NewQuestion:
    chunk_id: int
    text: str
    lang: str | None = None  # 'zh', 'en', ...


@dataclass(frozen=True)
class FailureRecord:
    path: str
    reason: str  # encrypted | image-only | empty | corrupt | unsupported | unreadable | vanished | ...
    message: str
    at: str  # ISO-8601 UTC


@dataclass(frozen=True)
class PageRecord:
    doc_id: int
    page_no: int  # 1-based
    text: str
    line_offsets: tuple[int, ...]  # offset of each line start within ``text``; citations number lines from 1
    char_start: int = 0  # offset of the page in the document's text (where a TableRecord's span is counted)

    def lines(self) -> list[str]:
        """The page's lines as citations number them (line n is ``lines()[n - 1]``), without line breaks."""
        starts = list(self.line_offsets) or [0]
        ends = starts[1:] + [len(self.text)]
        return [self.text[s:e].rstrip("\r\n") for s, e in zip(starts, ends, strict=True)]


@dataclass(frozen=True)
class SummaryPlan:
    """A summary tree's node as the tree builder plans it, before it is stored (``ingest/enrich/trees.py``)."""

    key: str  # what it summarises (a section path, or its members), unique in the KB: a rebuild keeps a done node
    kind: SummaryNodeKind
    level: int  # 1: just above chunks
    label: str  # the section path, or where the cluster is
    chunk_ids: tuple[int, ...]  # every chunk below it
    parent_key: str | None = None


@dataclass(frozen=True)
class SummaryNode:
    """A stored node of a summary tree: a retrievable summary of the chunks below it."""

    id: int
    doc_id: int | None  # None: a cluster across documents
    kind: SummaryNodeKind
    level: int
    key: str
    label: str
    parent_id: int | None
    status: str  # pending | done | failed
    summary: str | None
    error: str | None
