"""Where a span of a source stands in its document: the page and lines of one sentence, from the KB."""

from __future__ import annotations

from pikelocal.domain.answers import Source
from pikelocal.query.verify.support import Locator, position_in_pages
from pikelocal.store.store import Store


def store_locator(store: Store) -> Locator:
    """A :data:`Locator` reading chunk offsets and page line starts from ``store`` (each document read once)."""
    pages: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}

    def locate(source: Source, start: int, end: int) -> tuple[int | None, int | None, int | None, int | None] | None:
        chunks = sorted(store.chunks.get_chunks(list(source.chunk_ids)), key=lambda c: c.ord)
        if not chunks:
            return None
        if source.doc_id not in pages:
            pages[source.doc_id] = store.docs.page_starts(source.doc_id)
        layout = pages[source.doc_id]
        if not layout:
            return None
        text = source.text
        while end > start + 1 and text[end - 1].isspace():
            end -= 1
        while start < end - 1 and text[start].isspace():
            start += 1

        def doc_offset(at: int) -> int:
            offset = 0
            for chunk in chunks:  # the source's text is its chunks' texts joined by "\n"
                length = len(chunk.text)
                if at <= offset + length:
                    return chunk.char_start + max(0, at - offset)
                offset += length + 1
            return chunks[-1].char_end

        first, last = source.whole_offset(start), source.whole_offset(max(start, end - 1))
        p0, l0 = position_in_pages(layout, doc_offset(first))
        p1, l1 = position_in_pages(layout, doc_offset(last))
        if source.page_start is None:  # an unpaged document: its one stored page is no page to cite
            return None, None, l0, l1
        return p0, p1, l0, l1

    return locate
