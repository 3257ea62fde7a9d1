"""The store's query traces: what each answered question retrieved and why, kept for ``pikelocal trace``.

A part of :class:`~pikelocal.store.store.Store` (``store.traces``). A trace is stored as JSON (the query layer
owns its shape), so the store never needs to know the answering types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pikelocal.store.handle import Db


@dataclass(frozen=True)
class TraceRow:
    id: int
    question: str
    created_at: str
    json: str


class Traces:
    """The stored query traces of one open store."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def save_trace(self, question: str, payload: str) -> int:
        with self._db.transaction():
            return self._db.insert("INSERT INTO traces(question, json) VALUES (?, ?)", (question, payload))

    def get_trace(self, trace_id: int | None = None) -> TraceRow | None:
        """One stored trace; the newest when ``trace_id`` is None."""
        if trace_id is None:
            rows = self._db.rows("SELECT id, question, created_at, json FROM traces ORDER BY id DESC LIMIT 1")
        else:
            rows = self._db.rows("SELECT id, question, created_at, json FROM traces WHERE id = ?", (trace_id,))
        return TraceRow(*rows[0]) if rows else None

    def trace_rows(self, limit: int) -> list[TraceRow]:
        """The newest ``limit`` stored traces, newest first."""
        rows = self._db.rows("SELECT id, question, created_at, json FROM traces ORDER BY id DESC LIMIT ?", (limit,))
        return [TraceRow(*r) for r in rows]
