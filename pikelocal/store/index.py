"""The store's search index: the vector tables (sqlite-vec) with their KNN, and the FTS5 full-text tables.

A part of :class:`~pikelocal.store.store.Store` (``store.index``). Vectors are keyed by the id of the chunk
(``chunk``: early, ``late``: late-chunking) or atomic question (``question``) they embed; the FTS rows are
written with their chunks and questions (:mod:`pikelocal.store.chunks`) and searched here. ``reembed`` drops
every vector at once (:meth:`SearchIndex.reset_vectors`) and resumes like an interrupted ingestion.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from pikelocal.store import db, schema, vectors
from pikelocal.store.fts import build_match_query, is_cjk_sentence

if TYPE_CHECKING:
    from pikelocal.store.handle import Db

VectorTable = Literal["chunk", "late", "question", "entity", "summary", "triple", "statement"]
_OWNER = {
    "chunk": "chunks",
    "late": "chunks",
    "question": "questions",
    "entity": "entities",
    "summary": "summary_nodes",
    "triple": "triples",
    "statement": "statements",
}
# Above this many rows a table with sign bits (schema.BIT_TABLES) is searched through them: hamming KNN for
# k x BIT_OVERSAMPLE candidates, re-scored by cosine. Below it the exact scan is fast anyway (< 40 ms).
BIT_SCAN_MIN_ROWS = 20_000
BIT_OVERSAMPLE = 8
FtsTable = Literal["chunk", "question", "summary", "statement"]
# The ids of each table's rows that belong to some documents (a JSON list bound as the one parameter): what a search
# limited to those documents ranks among. The entity graph's tables span documents and have none.
_OF_DOCUMENTS = {
    "chunk": "SELECT id FROM chunks WHERE doc_id IN (SELECT value FROM json_each(?))",
    "late": "SELECT id FROM chunks WHERE doc_id IN (SELECT value FROM json_each(?))",
    "question": "SELECT q.id FROM questions q JOIN chunks c ON c.id = q.chunk_id"
    " WHERE c.doc_id IN (SELECT value FROM json_each(?))",
    "summary": "SELECT id FROM summary_nodes WHERE doc_id IN (SELECT value FROM json_each(?))",
    "statement": "SELECT id FROM statements WHERE doc_id IN (SELECT value FROM json_each(?))",
}
_FTS_RANK = {  # a chunk's header counts half, a statement's sentence half (its subject stands in it too)
    "chunk": "bm25(chunks_fts, 0.5, 1.0)",
    "question": "bm25(questions_fts)",
    "summary": "bm25(summaries_fts)",
    "statement": "bm25(statements_fts, 1.0, 0.5)",
}


class SearchIndex:
    """Vectors and full-text search of one open store."""

    def __init__(self, db: Db, dim: int) -> None:
        self._db = db
        self._dim = dim  # the KB's encoder dimension (kb_meta.encoder_dim)

    # --- vectors -------------------------------------------------------------------------------------

    def put_vectors(
        self, table: VectorTable, ids: Sequence[int], matrix: ArrayLike, *, skip_missing: bool = False
    ) -> None:
        """Store (or replace) one vector per id; ``ids`` are chunk ids (chunk, late), question or entity ids.

        An id with no chunk/question is an error, unless ``skip_missing`` (ingestion: another process may
        have removed the document while its vectors were being computed).
        """
        name = schema.VECTOR_TABLES[table]
        dim = self._dim
        mat = np.asarray(matrix, dtype=np.float32)
        if mat.ndim != 2 or mat.shape != (len(ids), dim):
            raise ValueError(f"expected a ({len(ids)}, {dim}) matrix for {name}, got {mat.shape}")
        owner = _OWNER[table]
        with self._db.transaction():
            missing = self._db.rows(
                f"SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM {owner})",
                (json.dumps([int(i) for i in ids]),),
            )
            if missing and not skip_missing:
                raise ValueError(f"no {owner} with ids {[m[0] for m in missing[:5]]}")
            gone = {db.int_of(m[0]) for m in missing}
            keep = [k for k, i in enumerate(ids) if int(i) not in gone]
            ids, mat = [ids[k] for k in keep], mat[keep]
            # vec0 has no upsert: delete first so re-embedding replaces.
            self._db.executemany(f"DELETE FROM {name} WHERE rowid = ?", [(int(i),) for i in ids])
            self._db.executemany(
                f"INSERT INTO {name}(rowid, embedding) VALUES (?, ?)",
                [(int(i), vectors.float32_blob(row)) for i, row in zip(ids, mat, strict=True)],
            )
            bits = self._bit_table(table)
            if bits is not None:
                self._db.executemany(f"DELETE FROM {bits} WHERE rowid = ?", [(int(i),) for i in ids])
                self._db.executemany(
                    f"INSERT INTO {bits}(rowid, embedding) VALUES (?, vec_bit(?))",
                    [(int(i), vectors.bit_blob(row)) for i, row in zip(ids, mat, strict=True)],
                )

    def _bit_table(self, table: VectorTable) -> str | None:
        """The sign-bit copy of ``table``, if it has one in this KB."""
        return schema.BIT_TABLES.get(table) if schema.has_bit_tables(self._dim) else None

    def vector(self, table: VectorTable, row_id: int) -> np.ndarray | None:
        """The stored vector of a chunk (chunk, late) or question, or None when it has none."""
        rows = self._db.rows(f"SELECT embedding FROM {schema.VECTOR_TABLES[table]} WHERE rowid = ?", (row_id,))
        return np.frombuffer(rows[0][0], dtype=np.float32).copy() if rows else None

    def knn(
        self, table: VectorTable, query_vector: ArrayLike, k: int, *, doc_ids: Sequence[int] | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` nearest ids by cosine distance (0 = same direction), nearest first; with ``doc_ids``, the ``k``
        nearest among those documents' rows (an exact scan of their vectors alone, so a document far down the whole
        KB's ranking still gets its ``k``).

        Exact, except on a large table with sign bits (more than :data:`BIT_SCAN_MIN_ROWS` rows): there the
        candidates come from the bits and only they are re-scored (see :func:`vectors.knn_binary_rescore`)."""
        dim = self._dim
        q = np.asarray(query_vector, dtype=np.float32)
        if q.shape != (dim,):
            raise ValueError(f"expected a ({dim},) query vector, got {q.shape}")
        floats, bits = schema.VECTOR_TABLES[table], self._bit_table(table)
        if doc_ids is not None:
            return self._knn_within(table, q, k, doc_ids)
        with self._db.locked() as conn:
            if bits is not None and self._size_at_least(table, BIT_SCAN_MIN_ROWS):
                return vectors.knn_binary_rescore(
                    conn, bit_table=bits, float_table=floats, query=q, k=k, oversample=BIT_OVERSAMPLE
                )
            return vectors.knn(conn, floats, q, k)

    def _knn_within(self, table: VectorTable, q: np.ndarray, k: int, doc_ids: Sequence[int]) -> list[tuple[int, float]]:
        """The ``k`` nearest of the rows of ``doc_ids`` only: their float vectors scanned and ranked exactly."""
        if table not in _OF_DOCUMENTS:
            raise ValueError(f"{table} vectors are not kept per document")
        if k <= 0 or not doc_ids:
            return []
        floats = schema.VECTOR_TABLES[table]
        rows = self._db.rows(
            f"SELECT rowid, vec_distance_cosine(embedding, ?) AS d FROM {floats}"
            f" WHERE rowid IN ({_OF_DOCUMENTS[table]}) ORDER BY d, rowid LIMIT ?",
            (vectors.float32_blob(q), json.dumps([int(d) for d in doc_ids]), int(k)),
        )
        return [(int(i), float(d)) for i, d in rows]

    def has_vectors(self, table: VectorTable) -> bool:
        """Whether ``table`` holds any vector (a KB built with ``ingest.late = false`` has no late ones)."""
        return bool(self._db.rows(f"SELECT 1 FROM {schema.VECTOR_TABLES[table]} LIMIT 1"))

    def _size_at_least(self, table: VectorTable, rows: int) -> bool:
        """Whether the owner table of ``table`` has ids beyond ``rows`` (cheap: the primary key's last entry)."""
        with self._db.locked() as conn:
            return db.one_int(conn, f"SELECT coalesce(max(id), 0) FROM {_OWNER[table]}") > rows

    def chunk_ids_without(self, table: VectorTable, doc_id: int) -> list[int]:
        """Chunk ids of a document that have no row yet in vector table ``table`` (for resuming)."""
        name = schema.VECTOR_TABLES[table]
        rows = self._db.rows(
            f"SELECT id FROM chunks WHERE doc_id = ? AND NOT EXISTS (SELECT 1 FROM {name} v WHERE v.rowid = chunks.id)"
            " ORDER BY ord",
            (doc_id,),
        )
        return [int(r[0]) for r in rows]

    def questions_without_vectors(self, limit: int = 256) -> list[tuple[int, str]]:
        """(id, text) of atomic questions that have no vector (after :meth:`reset_vectors`)."""
        rows = self._db.rows(
            "SELECT id, text FROM questions WHERE id NOT IN (SELECT rowid FROM question_vectors) ORDER BY id LIMIT ?",
            (int(limit),),
        )
        return [(int(i), str(t)) for i, t in rows]

    # --- re-embedding --------------------------------------------------------------------------------

    def reset_vectors(self, probes: Mapping[str, Any]) -> None:
        """Drop every stored vector, mark every document 'parsed' and record the new encoder's ``probes``, in one
        transaction (``reembed``): the vectors are then computed again as a resumed ingestion computes them.
        ``kb_meta.reembed_pending`` stays true until :meth:`finish_reembed`, so a killed run is not reset twice."""
        with self._db.transaction():
            for name in schema.VECTOR_TABLES.values():
                self._db.execute(f"DELETE FROM {name}")
            if schema.has_bit_tables(self._dim):
                for bits in schema.BIT_TABLES.values():
                    self._db.execute(f"DELETE FROM {bits}")
            self._db.execute("UPDATE documents SET stage = 'parsed' WHERE stage IN ('embedded', 'ready')")
            self._db.set_meta("encoder_probes", dict(probes))
            self._db.set_meta("reembed_pending", True)

    def finish_reembed(self) -> None:
        self._db.set_meta("reembed_pending", False)

    # --- full text -----------------------------------------------------------------------------------

    def fts_search(
        self,
        table: FtsTable,
        query: str,
        k: int,
        *,
        require_all: bool = False,
        exact_phrases: bool | None = None,
        doc_ids: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """Full-text hits as (id, score), best first; score = -bm25, so higher is better. With ``doc_ids``, only
        those documents' rows are matched and ranked (the restriction is in the query, so the ``k`` best of them
        come back however many other documents outrank them).

        See :func:`pikelocal.store.fts.build_match_query` for ``require_all`` and ``exact_phrases``; None
        chooses: exact phrases for terms, bigrams for a Chinese sentence (:func:`is_cjk_sentence`).
        """
        if exact_phrases is None:
            exact_phrases = not is_cjk_sentence(query)
        match = build_match_query(query, require_all=require_all, exact_phrases=exact_phrases)
        if match is None or k <= 0:
            return []
        name, rank = schema.FTS_TABLES[table], _FTS_RANK[table]
        if doc_ids is not None:
            rows = self._db.rows(
                f"SELECT rowid, {rank} AS r FROM {name} WHERE {name} MATCH ?"
                f" AND rowid IN ({_OF_DOCUMENTS[table]}) ORDER BY r LIMIT ?",
                (match, json.dumps([int(d) for d in doc_ids]), k),
            )
            return [(int(i), -float(r)) for i, r in rows]
        rows = self._db.rows(
            f"SELECT rowid, {rank} AS r FROM {name} WHERE {name} MATCH ? ORDER BY r LIMIT ?", (match, k)
        )
        return [(int(i), -float(r)) for i, r in rows]
