"""Context assembly: the gathered chunks plus their neighbours, within a token budget, as numbered sources.

Chunks are taken in priority order (the most useful first) while the budget lasts, then their neighbours (±1,
±2, …). Chunks of one document that touch are merged into one source, rebuilt in document order under one
heading, so the model reads a passage as it stands in the document instead of fragments.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Source
from pikelocal.domain.documents import ChunkRecord, DocumentRecord
from pikelocal.prompts.lang import cjk_count
from pikelocal.store.store import Store

MIN_SOURCE_CHARS = 80  # an over-long first chunk is cut to the budget, but never below this


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: one token per Chinese character, one per four other characters."""
    cjk = cjk_count(text)
    return cjk + (len(text) - cjk + 3) // 4


@dataclass(frozen=True)
class Budget:
    tokens: int  # for the sources' text, headings included
    neighbours: int = 1  # how far on each side of a gathered chunk to add context


def choose_chunks(store: Store, priority: Sequence[int], budget: Budget, fill: Sequence[int] = ()) -> list[ChunkRecord]:
    """The gathered chunks (in ``priority`` order), then their neighbours, then ``fill``, as many as fit the budget.

    The first chunk is always kept, cut to the budget when it alone is larger.
    """
    gathered = store.chunks.get_chunks(list(dict.fromkeys(priority)))
    chosen: dict[int, ChunkRecord] = {}
    used = 0
    for chunk in gathered:
        cost = estimate_tokens(chunk.text) + 12
        if chosen and used + cost > budget.tokens:
            continue
        chosen[chunk.id] = chunk
        used += cost
    for distance in range(1, budget.neighbours + 1):
        for chunk in gathered:
            if chunk.id not in chosen:
                continue
            at = store.chunks.chunk_ids_at(chunk.doc_id, [chunk.ord - distance, chunk.ord + distance])
            for near in store.chunks.get_chunks([i for i in at.values() if i not in chosen]):
                cost = estimate_tokens(near.text)
                if used + cost <= budget.tokens:
                    chosen[near.id] = near
                    used += cost
    for chunk in store.chunks.get_chunks([i for i in dict.fromkeys(fill) if i not in chosen]):
        cost = estimate_tokens(chunk.text) + 12
        if used + cost <= budget.tokens:
            chosen[chunk.id] = chunk
            used += cost
    return list(chosen.values())


def build_sources(
    chunks: Sequence[ChunkRecord], priority: Sequence[int], documents: dict[int, DocumentRecord], budget_tokens: int
) -> list[Source]:
    """Touching chunks of a document merged into one source; sources numbered by their best priority."""
    rank = {cid: i for i, cid in enumerate(dict.fromkeys(priority))}
    by_doc: dict[int, list[ChunkRecord]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    runs: list[list[ChunkRecord]] = []
    for doc_chunks in by_doc.values():
        doc_chunks.sort(key=lambda c: c.ord)
        run = [doc_chunks[0]]
        for c in doc_chunks[1:]:
            if c.ord == run[-1].ord + 1:
                run.append(c)
            else:
                runs.append(run)
                run = [c]
        runs.append(run)
    runs.sort(key=lambda r: min(rank.get(c.id, len(rank)) for c in r))
    return [_source(n, run, documents[run[0].doc_id], budget_tokens) for n, run in enumerate(runs, start=1)]


def _table_header(chunk: ChunkRecord) -> str:
    """The header row a chunk continuing a table carries in its contextual header (``ingest.tables``), or ""."""
    if not chunk.text.lstrip().startswith("|"):
        return ""
    rows = [line for line in chunk.header.splitlines() if line.strip().startswith("|") and line.strip().endswith("|")]
    return "\n".join(rows)


def _source(number: int, run: Sequence[ChunkRecord], doc: DocumentRecord, budget_tokens: int) -> Source:
    text = "\n".join(c.text for c in run)
    if header := _table_header(run[0]):  # rows of a table begun before this passage: name the columns
        text = f"{header}\n{text}"
    if estimate_tokens(text) > budget_tokens:  # only the first, over-long chunk can be: cut it to fit
        keep = max(MIN_SOURCE_CHARS, int(len(text) * budget_tokens / max(1, estimate_tokens(text))))
        if keep < len(text):
            text = text[:keep] + " …"
    pages = [p for c in run for p in (c.page_start, c.page_end) if p is not None]
    first, last = run[0], run[-1]
    return Source(
        number=number,
        doc_id=doc.id,
        path=doc.path,
        title=doc.title,
        chunk_ids=tuple(c.id for c in run),
        page_start=min(pages) if pages else None,
        page_end=max(pages) if pages else None,
        line_start=first.line_start,
        line_end=last.line_end,
        section=first.section_path,
        text=text,
    )


def assemble(
    store: Store, priority: Sequence[int], budget: Budget, fill: Sequence[int] = (), exclude: Collection[int] = ()
) -> list[Source]:
    """Choose the chunks (gathered + neighbours + fill) within the budget and turn them into numbered sources;
    chunks in ``exclude`` (already read elsewhere) are left out."""
    chunks = [c for c in choose_chunks(store, priority, budget, fill) if c.id not in exclude]
    priority = [*priority, *fill]
    docs: dict[int, DocumentRecord] = {}
    for c in chunks:
        if c.doc_id not in docs:
            doc = store.docs.get_document(c.doc_id)
            if doc is not None:
                docs[c.doc_id] = doc
    return build_sources([c for c in chunks if c.doc_id in docs], priority, docs, budget.tokens)
