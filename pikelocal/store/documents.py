"""The store's documents: one row per ingested file, its pages' text, and the files that failed to ingest.

A part of :class:`~pikelocal.store.store.Store` (``store.docs``). Removing a document removes everything that
hangs from it (pages, chunks, questions, vectors, FTS rows) in one transaction; adding a parsed document
replaces its older versions in the same transaction, so a crash leaves either the old state or the new one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pikelocal.domain.documents import DocumentRecord, FailureRecord, NewChunk, NewPage, PageRecord, TableRecord
from pikelocal.domain.errors import InputError
from pikelocal.store import db, schema
from pikelocal.store.index import VectorTable

if TYPE_CHECKING:
    from pikelocal.store.chunks import Chunks
    from pikelocal.store.graph import Graph
    from pikelocal.store.handle import Db
    from pikelocal.store.summaries import Summaries

_DOC_COLS = "id, path, sha256, title, summary, kind, n_pages, stage, error, added_at, updated_at"
_CHUNKS_OF = "SELECT id FROM chunks WHERE doc_id = ?1"
_QUESTIONS_OF = f"SELECT id FROM questions WHERE chunk_id IN ({_CHUNKS_OF})"
_STATEMENTS_OF = "SELECT id FROM statements WHERE doc_id = ?1"
_DELETE_INDEX_ROWS = (
    f"DELETE FROM chunk_vectors WHERE rowid IN ({_CHUNKS_OF})",
    f"DELETE FROM late_vectors WHERE rowid IN ({_CHUNKS_OF})",
    f"DELETE FROM chunks_fts WHERE rowid IN ({_CHUNKS_OF})",
    f"DELETE FROM question_vectors WHERE rowid IN ({_QUESTIONS_OF})",
    f"DELETE FROM questions_fts WHERE rowid IN ({_QUESTIONS_OF})",
    f"DELETE FROM statement_vectors WHERE rowid IN ({_STATEMENTS_OF})",
    f"DELETE FROM statements_fts WHERE rowid IN ({_STATEMENTS_OF})",
)


class Documents:
    """Documents, pages and ingestion failures of one open store."""

    def __init__(self, db: Db, *, chunks: Chunks, summaries: Summaries, graph: Graph) -> None:
        self._db = db
        self._chunks = chunks  # a parsed document's chunks are added with it
        self._summaries = summaries  # and a removed one takes the summaries and entities that speak of it along
        self._graph = graph

    # --- documents -----------------------------------------------------------------------------------

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
        with self._db.transaction():
            try:
                return self._db.insert(
                    "INSERT INTO documents(path, sha256, title, kind, n_pages, stage) VALUES (?, ?, ?, ?, ?, ?)",
                    (path, sha256, title, kind, n_pages, stage),
                )
            except db.ConstraintError as e:
                raise InputError(f"{path} is already in the knowledge base (same sha256)") from e

    def get_document(self, doc_id: int) -> DocumentRecord | None:
        rows = self._db.rows(f"SELECT {_DOC_COLS} FROM documents WHERE id = ?", (doc_id,))
        return DocumentRecord(*rows[0]) if rows else None

    def document_by_sha256(self, sha256: str) -> DocumentRecord | None:
        rows = self._db.rows(f"SELECT {_DOC_COLS} FROM documents WHERE sha256 = ?", (sha256,))
        return DocumentRecord(*rows[0]) if rows else None

    def documents(self) -> list[DocumentRecord]:
        return [DocumentRecord(*r) for r in self._db.rows(f"SELECT {_DOC_COLS} FROM documents ORDER BY id")]

    def set_document_stage(self, doc_id: int, stage: str, error: str | None = None) -> None:
        with self._db.transaction():
            self._db.execute(
                "UPDATE documents SET stage = ?, error = ?,"
                " updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                (stage, error, doc_id),
            )

    def delete_other_versions(self, path: str, sha256: str) -> int:
        """Delete documents stored at ``path`` whose content is not ``sha256`` (the file has changed)."""
        with self._db.transaction():
            old = [d.id for d in self.document_by_path(path) if d.sha256 != sha256]
            for doc_id in old:
                self.delete_document(doc_id)
            return len(old)

    def set_document_path(self, doc_id: int, path: str) -> None:
        with self._db.transaction():
            self._db.execute(
                "UPDATE documents SET path = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                (path, doc_id),
            )

    def delete_document(self, doc_id: int) -> bool:
        """Remove a document with its pages, chunks, questions, statements, vectors and FTS rows.

        The cascade and the schema's triggers would do it alone, but one index table after another is
        ~10x faster than the triggers' row-by-row interleaving across vec0 tables.
        """
        with self._db.transaction():
            self._summaries.drop_covering(doc_id)  # corpus-level summaries that speak of it
            for sql in _DELETE_INDEX_ROWS:
                self._db.execute(sql, (doc_id,))
            in_graph = bool(
                self._db.rows(f"SELECT 1 FROM chunk_entities WHERE chunk_id IN ({_CHUNKS_OF}) LIMIT 1", (doc_id,))
            )
            removed = self._db.execute("DELETE FROM documents WHERE id = ?", (doc_id,)) > 0
            if in_graph:  # its chunks' entity links went with them: drop entities nobody mentions, re-key the graph
                self._graph.prune(changed=True)
            return removed

    def document_by_path(self, path: str) -> list[DocumentRecord]:
        return [DocumentRecord(*r) for r in self._db.rows(f"SELECT {_DOC_COLS} FROM documents WHERE path = ?", (path,))]

    def documents_missing(self, table: VectorTable) -> list[DocumentRecord]:
        """Documents with at least one chunk that has no row in vector table ``table``."""
        name = schema.VECTOR_TABLES[table]
        rows = self._db.rows(
            f"SELECT {_DOC_COLS} FROM documents WHERE id IN (SELECT doc_id FROM chunks WHERE NOT EXISTS"
            f" (SELECT 1 FROM {name} v WHERE v.rowid = chunks.id)) ORDER BY id"
        )
        return [DocumentRecord(*r) for r in rows]

    def documents_in_stage(self, *stages: str) -> list[DocumentRecord]:
        marks = ", ".join("?" * len(stages))
        rows = self._db.rows(f"SELECT {_DOC_COLS} FROM documents WHERE stage IN ({marks}) ORDER BY id", stages)
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
        tables: Sequence[TableRecord] = (),
    ) -> tuple[int, list[int]]:
        """Insert a document with its pages, chunks and FTS rows in one transaction.

        Older versions of the same path (other content) are removed in the same transaction, and so is a
        recorded failure for the path: a crash leaves either the old state or the new one.
        """
        with self._db.transaction():
            self.delete_other_versions(path, sha256)
            self._db.execute("DELETE FROM ingest_failures WHERE path = ?", (path,))
            doc_id = self.add_document(
                path=path, sha256=sha256, title=title, kind=kind, n_pages=len(pages), stage=stage
            )
            self.add_pages(doc_id, pages)
            ids = self._chunks.add_chunks(doc_id, chunks)
            self._db.executemany(
                "INSERT INTO doc_tables(doc_id, char_start, char_end, page_start, page_end, n_rows, n_cols, header)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(doc_id, t.char_start, t.char_end, t.page_start, t.page_end, t.n_rows, t.n_cols, t.header)
                 for t in tables],
            )  # fmt: skip
        return doc_id, ids

    def tables_of(self, doc_id: int) -> list[TableRecord]:
        """The document's tables in text order."""
        rows = self._db.rows(
            "SELECT char_start, char_end, page_start, page_end, n_rows, n_cols, header FROM doc_tables"
            " WHERE doc_id = ? ORDER BY char_start",
            (int(doc_id),),
        )
        return [TableRecord(*r) for r in rows]

    # --- failures ------------------------------------------------------------------------------------

    def record_failure(self, path: str, reason: str, message: str) -> None:
        with self._db.transaction():
            self._db.execute(
                "INSERT INTO ingest_failures(path, reason, message) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE"
                " SET reason = excluded.reason, message = excluded.message, at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
                (path, reason, message),
            )

    def clear_failure(self, path: str) -> bool:
        with self._db.transaction():
            return self._db.execute("DELETE FROM ingest_failures WHERE path = ?", (path,)) > 0

    def failures(self) -> list[FailureRecord]:
        return [
            FailureRecord(*r)
            for r in self._db.rows("SELECT path, reason, message, at FROM ingest_failures ORDER BY path")
        ]

    # --- pages ---------------------------------------------------------------------------------------

    def add_pages(self, doc_id: int, pages: Sequence[NewPage]) -> None:
        with self._db.transaction():
            self._db.executemany(
                "INSERT INTO pages(doc_id, page_no, char_start, text, line_offsets) VALUES (?, ?, ?, ?, ?)",
                [(doc_id, p.page_no, p.char_start, p.text, json.dumps(list(p.line_offsets))) for p in pages],
            )

    def page(self, doc_id: int, page_no: int) -> PageRecord | None:
        """One page's text with its line starts (for a document viewer)."""
        rows = self._db.rows(
            "SELECT text, line_offsets, char_start FROM pages WHERE doc_id = ? AND page_no = ?",
            (int(doc_id), int(page_no)),
        )
        if not rows:
            return None
        text, offsets, start = rows[0]
        line_offsets = tuple(int(o) for o in json.loads(offsets or "[]"))
        return PageRecord(int(doc_id), int(page_no), str(text), line_offsets, int(start))

    def page_numbers(self, doc_id: int) -> list[int]:
        """The document's page numbers in order (pages with no text are still listed)."""
        return [
            int(r[0]) for r in self._db.rows("SELECT page_no FROM pages WHERE doc_id = ? ORDER BY page_no", (doc_id,))
        ]

    def page_starts(self, doc_id: int) -> list[tuple[int, int, tuple[int, ...]]]:
        """(page_no, offset of the page in the document's text, line starts within the page), in page order."""
        rows = self._db.rows(
            "SELECT page_no, char_start, line_offsets FROM pages WHERE doc_id = ? ORDER BY page_no", (int(doc_id),)
        )
        return [(int(p), int(s), tuple(int(o) for o in json.loads(offsets or "[]"))) for p, s, offsets in rows]
