"""The store's side of reading documents back: one page's text with its line starts (for a document viewer)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pikelocal.domain.documents import PageRecord

if TYPE_CHECKING:
    from pikelocal.store import db


class PagesMixin:
    if TYPE_CHECKING:
        _conn: db.Connection

        def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def page(self, doc_id: int, page_no: int) -> PageRecord | None:
        rows = self._rows(
            "SELECT text, line_offsets FROM pages WHERE doc_id = ? AND page_no = ?", (int(doc_id), int(page_no))
        )
        if not rows:
            return None
        text, offsets = rows[0]
        return PageRecord(int(doc_id), int(page_no), str(text), tuple(int(o) for o in json.loads(offsets or "[]")))

    def page_numbers(self, doc_id: int) -> list[int]:
        """The document's page numbers in order (pages with no text are still listed)."""
        return [int(r[0]) for r in self._rows("SELECT page_no FROM pages WHERE doc_id = ? ORDER BY page_no", (doc_id,))]

    def page_starts(self, doc_id: int) -> list[tuple[int, int, tuple[int, ...]]]:
        """(page_no, offset of the page in the document's text, line starts within the page), in page order."""
        rows = self._rows(
            "SELECT page_no, char_start, line_offsets FROM pages WHERE doc_id = ? ORDER BY page_no", (int(doc_id),)
        )
        return [(int(p), int(s), tuple(int(o) for o in json.loads(offsets or "[]"))) for p, s, offsets in rows]
