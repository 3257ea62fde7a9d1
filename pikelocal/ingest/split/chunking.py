"""From a parsed document to the rows the store keeps: pages at their offsets, chunks with spans and headers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pikelocal.config import default_of
from pikelocal.domain.documents import NewChunk, NewPage, TableRecord
from pikelocal.ingest.read.parse import ParsedDocument
from pikelocal.ingest.read.positions import DocumentText
from pikelocal.ingest.read.tables import find_tables
from pikelocal.ingest.split.bounds import bounded, max_chars_for
from pikelocal.ingest.split.context import chunk_header
from pikelocal.ingest.split.split_semantic import Embed, split_semantic
from pikelocal.ingest.split.split_struct import ChunkSpan, CountTokens, split_structured

if TYPE_CHECKING:
    from pikelocal.ingest.split.split_llm import LLMSplit, LLMSplitter


@dataclass(frozen=True)
class SplitOptions:
    """The structure-aware splitter's sizes in encoder tokens; the defaults are the settings' declared ones."""

    target: int = default_of("ingest.chunk_tokens")
    min_tokens: int = default_of("ingest.min_tokens")
    max_tokens: int = default_of("ingest.max_tokens")
    max_chars: int | None = None  # a chunk's most characters; None: max_tokens × bounds.CHARS_PER_TOKEN


@dataclass(frozen=True)
class ChunkedDocument:
    text: DocumentText
    pages: tuple[NewPage, ...]
    chunks: tuple[NewChunk, ...]
    llm_split: LLMSplit | None = None  # the LLM splitter's figures (calls, fallbacks) when it split the text
    tables: tuple[TableRecord, ...] = ()  # the Markdown tables of the text, for the viewer


def merge_blank_spans(spans: list[ChunkSpan], text: str) -> list[ChunkSpan]:
    """Fold chunks that hold only whitespace into a neighbour: they have nothing to embed or cite."""
    out: list[ChunkSpan] = []
    for span in spans:
        if text[span.start : span.end].strip() or not out:
            out.append(span)
        else:
            prev = out[-1]
            out[-1] = ChunkSpan(prev.start, span.end, prev.section_path, prev.tokens + span.tokens, prev.table_header)
    if len(out) > 1 and not text[out[0].start : out[0].end].strip():  # a blank first chunk joins the next one
        first, second = out[0], out[1]
        out[:2] = [
            ChunkSpan(first.start, second.end, second.section_path, first.tokens + second.tokens, first.table_header)
        ]
    return out


def chunk_document(
    doc: ParsedDocument,
    count: CountTokens,
    options: SplitOptions = SplitOptions(),
    llm_splitter: LLMSplitter | None = None,
    embed: Embed | None = None,
) -> ChunkedDocument:
    """Split ``doc`` (structure-aware; at semantic breakpoints with ``embed``; or with ``llm_splitter``); every chunk
    knows its page and line span and header, and holds at most ``options.max_chars`` characters and
    ``options.max_tokens`` tokens whatever the splitter made (``split/bounds.py``).

    With the LLM splitter each chunk also gets the model's summary (None where the structure split stood in).
    """
    dt = DocumentText.from_pages(doc.pages)
    pages = tuple(
        NewPage(page_no=p.page_no, text=p.text, char_start=start, line_offsets=p.line_offsets)
        for p, start in zip(doc.pages, dt.page_starts, strict=True)
    )
    llm_split: LLMSplit | None = None
    if llm_splitter is None:
        target, low, high = options.target, options.min_tokens, options.max_tokens
        if embed is not None:
            spans = split_semantic(dt.text, count, embed, target=target, min_tokens=low, max_tokens=high)
        else:
            spans = split_structured(dt.text, count, target=target, min_tokens=low, max_tokens=high)
        spans = merge_blank_spans(spans, dt.text)
        summaries: list[str | None] = [None] * len(spans)
    else:  # its chunks never hold only whitespace (blank lines join the line before)
        llm_split = llm_splitter.split(dt.text, count, options, title=doc.title)
        spans = [c.span for c in llm_split.chunks]
        summaries = [c.summary for c in llm_split.chunks]
    max_chars = options.max_chars or max_chars_for(options.max_tokens)
    pieces = bounded(spans, dt.text, count, max_tokens=options.max_tokens, max_chars=max_chars)
    chunks = []
    for ord_, (span, summary) in enumerate((span, summaries[i]) for i, span in pieces):
        first, last = dt.span(span.start, span.end)
        chunks.append(
            NewChunk(
                ord=ord_,
                text=dt.text[span.start : span.end],
                char_start=span.start,
                char_end=span.end,
                page_start=first.page_no if doc.paged else None,  # unpaged: "page unknown", not an invented p. 1
                page_end=last.page_no if doc.paged else None,
                line_start=first.line_no,
                line_end=last.line_no,
                section_path=span.section_path,
                header=chunk_header(doc.title, span.section_path, table_header=span.table_header),
                summary=summary,
            )
        )
    return ChunkedDocument(dt, pages, tuple(chunks), llm_split, _tables(dt, paged=doc.paged))


def _tables(dt: DocumentText, *, paged: bool) -> tuple[TableRecord, ...]:
    out = []
    for t in find_tables(dt.text):
        first, last = dt.span(t.start, t.end)
        page_start, page_end = (first.page_no, last.page_no) if paged else (None, None)
        out.append(TableRecord(t.start, t.end, page_start, page_end, t.n_rows, t.n_cols, t.header))
    return tuple(out)
