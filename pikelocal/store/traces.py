"""The store's side of answering: neighbouring chunks, atomic question texts, and the stored query traces.

A mixin of :class:`~pikelocal.store.store.Store`. A trace is stored as JSON (the query layer owns its shape), so
the store never needs to know the answering types.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pikelocal.domain.documents import ChunkRecord

if TYPE_CHECKING:
    from pikelocal.store import db


@dataclass(frozen=True)
class TraceRow:
    id: int
    question: str
    created_at: str
    json: str


class AnswersMixin:
    if TYPE_CHECKING:
        _conn: db.Connection

        def transaction(self) -> AbstractContextManager[None]: ...
        def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...
        def get_chunks(self, ids: Sequence[int]) -> list[ChunkRecord]: ...

    def chunk_ids_at(self, doc_id: int, ords: Sequence[int]) -> dict[int, int]:
        """ord → chunk id for the given positions of one document (positions past either end are left out)."""
        rows = self._rows(
            "SELECT ord, id FROM chunks WHERE doc_id = ? AND ord IN (SELECT value FROM json_each(?))",
            (doc_id, json.dumps([int(o) for o in ords])),
        )
        return {int(o): int(i) for o, i in rows}

    def question_texts(self, question_ids: Sequence[int]) -> dict[int, tuple[int, str]]:
        """question id → (chunk id, question text)."""
        rows = self._rows(
            "SELECT id, chunk_id, text FROM questions WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps([int(i) for i in question_ids]),),
        )
        return {int(q): (int(c), str(t)) for q, c, t in rows}

    def question_count(self) -> int:
        return int(self._rows("SELECT count(*) FROM questions")[0][0])

    def save_trace(self, question: str, payload: str) -> int:
        with self.transaction():
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
