"""The store's marks on the rows of the review views: the reviewer's mark and note on a rejection risk, a requirement
or a timeline entry.

A part of :class:`~pikelocal.store.store.Store` (``store.view_marks``). The views are found again, without the
model, each time they are asked for, so a mark is kept under the row's stable id (``review/view_rows.py``) and its
document: the same row found again gets it back, and removing the document removes its marks (the foreign key
cascades). Marks are appended, never overwritten, as the checklist's are (``store/reviews.py``): the newest is the
row's mark, the others its history.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pikelocal.store.handle import Db

_COLUMNS = "view, row_id, doc_id, mark, note, at"


@dataclass(frozen=True)
class StoredViewMark:
    view: str
    row_id: str
    doc_id: int
    mark: str
    note: str
    at: str


class ViewMarks:
    """The marks on the views' rows of one open store."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def add(self, view: str, row_id: str, doc_id: int, mark: str, note: str) -> StoredViewMark:
        """Append the reviewer's mark (and note) on a row of ``view`` from document ``doc_id``; the newest one is
        the row's mark."""
        with self._db.transaction():
            mark_id = self._db.insert(
                "INSERT INTO view_marks(view, row_id, doc_id, mark, note) VALUES (?, ?, ?, ?, ?)",
                (view, row_id, doc_id, mark, note),
            )
            rows = self._db.rows(f"SELECT {_COLUMNS} FROM view_marks WHERE id = ?", (mark_id,))
        return StoredViewMark(*rows[0])

    def newest(self, view: str) -> dict[str, StoredViewMark]:
        """Each marked row of ``view`` (by row id) with its newest mark."""
        rows = self._db.rows(
            f"SELECT {_COLUMNS} FROM view_marks WHERE id IN"
            " (SELECT max(id) FROM view_marks WHERE view = ? GROUP BY row_id)",
            (view,),
        )
        return {str(r[1]): StoredViewMark(*r) for r in rows}

    def history(self, view: str, row_id: str | None = None) -> list[StoredViewMark]:
        """Every mark made on ``view``'s rows (or on one row), oldest first."""
        if row_id is None:
            rows = self._db.rows(f"SELECT {_COLUMNS} FROM view_marks WHERE view = ? ORDER BY id", (view,))
        else:
            rows = self._db.rows(
                f"SELECT {_COLUMNS} FROM view_marks WHERE view = ? AND row_id = ? ORDER BY id", (view, row_id)
            )
        return [StoredViewMark(*r) for r in rows]
