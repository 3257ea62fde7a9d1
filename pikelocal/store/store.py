"""The knowledge base as one SQLite file: the one concrete ``Store`` class every layer above uses.

One connection per Store, guarded by a re-entrant lock, so a Store may be shared between threads (LLM
cache writes come from several). Write transactions are ``BEGIN IMMEDIATE`` (in WAL mode a deferred
transaction that upgrades to a write can fail with SQLITE_BUSY without waiting). Callers must not run an
LLM call inside :meth:`Store.transaction`: the lock would stall every other thread meanwhile.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike

from pikelocal import __version__
from pikelocal.domain import CachedCompletion
from pikelocal.domain.documents import ChunkRecord, DocumentRecord, FailureRecord, NewChunk, NewPage, NewQuestion
from pikelocal.domain.errors import EncoderMismatchError, InputError, StoreError
from pikelocal.embed.probes import ProbeEncoder
from pikelocal.store import checks, db, schema, vectors
from pikelocal.store.traces import AnswersMixin
from pikelocal.store.enrichment import EnrichmentMixin
from pikelocal.store.fts import FTS_NORMALIZER_VERSION, build_match_query, is_cjk_sentence, normalize_for_index
from pikelocal.store.pages import PagesMixin
from pikelocal.store.probe_check import check_probes

logger = logging.getLogger(__name__)

VectorTable = Literal["chunk", "late", "question"]
FtsTable = Literal["chunk", "question"]
_DOC_COLS = "id, path, sha256, title, summary, kind, n_pages, stage, error, added_at, updated_at"
_CHUNK_COLS = (
    "id, doc_id, ord, text, char_start, char_end, page_start, page_end, line_start, line_end,"
    " section_path, header, summary"
)
_CHUNKS_OF = "SELECT id FROM chunks WHERE doc_id = ?1"
_QUESTIONS_OF = f"SELECT id FROM questions WHERE chunk_id IN ({_CHUNKS_OF})"
_DELETE_INDEX_ROWS = (
    f"DELETE FROM chunk_vectors WHERE rowid IN ({_CHUNKS_OF})",
    f"DELETE FROM late_vectors WHERE rowid IN ({_CHUNKS_OF})",
    f"DELETE FROM chunks_fts WHERE rowid IN ({_CHUNKS_OF})",
    f"DELETE FROM question_vectors WHERE rowid IN ({_QUESTIONS_OF})",
    f"DELETE FROM questions_fts WHERE rowid IN ({_QUESTIONS_OF})",
)
_FTS_RANK = {"chunk": "bm25(chunks_fts, 0.5, 1.0)", "question": "bm25(questions_fts)"}  # header counts half


class Store(EnrichmentMixin, AnswersMixin, PagesMixin):
    """An open KB file. Create with :meth:`open` or :meth:`open_existing`; use as a context manager."""

    def __init__(self, conn: db.Connection, path: Path, *, readonly: bool) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self._lock = threading.RLock()
        self._depth = 0  # transaction nesting; > 1 uses savepoints
        self._closed = False
        meta = self.meta()
        self.encoder_id: str = str(meta.get("encoder_id", ""))
        self.dim: int = int(meta.get("encoder_dim", 0))

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        encoder_id: str,
        dim: int,
        settings: Mapping[str, Any] | None = None,
        create: bool = True,
        probe: ProbeEncoder | None = None,
        force: bool = False,
    ) -> Store:
        """Open the KB at ``path`` for writing, creating it (or filling an empty file) when ``create``.

        Raises EncoderMismatchError when the KB was built with another encoder or dimension. With ``probe`` (the
        encoder about to be used), also EncoderNumericsError when that encoder's probe vectors disagree with the
        ones the KB recorded (``probe_check``); ``force`` downgrades that to a warning.
        """
        path = Path(path)
        if not create and not path.exists():
            raise StoreError(f"{path} does not exist")
        conn = db.connect(path)
        new_kb = schema.NewKB(
            dim=dim,
            meta={
                "encoder_id": encoder_id,
                "encoder_dim": dim,
                "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                "pikelocal_version": __version__,
                "fts_normalizer": FTS_NORMALIZER_VERSION,
                "settings": dict(settings or {}),
            },
        )
        try:
            schema.migrate(conn, path, new_kb=new_kb if create else None)
            store = cls(conn, path, readonly=False)
        except BaseException:
            db.close(conn)
            raise
        if (store.encoder_id, store.dim) != (encoder_id, dim):
            store.close()
            raise EncoderMismatchError(
                f"{path} was built with encoder '{store.encoder_id}' ({store.dim}-d) but '{encoder_id}'"
                f" ({dim}-d) is configured; use that encoder or build a new KB"
            )
        if probe is not None:
            try:
                check_probes(store, probe, force=force)
            except BaseException:
                store.close()
                raise
        return store

    @classmethod
    def open_existing(cls, path: Path, *, readonly: bool = True) -> Store:
        """Open an existing KB whatever its encoder (for ``doctor``, listing, inspection)."""
        path = Path(path)
        if not path.exists():
            raise StoreError(f"{path} does not exist")
        conn = db.connect(path, readonly=readonly)
        try:
            version = schema.check_version(conn, path)
            if version == 0:
                raise StoreError(f"{path} is empty, not a pikelocal knowledge base")
            if not readonly:
                schema.migrate(conn, path, new_kb=None)
            elif version < schema.LATEST_VERSION:  # an older KB: upgrade it once, then read it as asked
                db.close(conn, readonly=True)
                cls.open_existing(path, readonly=False).close()
                conn = db.connect(path, readonly=True)
            return cls(conn, path, readonly=readonly)
        except BaseException:
            db.close(conn, readonly=readonly)
            raise

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                db.close(self._conn, readonly=self.readonly)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction, committed on exit; nested calls become savepoints of the outer one."""
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        with self._lock:
            depth = self._depth
            try:
                self._conn.execute("BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT sp{depth}")
            except db.BusyError as e:
                raise StoreError(f"{self.path} is locked by another process; try again later") from e
            self._depth += 1
            try:
                yield
            except BaseException:
                self._depth -= 1
                if depth == 0:
                    if self._conn.in_transaction:
                        self._conn.execute("ROLLBACK")
                else:
                    self._conn.execute(f"ROLLBACK TO sp{depth}; RELEASE sp{depth}")
                raise
            self._depth -= 1
            self._conn.execute("COMMIT" if depth == 0 else f"RELEASE sp{depth}")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one consistent state of the file, whatever another process commits meanwhile."""
        with self._lock:
            if self._conn.in_transaction:  # already inside a transaction: that is the snapshot
                yield
                return
            self._conn.execute("BEGIN")
            try:
                yield
            finally:
                if self._conn.in_transaction:
                    self._conn.execute("COMMIT")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:  # fetch everything under the lock: apsw cursors are lazy
            return self._conn.execute(sql, params).fetchall()

    # --- kb_meta -------------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        return {k: json.loads(v) for k, v in self._rows("SELECT key, value FROM kb_meta ORDER BY key")}

    def set_meta(self, key: str, value: Any) -> None:
        with self.transaction():
            self._conn.execute(
                "INSERT INTO kb_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value, ensure_ascii=False)),
            )

    # --- LLM cache -----------------------------------------------------------------------------------

    def get_cached_completion(self, key: str) -> CachedCompletion | None:
        rows = self._rows(
            "SELECT key, model_id, tag, text, prompt_tokens, completion_tokens, seconds FROM llm_cache WHERE key = ?",
            (key,),
        )
        return CachedCompletion(*rows[0]) if rows else None

    def put_cached_completion(self, c: CachedCompletion) -> None:
        """Store (or replace) a completion; committed at once unless inside this thread's transaction."""
        with self.transaction():
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache(key, model_id, tag, text, prompt_tokens, completion_tokens,"
                " seconds) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (c.key, c.model_id, c.tag, c.text, c.prompt_tokens, c.completion_tokens, c.seconds),
            )

    # --- documents, pages, chunks, questions ---------------------------------------------------------

    def add_document(
        self,
        *,
        path: str,
        sha256: str,
        title: str | None = None,
        kind: str | None = None,
        n_pages: int | None = None,
        stage: str = "added",
    ) -> int:
        with self.transaction():
            try:
                self._conn.execute(
                    "INSERT INTO documents(path, sha256, title, kind, n_pages, stage) VALUES (?, ?, ?, ?, ?, ?)",
                    (path, sha256, title, kind, n_pages, stage),
                )
            except db.ConstraintError as e:
                raise InputError(f"{path} is already in the knowledge base (same sha256)") from e
            return int(self._conn.last_insert_rowid())

    def get_document(self, doc_id: int) -> DocumentRecord | None:
        rows = self._rows(f"SELECT {_DOC_COLS} FROM documents WHERE id = ?", (doc_id,))
        return DocumentRecord(*rows[0]) if rows else None

    def document_by_sha256(self, sha256: str) -> DocumentRecord | None:
        rows = self._rows(f"SELECT {_DOC_COLS} FROM documents WHERE sha256 = ?", (sha256,))
        return DocumentRecord(*rows[0]) if rows else None

    def documents(self) -> list[DocumentRecord]:
        return [DocumentRecord(*r) for r in self._rows(f"SELECT {_DOC_COLS} FROM documents ORDER BY id")]

    def set_document_stage(self, doc_id: int, stage: str, error: str | None = None) -> None:
        with self.transaction():
            self._conn.execute(
                "UPDATE documents SET stage = ?, error = ?,"
                " updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                (stage, error, doc_id),
            )

    def delete_other_versions(self, path: str, sha256: str) -> int:
        """Delete documents stored at ``path`` whose content is not ``sha256`` (the file has changed)."""
        with self.transaction():
            old = [d.id for d in self.document_by_path(path) if d.sha256 != sha256]
            for doc_id in old:
                self.delete_document(doc_id)
            return len(old)

    def set_document_path(self, doc_id: int, path: str) -> None:
        with self.transaction():
            self._conn.execute(
                "UPDATE documents SET path = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                (path, doc_id),
            )

    def delete_document(self, doc_id: int) -> bool:
        """Remove a document with its pages, chunks, questions, vectors and FTS rows.

        The cascade and the schema's triggers would do it alone, but one index table after another is
        ~10x faster than the triggers' row-by-row interleaving across vec0 tables.
        """
        with self.transaction():
            for sql in _DELETE_INDEX_ROWS:
                self._conn.execute(sql, (doc_id,))
            self._conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
            return self._conn.changes() > 0

    def document_by_path(self, path: str) -> list[DocumentRecord]:
        return [DocumentRecord(*r) for r in self._rows(f"SELECT {_DOC_COLS} FROM documents WHERE path = ?", (path,))]

    def documents_missing(self, table: VectorTable) -> list[DocumentRecord]:
        """Documents with at least one chunk that has no row in vector table ``table``."""
        name = schema.VECTOR_TABLES[table]
        rows = self._rows(
            f"SELECT {_DOC_COLS} FROM documents WHERE id IN (SELECT doc_id FROM chunks WHERE NOT EXISTS"
            f" (SELECT 1 FROM {name} v WHERE v.rowid = chunks.id)) ORDER BY id"
        )
        return [DocumentRecord(*r) for r in rows]

    def documents_in_stage(self, *stages: str) -> list[DocumentRecord]:
        marks = ", ".join("?" * len(stages))
        rows = self._rows(f"SELECT {_DOC_COLS} FROM documents WHERE stage IN ({marks}) ORDER BY id", stages)
        return [DocumentRecord(*r) for r in rows]

    def add_parsed_document(
        self,
        *,
        path: str,
        sha256: str,
        title: str,
        kind: str,
        pages: Sequence[NewPage],
        chunks: Sequence[NewChunk],
        stage: str,
    ) -> tuple[int, list[int]]:
        """Insert a document with its pages, chunks and FTS rows in one transaction.

        Older versions of the same path (other content) are removed in the same transaction, and so is a
        recorded failure for the path: a crash leaves either the old state or the new one.
        """
        with self.transaction():
            self.delete_other_versions(path, sha256)
            self._conn.execute("DELETE FROM ingest_failures WHERE path = ?", (path,))
            doc_id = self.add_document(
                path=path, sha256=sha256, title=title, kind=kind, n_pages=len(pages), stage=stage
            )
            self.add_pages(doc_id, pages)
            ids = self.add_chunks(doc_id, chunks)
        return doc_id, ids

    def chunk_counts(self) -> dict[int, int]:
        """Number of chunks per document id."""
        return {int(d): int(n) for d, n in self._rows("SELECT doc_id, count(*) FROM chunks GROUP BY doc_id")}

    def chunk_owners(self) -> dict[int, int]:
        """chunk id → document id, for every chunk."""
        return {int(c): int(d) for c, d in self._rows("SELECT id, doc_id FROM chunks")}

    def chunk_ids_without(self, table: VectorTable, doc_id: int) -> list[int]:
        """Chunk ids of a document that have no row yet in vector table ``table`` (for resuming)."""
        name = schema.VECTOR_TABLES[table]
        rows = self._rows(
            f"SELECT id FROM chunks WHERE doc_id = ? AND NOT EXISTS (SELECT 1 FROM {name} v WHERE v.rowid = chunks.id)"
            " ORDER BY ord",
            (doc_id,),
        )
        return [int(r[0]) for r in rows]

    # --- failures ------------------------------------------------------------------------------------

    def record_failure(self, path: str, reason: str, message: str) -> None:
        with self.transaction():
            self._conn.execute(
                "INSERT INTO ingest_failures(path, reason, message) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE"
                " SET reason = excluded.reason, message = excluded.message, at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                (path, reason, message),
            )

    def clear_failure(self, path: str) -> bool:
        with self.transaction():
            self._conn.execute("DELETE FROM ingest_failures WHERE path = ?", (path,))
            return self._conn.changes() > 0

    def failures(self) -> list[FailureRecord]:
        return [
            FailureRecord(*r) for r in self._rows("SELECT path, reason, message, at FROM ingest_failures ORDER BY path")
        ]

    def add_pages(self, doc_id: int, pages: Sequence[NewPage]) -> None:
        with self.transaction():
            self._conn.executemany(
                "INSERT INTO pages(doc_id, page_no, char_start, text, line_offsets) VALUES (?, ?, ?, ?, ?)",
                [(doc_id, p.page_no, p.char_start, p.text, json.dumps(list(p.line_offsets))) for p in pages],
            )

    def add_chunks(self, doc_id: int, chunks: Sequence[NewChunk]) -> list[int]:
        """Insert chunks and their FTS rows in one transaction; returns the new chunk ids in order."""
        ids: list[int] = []
        with self.transaction():
            for c in chunks:
                self._conn.execute(
                    "INSERT INTO chunks(doc_id, ord, char_start, char_end, page_start, page_end, line_start,"
                    " line_end, section_path, header, text, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (doc_id, c.ord, c.char_start, c.char_end, c.page_start, c.page_end, c.line_start,
                     c.line_end, json.dumps(list(c.section_path), ensure_ascii=False), c.header, c.text,
                     c.summary),
                )  # fmt: skip
                cid = int(self._conn.last_insert_rowid())
                self._conn.execute(
                    "INSERT INTO chunks_fts(rowid, header, text) VALUES (?, ?, ?)",
                    (cid, normalize_for_index(c.header), normalize_for_index(c.text)),
                )
                ids.append(cid)
        return ids

    def chunks_of(self, doc_id: int) -> list[ChunkRecord]:
        rows = self._rows(f"SELECT {_CHUNK_COLS} FROM chunks WHERE doc_id = ? ORDER BY ord", (doc_id,))
        return [_chunk(r) for r in rows]

    def get_chunks(self, ids: Sequence[int]) -> list[ChunkRecord]:
        """Chunks by id, in the order of ``ids`` (unknown ids are skipped)."""
        rows = self._rows(
            f"SELECT {_CHUNK_COLS} FROM chunks WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(ids)),)
        )
        by_id = {r[0]: _chunk(r) for r in rows}
        return [by_id[i] for i in ids if i in by_id]

    def add_questions(self, questions: Sequence[NewQuestion]) -> list[int]:
        ids: list[int] = []
        with self.transaction():
            for q in questions:
                self._conn.execute(
                    "INSERT INTO questions(chunk_id, text, lang) VALUES (?, ?, ?)", (q.chunk_id, q.text, q.lang)
                )
                qid = int(self._conn.last_insert_rowid())
                self._conn.execute(
                    "INSERT INTO questions_fts(rowid, text) VALUES (?, ?)", (qid, normalize_for_index(q.text))
                )
                ids.append(qid)
        return ids

    # --- vectors and full text -----------------------------------------------------------------------

    def reset_vectors(self, probes: Mapping[str, Any]) -> None:
        """Drop every stored vector, mark every document 'parsed' and record the new encoder's ``probes``, in one
        transaction (``reembed``): the vectors are then computed again as a resumed ingestion computes them.
        ``kb_meta.reembed_pending`` stays true until :meth:`finish_reembed`, so a killed run is not reset twice."""
        with self.transaction():
            for name in schema.VECTOR_TABLES.values():
                self._conn.execute(f"DELETE FROM {name}")
            self._conn.execute("UPDATE documents SET stage = 'parsed' WHERE stage IN ('embedded', 'ready')")
            self.set_meta("encoder_probes", dict(probes))
            self.set_meta("reembed_pending", True)

    def finish_reembed(self) -> None:
        self.set_meta("reembed_pending", False)

    def questions_without_vectors(self, limit: int = 256) -> list[tuple[int, str]]:
        """(id, text) of atomic questions that have no vector (after :meth:`reset_vectors`)."""
        rows = self._rows(
            "SELECT id, text FROM questions WHERE id NOT IN (SELECT rowid FROM question_vectors) ORDER BY id LIMIT ?",
            (int(limit),),
        )
        return [(int(i), str(t)) for i, t in rows]

    def put_vectors(
        self, table: VectorTable, ids: Sequence[int], matrix: ArrayLike, *, skip_missing: bool = False
    ) -> None:
        """Store (or replace) one vector per id; ``ids`` are chunk ids (chunk, late) or question ids.

        An id with no chunk/question is an error, unless ``skip_missing`` (ingestion: another process may
        have removed the document while its vectors were being computed).
        """
        name = schema.VECTOR_TABLES[table]
        mat = np.asarray(matrix, dtype=np.float32)
        if mat.ndim != 2 or mat.shape != (len(ids), self.dim):
            raise ValueError(f"expected a ({len(ids)}, {self.dim}) matrix for {name}, got {mat.shape}")
        owner = "questions" if table == "question" else "chunks"
        with self.transaction():
            missing = self._conn.execute(
                f"SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM {owner})",
                (json.dumps([int(i) for i in ids]),),
            ).fetchall()
            if missing and not skip_missing:
                raise ValueError(f"no {owner} with ids {[m[0] for m in missing[:5]]}")
            gone = {db.int_of(m[0]) for m in missing}
            keep = [k for k, i in enumerate(ids) if int(i) not in gone]
            ids, mat = [ids[k] for k in keep], mat[keep]
            # vec0 has no upsert: delete first so re-embedding replaces.
            self._conn.executemany(f"DELETE FROM {name} WHERE rowid = ?", [(int(i),) for i in ids])
            self._conn.executemany(
                f"INSERT INTO {name}(rowid, embedding) VALUES (?, ?)",
                [(int(i), vectors.float32_blob(row)) for i, row in zip(ids, mat, strict=True)],
            )

    def vector(self, table: VectorTable, row_id: int) -> np.ndarray | None:
        """The stored vector of a chunk (chunk, late) or question, or None when it has none."""
        rows = self._rows(f"SELECT embedding FROM {schema.VECTOR_TABLES[table]} WHERE rowid = ?", (row_id,))
        return np.frombuffer(rows[0][0], dtype=np.float32).copy() if rows else None

    def knn(self, table: VectorTable, query_vector: ArrayLike, k: int) -> list[tuple[int, float]]:
        """The ``k`` nearest ids by cosine distance (0 = same direction), nearest first."""
        q = np.asarray(query_vector, dtype=np.float32)
        if q.shape != (self.dim,):
            raise ValueError(f"expected a ({self.dim},) query vector, got {q.shape}")
        with self._lock:
            return vectors.knn(self._conn, schema.VECTOR_TABLES[table], q, k)

    def fts_search(
        self,
        table: FtsTable,
        query: str,
        k: int,
        *,
        require_all: bool = False,
        exact_phrases: bool | None = None,
    ) -> list[tuple[int, float]]:
        """Full-text hits as (id, score), best first; score = -bm25, so higher is better.

        See :func:`pikelocal.store.fts.build_match_query` for ``require_all`` and ``exact_phrases``; None
        chooses: exact phrases for terms, bigrams for a Chinese sentence (:func:`is_cjk_sentence`).
        """
        if exact_phrases is None:
            exact_phrases = not is_cjk_sentence(query)
        match = build_match_query(query, require_all=require_all, exact_phrases=exact_phrases)
        if match is None or k <= 0:
            return []
        name, rank = schema.FTS_TABLES[table], _FTS_RANK[table]
        rows = self._rows(f"SELECT rowid, {rank} AS r FROM {name} WHERE {name} MATCH ? ORDER BY r LIMIT ?", (match, k))
        return [(int(i), -float(r)) for i, r in rows]

    # --- health --------------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        with self._lock:
            return checks.counts(self._conn)

    def integrity_check(self) -> list[str]:
        with self._lock:
            return checks.integrity_check(self._conn)


def _chunk(row: tuple[Any, ...]) -> ChunkRecord:
    """A row of ``SELECT {_CHUNK_COLS}`` as a record (section_path is stored as a JSON list)."""
    (id_, doc_id, ord_, text, char_start, char_end, page_start, page_end, line_start, line_end,
     section_path, header, summary) = row  # fmt: skip
    return ChunkRecord(
        id_, doc_id, ord_, text, char_start, char_end, page_start, page_end, line_start, line_end,
        tuple(json.loads(section_path)), header, summary,
    )  # fmt: skip
