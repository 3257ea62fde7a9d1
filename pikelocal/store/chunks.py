"""The store's chunks (the retrieval units of each document) and the atomic questions asked of them.

A part of :class:`~pikelocal.store.store.Store` (``store.chunks``). Each chunk and each question is inserted
with its full-text row in the same transaction, so the FTS index never lags the rows it indexes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pikelocal.domain.documents import ChunkRecord, NewChunk, NewQuestion
from pikelocal.store.fts import normalize_for_index

if TYPE_CHECKING:
    from pikelocal.store.handle import Db

_CHUNK_COLS = (
    "id, doc_id, ord, text, char_start, char_end, page_start, page_end, line_start, line_end,"
    " section_path, header, summary, context"
)


class Chunks:
    """Chunks and atomic questions of one open store."""

    def __init__(self, db: Db) -> None:
        self._db = db

    # --- chunks --------------------------------------------------------------------------------------

    def add_chunks(self, doc_id: int, chunks: Sequence[NewChunk]) -> list[int]:
        """Insert chunks and their FTS rows in one transaction; returns the new chunk ids in order."""
        ids: list[int] = []
        with self._db.transaction():
            for c in chunks:
                cid = self._db.insert(
                    "INSERT INTO chunks(doc_id, ord, char_start, char_end, page_start, page_end, line_start,"
                    " line_end, section_path, header, text, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc_id, c.ord, c.char_start, c.char_end, c.page_start, c.page_end, c.line_start,
                     c.line_end, json.dumps(list(c.section_path), ensure_ascii=False), c.header, c.text,
                     c.summary),
                )  # fmt: skip
                self._db.execute(
                    "INSERT INTO chunks_fts(rowid, header, text) VALUES (?, ?, ?)",
                    (cid, normalize_for_index(c.header), normalize_for_index(c.text)),
                )
                ids.append(cid)
        return ids

    def chunks_of(self, doc_id: int) -> list[ChunkRecord]:
        rows = self._db.rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? ORDER BY ord", (doc_id,))
        return [_chunk(r) for r in rows]

    def get_chunks(self, ids: Sequence[int]) -> list[ChunkRecord]:
        """Chunks by id, in the order of ``ids`` (unknown ids are skipped)."""
        rows = self._db.rows(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)
        )
        by_id = {r[0]: _chunk(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def section_count(self) -> int:
        """Distinct sections (a document's section path) that hold at least one chunk."""
        rows = self._db.rows(
            "SELECT count(*) FROM (SELECT DISTINCT doc_id, section_path FROM chunks WHERE section_path != '[]')"
        )
        return int(rows[0][0])

    def chunk_counts(self) -> dict[int, int]:
        """Number of chunks per document id."""
        return {int(d): int(n) for d, n in self._db.rows("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id")}

    def unpaged_documents(self) -> set[int]:
        """Ids of the documents stored without pages: their chunks cite none (their one stored page is no page)."""
        rows = self._db.rows(
            "SELECT d.id FROM documents d JOIN chunks c ON c.doc_id = d.id AND c.ord = 0 WHERE c.page_start IS NULL"
        )
        return {int(r[0]) for r in rows}

    def chunk_owners(self) -> dict[int, int]:
        """chunk id → document id, for every chunk."""
        return {int(c): int(d) for c, d in self._db.rows("SELECT id, doc_id FROM chunks")}

    def chunk_ids_at(self, doc_id: int, ords: Sequence[int]) -> dict[int, int]:
        """ord → chunk id for the given positions of one document (positions past either end are left out)."""
        rows = self._db.rows(
            "SELECT ord, id FROM chunks WHERE doc_id = ? AND ord IN (SELECT value FROM json_each(?))",
            (doc_id, json.dumps([int(o) for o in ords])),
        )
        return {int(o): int(i) for o, i in rows}

    # --- atomic questions ----------------------------------------------------------------------------

    def add_questions(self, questions: Sequence[NewQuestion]) -> list[int]:
        ids: list[int] = []
        with self._db.transaction():
            for q in questions:
                qid = self._db.insert(
                    "INSERT INTO questions(chunk_id, text, lang) VALUES (?, ?, ?)", (q.chunk_id, q.text, q.lang)
                )
                self._db.execute(
                    "INSERT INTO questions_fts(rowid, text) VALUES (?, ?)", (qid, normalize_for_index(q.text))
                )
                ids.append(qid)
        return ids

    def questions_of(self, chunk_id: int) -> list[str]:
        return [r[0] for r in self._db.rows("SELECT text FROM questions WHERE chunk_id = ? ORDER BY id", (chunk_id,))]

    def question_texts(self, question_ids: Sequence[int]) -> dict[int, tuple[int, str]]:
        """question id → (chunk id, question text)."""
        rows = self._db.rows(
            "SELECT id, chunk_id, text FROM questions WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps([int(i) for i in question_ids]),),
        )
        return {int(q): (int(c), str(t)) for q, c, t in rows}

    def question_chunks(self, question_ids: Sequence[int]) -> dict[int, int]:
        """question id → chunk id."""
        rows = self._db.rows(
            "SELECT id, chunk_id FROM questions WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps([int(i) for i in question_ids]),),
        )
        return {int(q): int(c) for q, c in rows}

    def question_ids(self) -> list[int]:
        return [int(r[0]) for r in self._db.rows("SELECT id FROM questions ORDER BY id")]

    def question_count(self) -> int:
        return int(self._db.rows("SELECT count(*) FROM questions")[0][0])


def _chunk(row: tuple[Any, ...]) -> ChunkRecord:
    """A row of ``SELECT {_CHUNK_COLS}`` as a record (section_path is stored as a JSON list)."""
    (id_, doc_id, ord_, text, char_start, char_end, page_start, page_end, line_start, line_end,
     section_path, header, summary, context) = row  # fmt: skip
    return ChunkRecord(
        id_, doc_id, ord_, text, char_start, char_end, page_start, page_end, line_start, line_end,
        tuple(json.loads(section_path)), header, summary, context,
    )  # fmt: skip
