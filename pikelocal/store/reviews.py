"""The store's document reviews: each checklist item's stored result and the reviewer's marks.

A part of :class:`~pikelocal.store.store.Store` (``store.reviews``). A result is stored as JSON (the review layer owns
its shape, as the query layer owns a trace's), with the KB state it was answered on: a rerun asks again only the
items whose state differs. Marks are appended, never overwritten, so an export can show who changed what when.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pikelocal.store.handle import Db


@dataclass(frozen=True)
class StoredResult:
    checklist: str
    item_id: str
    kb_state: str
    json: str
    answered_at: str


@dataclass(frozen=True)
class StoredMark:
    checklist: str
    item_id: str
    mark: str
    note: str
    at: str


class Reviews:
    """The stored review results and marks of one open store."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def contents_state(self) -> str:
        """A digest of what the KB's documents hold (each document's content hash and ingest stage): it changes
        when a document is added, removed, changed or finishes a stage, and only then."""
        rows = self._db.rows("SELECT sha256, stage FROM documents ORDER BY sha256")
        digest = hashlib.sha256("\n".join(f"{sha} {stage}" for sha, stage in rows).encode())
        return digest.hexdigest()[:16]

    def save_result(self, checklist: str, item_id: str, kb_state: str, payload: str) -> None:
        """Store (or replace) one item's result; one transaction, so a kill leaves the old result or the new."""
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO review_rows(checklist, item_id, kb_state, json) VALUES (?, ?, ?, ?)"
                " ON CONFLICT(checklist, item_id) DO UPDATE SET kb_state = excluded.kb_state, json = excluded.json,"
                " answered_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                (checklist, item_id, kb_state, payload),
            )

    def results(self, checklist: str) -> list[StoredResult]:
        """The stored results of ``checklist``, in no particular order (the checklist orders them)."""
        rows = self._db.rows(
            "SELECT checklist, item_id, kb_state, json, answered_at FROM review_rows WHERE checklist = ?", (checklist,)
        )
        return [StoredResult(*r) for r in rows]

    def checklists(self) -> list[str]:
        """The checklists with stored results."""
        return [str(r[0]) for r in self._db.rows("SELECT DISTINCT checklist FROM review_rows ORDER BY checklist")]

    def add_mark(self, checklist: str, item_id: str, mark: str, note: str) -> StoredMark:
        """Append the reviewer's mark (and note) on an item; the newest one is the item's mark."""
        with self._db.transaction():
            mark_id = self._db.insert(
                "INSERT INTO review_marks(checklist, item_id, mark, note) VALUES (?, ?, ?, ?)",
                (checklist, item_id, mark, note),
            )
            rows = self._db.rows("SELECT checklist, item_id, mark, note, at FROM review_marks WHERE id = ?", (mark_id,))
        return StoredMark(*rows[0])

    def marks(self, checklist: str) -> list[StoredMark]:
        """Every mark made on ``checklist``'s items, oldest first (the audit trail)."""
        rows = self._db.rows(
            "SELECT checklist, item_id, mark, note, at FROM review_marks WHERE checklist = ? ORDER BY id",
            (checklist,),
        )
        return [StoredMark(*r) for r in rows]

    def forget(self, checklist: str) -> int:
        """Drop ``checklist``'s stored results (its marks stay: they are the reviewer's); the number dropped."""
        with self._db.transaction():
            return self._db.execute("DELETE FROM review_rows WHERE checklist = ?", (checklist,))
