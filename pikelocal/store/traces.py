"""The store's query traces: what each answered question retrieved and why, kept for ``pikelocal trace``.

A part of :class:`~pikelocal.store.store.Store` (``store.traces``). A trace is stored as JSON (the query layer
owns its shape), so the store never needs to know the answering types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pikelocal.store.store import Store


@dataclass(frozen=True)
class TraceRow:
    id: int
    question: str
    created_at: str
    json: str


class Traces:
    """The stored query traces of one open store."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._conn = store._conn  # written only inside the store's transaction (which holds its lock)
        self._rows = store._rows

    def save_trace(self, question: str, payload: str) -> int:
        with self._store.transaction():
            self._conn.execute("INSERT INTO traces(question, json) VALUES (?, ?)", (question, payload))
            return int(self._conn.last_insert_rowid())

    def get_trace(self, trace_id: int | None = None) -> TraceRow | None:
        """One stored trace; the newest when ``trace_id`` is None."""
        if trace_id is None:
            rows = self._rows("SELECT id, question, created_at, json FROM traces ORDER BY id DESC LIMIT 1")
        else:
            rows = self._rows("SELECT id, question, created_at, json FROM traces WHERE id = ?", (trace_id,))
        return TraceRow(*rows[0]) if rows else None

    def trace_rows(self, limit: int) -> list[TraceRow]:
        """The newest ``limit`` stored traces, newest first."""
        rows = self._rows("SELECT id, question, created_at, json FROM traces ORDER BY id DESC LIMIT ?", (limit,))
        return [TraceRow(*r) for r in rows]
