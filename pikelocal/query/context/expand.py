"""Context assembly: the chunks worth reading, within a token budget, as numbered sources.

Two ways, set by ``answer.context``. ``segments`` (the default): relevant segment extraction
(``query.context.segments``, after dsRAG) values every chunk of the ranking and takes the best runs of consecutive
chunks, a chunk the ranking did not find costing something, so a run spans a weak chunk between two good ones but does
not grow for nothing. ``neighbours``: the gathered chunks in priority order (the most useful first) while the budget
lasts, then their neighbours (±1, ±2, …). Either way the first chunk is always kept (cut to the budget when it alone is
larger), and chunks of one document that touch are merged into one source, rebuilt in document order under one heading,
so the model reads a passage as it stands in the document instead of fragments.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Source
from pikelocal.domain.documents import ChunkRecord, DocumentRecord
from pikelocal.domain.kinds import AnswerContext
from pikelocal.domain.search import Segment, SegmentCell
from pikelocal.query.context.segments import (
    DEFAULT_PRESET,
    PRESETS,
    SegmentParams,
    best_segments,
    chunk_values,
    top_documents,
    unranked_value,
    window_ords,
)
from pikelocal.store.store import Store
from pikelocal.text.lang import cjk_count

MIN_SOURCE_CHARS = 80  # an over-long first chunk is cut to the budget, but never below this
SOURCE_OVERHEAD_TOKENS = 12  # a source's "[n] heading" line, counted once per gathered chunk or segment
Ranking = Sequence[tuple[int, float | None]]  # chunk ids, best first, with their scores (None: the rank alone)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: one token per Chinese character, one per four other characters."""
    cjk = cjk_count(text)
    return cjk + (len(text) - cjk + 3) // 4


@dataclass(frozen=True)
class Budget:
    """How much context, and how it is chosen."""

    tokens: int  # for the sources' text, headings included
    neighbours: int = 1  # neighbours: how far on each side of a gathered chunk to add context
    context: AnswerContext = "neighbours"
    segments: SegmentParams = PRESETS[DEFAULT_PRESET]  # segments: RSE's parameters


def choose_chunks(store: Store, priority: Sequence[int], budget: Budget, fill: Sequence[int] = ()) -> list[ChunkRecord]:
    """The gathered chunks (in ``priority`` order), then their neighbours, then ``fill``, as many as fit the budget.

    The first chunk is always kept, cut to the budget when it alone is larger.
    """
    gathered = store.chunks.get_chunks(list(dict.fromkeys(priority)))
    chosen: dict[int, ChunkRecord] = {}
    used = 0
    for chunk in gathered:
        cost = estimate_tokens(chunk.text) + SOURCE_OVERHEAD_TOKENS
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
        cost = estimate_tokens(chunk.text) + SOURCE_OVERHEAD_TOKENS
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
    """The header row a chunk continuing a table carries in its contextual header (``ingest.read.tables``), or ""."""
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


def find_segments(
    store: Store,
    ranking: Ranking,
    tokens: int,
    params: SegmentParams,
    *,
    keep: int | None = None,
    exclude: Collection[int] = (),
) -> list[Segment]:
    """The relevant segments of ``ranking`` within ``tokens``, best first (the one holding ``keep`` first); chunks in
    ``exclude`` (already read elsewhere) are left out and break the runs they sit in."""
    values = chunk_values(ranking, params)
    wanted = [*values, *([keep] if keep is not None and keep not in values else [])]
    ranked = {c.id: c for c in store.chunks.get_chunks(wanted)}
    order = [ranked[cid] for cid in values if cid in ranked]
    docs = top_documents([c.doc_id for c in order], params)
    kept = ranked.get(keep) if keep is not None and keep not in exclude else None
    if kept is not None and kept.doc_id not in docs:
        docs.append(kept.doc_id)
    chunks: dict[tuple[int, int], ChunkRecord] = {}
    for doc_id in docs:
        here = {c.ord: c for c in ranked.values() if c.doc_id == doc_id}
        window = [o for o in window_ords(list(here), params.max_length) if o not in here]
        between = store.chunks.chunk_ids_at(doc_id, window) if window else {}
        for c in [*here.values(), *store.chunks.get_chunks(list(between.values()))]:
            if c.id not in exclude:
                chunks[(c.doc_id, c.ord)] = c
    unranked = unranked_value(params)
    cells = [SegmentCell(c.doc_id, c.ord, values.get(c.id, unranked), estimate_tokens(c.text)) for c in chunks.values()]
    place = (kept.doc_id, kept.ord) if kept is not None else None
    spans = best_segments(cells, params, tokens, overhead=SOURCE_OVERHEAD_TOKENS, keep=place)
    rank = {cid: n for n, cid in enumerate(values, start=1)}
    documents: dict[int, DocumentRecord | None] = {}
    segments = []
    for span in spans:
        if span.doc_id not in documents:
            documents[span.doc_id] = store.docs.get_document(span.doc_id)
        doc = documents[span.doc_id]
        if doc is None:  # removed meanwhile
            continue
        run = tuple(chunks[(span.doc_id, o)] for o in range(span.first_ord, span.last_ord + 1))
        segments.append(
            Segment(doc, run, tuple(values.get(c.id, unranked) for c in run), tuple(rank.get(c.id) for c in run))
        )
    return segments


def assemble(
    store: Store,
    priority: Sequence[int],
    budget: Budget,
    fill: Sequence[int] = (),
    exclude: Collection[int] = (),
    *,
    ranking: Ranking | None = None,
    first_only: bool = False,
) -> list[Source]:
    """The chosen chunks within the budget as numbered sources; chunks in ``exclude`` (already read elsewhere) are
    left out.

    neighbours: the gathered chunks (``priority``), their neighbours, then ``fill``. segments: the segments of
    ``ranking`` (default: ``priority`` then ``fill`` by rank alone), the one holding the first chunk first, only
    that one when ``first_only``. Sources are numbered by the best-ranked chunk they hold.
    """
    if budget.context == "segments":
        return _segment_sources(store, priority, budget, fill, exclude, ranking, first_only)
    chunks = [c for c in choose_chunks(store, priority, budget, fill) if c.id not in exclude]
    priority = [*priority, *fill]
    docs: dict[int, DocumentRecord] = {}
    for c in chunks:
        if c.doc_id not in docs:
            doc = store.docs.get_document(c.doc_id)
            if doc is not None:
                docs[c.doc_id] = doc
    return build_sources([c for c in chunks if c.doc_id in docs], priority, docs, budget.tokens)


def _segment_sources(
    store: Store,
    priority: Sequence[int],
    budget: Budget,
    fill: Sequence[int],
    exclude: Collection[int],
    ranking: Ranking | None,
    first_only: bool,
) -> list[Source]:
    order = list(ranking) if ranking is not None else [(cid, None) for cid in [*priority, *fill]]
    keep = priority[0] if priority else (order[0][0] if order else None)
    found = find_segments(store, order, budget.tokens, budget.segments, keep=keep, exclude=exclude)
    found = found[:1] if first_only else found
    docs = {s.document.id: s.document for s in found}
    numbering = [*priority, *fill, *(cid for cid, _ in order)]
    return build_sources([c for s in found for c in s.chunks], numbering, docs, budget.tokens)
