"""The store's statements: every value of a document with what it is a value of (``domain/statements.py``), read at
ingest (``ingest/enrich/statements.py``), full-text indexed and embedded.

A part of :class:`~pikelocal.store.store.Store` (``store.statements``). A document's statements are stored with their
full-text rows and its ``statements_read`` mark in one transaction, so a killed run reads a document again or not at
all; their vectors are made afterwards, batch by batch, by whoever finds statements without one (the ingest
pipeline's resume, ``reembed``). Removing a document removes its statements (``ON DELETE CASCADE``; the trigger
``statements_ad`` drops their full-text rows and vectors).

The full-text row holds the subject with the heading (column ``subject``) and the sentence (``sentence``), in the
project's CJK-bigram form (``store/fts.py``); the vector embeds the statement's line, its subject and value
(``ingest/enrich/statements.py``, ``vector_text``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike

from pikelocal.domain.review import Value
from pikelocal.domain.statements import Statement, StatementHit
from pikelocal.store import db
from pikelocal.store.fts import normalize_for_index

if TYPE_CHECKING:
    from pikelocal.store.handle import Db
    from pikelocal.store.index import SearchIndex

_COLS = (
    "id, doc_id, kind, value_text, normal, number, unit, subject, concepts, sentence, heading, page, line_start,"
    " line_end, char_start, char_end, threshold"
)


@dataclass(frozen=True)
class StatementCounts:
    """Statements stored, those still without a vector, and documents whose statements are not read yet."""

    statements: int
    without_vectors: int
    unread_documents: int


class Statements:
    """Statements, their full-text rows and vectors, of one open store."""

    def __init__(self, db: Db, index: SearchIndex) -> None:
        self._db = db
        self._index = index  # the vectors and the full-text search

    # --- writing -------------------------------------------------------------------------------------

    def add(self, doc_id: int, statements: Sequence[Statement]) -> list[int]:
        """Store a document's statements (replacing any it had) with their full-text rows, and mark the document
        read, in one transaction; their ids in order. A document removed meanwhile stores nothing."""
        ids: list[int] = []
        with self._db.transaction():
            if not self._db.rows("SELECT 1 FROM documents WHERE id = ?", (doc_id,)):
                return []
            self._drop(doc_id)
            for s in statements:
                sid = self._db.insert(
                    f"INSERT INTO statements({_COLS.removeprefix('id, ')}) VALUES"
                    " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        doc_id, s.value.kind, s.value.text, s.value.normal, s.value.number, s.value.unit, s.subject,
                        json.dumps(list(s.concepts)), s.sentence, s.heading, s.page, s.line_start, s.line_end,
                        s.char_start, s.char_end, int(s.threshold),
                    ),
                )  # fmt: skip
                self._db.execute(
                    "INSERT INTO statements_fts(rowid, subject, sentence) VALUES (?, ?, ?)",
                    (sid, normalize_for_index(f"{s.subject} {s.heading}"), normalize_for_index(s.sentence)),
                )
                ids.append(sid)
            self._db.execute("UPDATE documents SET statements_read = 1 WHERE id = ?", (doc_id,))
        return ids

    def _drop(self, doc_id: int) -> None:
        """A document's statements with their full-text rows and vectors (one table after another: faster than the
        trigger's row-by-row deletes across the virtual tables)."""
        of_doc = "SELECT id FROM statements WHERE doc_id = ?1"
        self._db.execute(f"DELETE FROM statements_fts WHERE rowid IN ({of_doc})", (doc_id,))
        self._db.execute(f"DELETE FROM statement_vectors WHERE rowid IN ({of_doc})", (doc_id,))
        self._db.execute("DELETE FROM statements WHERE doc_id = ?", (doc_id,))

    def put_vectors(self, ids: Sequence[int], matrix: ArrayLike) -> None:
        """Store one vector per statement id (a statement removed meanwhile is skipped)."""
        self._index.put_vectors("statement", ids, matrix, skip_missing=True)

    # --- what is left to do --------------------------------------------------------------------------

    def unread_documents(self) -> list[int]:
        """Documents whose statements are not stored yet (new ones, or every one of a KB made before them)."""
        return [int(r[0]) for r in self._db.rows("SELECT id FROM documents WHERE statements_read IS NULL ORDER BY id")]

    def without_vectors(self, limit: int = 256) -> list[Statement]:
        """Statements that have no vector yet (after ingest stored them, or ``reembed`` dropped every vector)."""
        rows = self._db.rows(
            f"SELECT {_COLS} FROM statements WHERE id NOT IN (SELECT rowid FROM statement_vectors) ORDER BY id LIMIT ?",
            (int(limit),),
        )
        return [_statement(r) for r in rows]

    def counts(self) -> StatementCounts:
        with self._db.locked() as conn:
            return StatementCounts(
                db.one_int(conn, "SELECT count(*) FROM statements"),
                db.one_int(
                    conn, "SELECT count(*) FROM statements WHERE id NOT IN (SELECT rowid FROM statement_vectors)"
                ),
                db.one_int(conn, "SELECT count(*) FROM documents WHERE statements_read IS NULL"),
            )

    # --- reading -------------------------------------------------------------------------------------

    def of_document(self, doc_id: int) -> list[Statement]:
        """A document's statements in document order."""
        rows = self._db.rows(f"SELECT {_COLS} FROM statements WHERE doc_id = ? ORDER BY char_start, id", (doc_id,))
        return [_statement(r) for r in rows]

    def get(self, ids: Sequence[int]) -> list[Statement]:
        """Statements by id, in the order of ``ids`` (unknown ids are skipped)."""
        rows = self._db.rows(
            f"SELECT {_COLS} FROM statements WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)
        )
        by_id = {int(r[0]): _statement(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def search_fts(self, query: str, k: int, *, doc_ids: Sequence[int] | None = None) -> list[StatementHit]:
        """Statements for ``query`` by BM25 over their subject (with heading) and sentence, best first (score:
        negated BM25, higher is better); only those of ``doc_ids`` when given."""
        return self._hits(self._index.fts_search("statement", query, k, doc_ids=doc_ids), k)

    def knn(self, vector: ArrayLike, k: int, *, doc_ids: Sequence[int] | None = None) -> list[StatementHit]:
        """The statements nearest ``vector`` (a query encoded with ``role="query"``), nearest first (score:
        1 − cosine distance); only those of ``doc_ids`` when given."""
        found = [(i, 1.0 - d) for i, d in self._index.knn("statement", vector, k, doc_ids=doc_ids)]
        return self._hits(found, k)

    def _hits(self, found: Sequence[tuple[int, float]], k: int) -> list[StatementHit]:
        scores = dict(found)
        hits = [StatementHit(s, scores[s.id]) for s in self.get([i for i, _ in found]) if s.id is not None]
        return hits[:k]


def _statement(row: Sequence[Any]) -> Statement:
    (sid, doc_id, kind, text, normal, number, unit, subject, concepts, sentence, heading, page, l0, l1, c0, c1, thr) = (
        row
    )
    value = Value(kind=kind, text=str(text), normal=str(normal), number=number, unit=str(unit))
    return Statement(
        doc_id=int(doc_id), value=value, subject=str(subject), concepts=tuple(json.loads(concepts)),
        sentence=str(sentence), heading=str(heading), page=None if page is None else int(page), line_start=int(l0),
        line_end=int(l1), char_start=int(c0), char_end=int(c1), threshold=bool(thr), id=int(sid),
    )  # fmt: skip
