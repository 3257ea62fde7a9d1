"""Ordered, versioned schema migrations for a KB file.

The version lives in ``PRAGMA user_version`` (read without touching any table) and is mirrored in
``kb_meta.schema_version`` for humans and ``doctor``. Each migration runs in one ``BEGIN IMMEDIATE``
transaction together with the version bump, so a killed process leaves the file at the old or the new
version, never in between; two processes creating the same KB serialise on that lock. To change the
schema, append a ``Migration`` to ``MIGRATIONS``; never edit one that has shipped.

Vectors and FTS rows have no foreign keys (virtual tables cannot have them); the ``*_ad`` triggers
delete them with their chunk or question, and deleting a document cascades to pages, chunks and
questions, so ``DELETE FROM documents`` is enough to remove everything of a document.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pikelocal.domain.errors import StoreError
from pikelocal.store.db import Connection, one_int

# unicode61 keeps CJK runs whole; fts.py rewrites them to bigrams before indexing. Contentless tables with
# contentless_delete (SQLite >= 3.43) keep only the index: the text lives in chunks/questions already.
FTS_OPTIONS = "content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2'"
VECTOR_TABLES = {
    "chunk": "chunk_vectors",
    "late": "late_vectors",
    "question": "question_vectors",
    "entity": "entity_vectors",
    "summary": "summary_vectors",
    "triple": "triple_vectors",
    "statement": "statement_vectors",
}
# Sign-bit copies of the vector tables that grow with the entity graph (one name per entity, one fact per triple):
# their KNN scans the bits (hamming) and re-scores the few nearest by cosine on the floats (store/vectors.py).
# Only for a dimension divisible by 8 (the bit type's unit); other KBs keep the exact scan.
BIT_TABLES = {"entity": "entity_bits", "triple": "triple_bits"}
FTS_TABLES = {
    "chunk": "chunks_fts",
    "question": "questions_fts",
    "summary": "summaries_fts",
    "statement": "statements_fts",
}


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    apply: Callable[[Connection, int], None]  # (connection, encoder dim)


@dataclass(frozen=True)
class NewKB:
    """What a new KB is created with: the encoder dimension and its first ``kb_meta`` rows."""

    dim: int
    meta: Mapping[str, Any]


def _v1(conn: Connection, dim: int) -> None:
    """The first schema, one group of tables after another."""
    _v1_documents(conn)
    _v1_chunks(conn)
    _v1_cache_and_traces(conn)
    _v1_index(conn, dim)


def _v1_documents(conn: Connection) -> None:
    """``kb_meta``, the documents and their pages."""
    conn.execute(
        """
        CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;  -- value: JSON
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            sha256 TEXT NOT NULL UNIQUE,
            title TEXT,
            summary TEXT,
            kind TEXT,                      -- 'pdf', 'docx', 'md', ... (or a MIME type)
            n_pages INTEGER,
            stage TEXT NOT NULL DEFAULT 'added',  -- last ingestion stage completed, for resuming
            error TEXT,                     -- why the last stage failed, NULL when fine
            added_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        );
        CREATE TABLE pages (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            page_no INTEGER NOT NULL,       -- 1-based
            char_start INTEGER NOT NULL DEFAULT 0,  -- offset of the page in the document's text
            text TEXT NOT NULL,
            line_offsets TEXT NOT NULL DEFAULT '[]',  -- JSON: char offset (in the page) of each line start
            PRIMARY KEY (doc_id, page_no)
        );
        """
    )


def _v1_chunks(conn: Connection) -> None:
    """The chunks and their atomic questions."""
    conn.execute(
        """
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ord INTEGER NOT NULL,           -- position in the document, 0-based
            char_start INTEGER NOT NULL,    -- [start, end) in the document's text
            char_end INTEGER NOT NULL,
            page_start INTEGER, page_end INTEGER,
            line_start INTEGER, line_end INTEGER,
            section_path TEXT NOT NULL DEFAULT '[]',  -- JSON list of headings
            header TEXT NOT NULL DEFAULT '',  -- contextual header (document / section), embedded with text
            text TEXT NOT NULL,
            summary TEXT,
            UNIQUE (doc_id, ord)
        );
        CREATE TABLE questions (
            id INTEGER PRIMARY KEY,
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            lang TEXT
        );
        CREATE INDEX questions_chunk ON questions(chunk_id);
        """
    )


def _v1_cache_and_traces(conn: Connection) -> None:
    """The LLM completion cache and the stored query traces."""
    conn.execute(
        """
        CREATE TABLE llm_cache (
            key TEXT PRIMARY KEY,
            model_id TEXT NOT NULL,
            tag TEXT NOT NULL,
            text TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            seconds REAL NOT NULL,
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        );
        CREATE TABLE traces (
            id INTEGER PRIMARY KEY,
            question TEXT NOT NULL,
            created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            json TEXT NOT NULL
        );
        """
    )


def _v1_index(conn: Connection, dim: int) -> None:
    """The vectors and full-text rows of chunks and questions, dropped with them by triggers."""
    conn.execute(
        f"""
        CREATE VIRTUAL TABLE chunk_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE VIRTUAL TABLE late_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE VIRTUAL TABLE question_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(header, text, {FTS_OPTIONS});
        CREATE VIRTUAL TABLE questions_fts USING fts5(text, {FTS_OPTIONS});
        CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
            DELETE FROM chunks_fts WHERE rowid = old.id;
            DELETE FROM chunk_vectors WHERE rowid = old.id;
            DELETE FROM late_vectors WHERE rowid = old.id;
        END;
        CREATE TRIGGER questions_ad AFTER DELETE ON questions BEGIN
            DELETE FROM questions_fts WHERE rowid = old.id;
            DELETE FROM question_vectors WHERE rowid = old.id;
        END;
        """
    )


def _v2(conn: Connection, dim: int) -> None:
    # Files that could not be ingested, with the one-line reason, so `docs` and the TUI's library can show them.
    # Keyed by path: a file that later ingests (or is removed) loses its row.
    conn.execute(
        """
        CREATE TABLE ingest_failures (
            path TEXT PRIMARY KEY,
            reason TEXT NOT NULL,           -- encrypted | image-only | empty | corrupt | unsupported | ...
            message TEXT NOT NULL,          -- the one-line message shown to the user
            at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        ) WITHOUT ROWID;
        CREATE INDEX documents_path ON documents(path);
        CREATE INDEX documents_stage ON documents(stage);
        """
    )


def _v3(conn: Connection, dim: int) -> None:
    # LLM enrichment progress, on the rows it belongs to (so removing a document removes it too).
    # NULL = still to do; 'done', 'skipped' (a document too short to need a summary) or 'failed' with the reason.
    conn.execute(
        """
        ALTER TABLE documents ADD COLUMN summary_status TEXT;
        ALTER TABLE documents ADD COLUMN enrich_error TEXT;
        ALTER TABLE chunks ADD COLUMN atoms_status TEXT;
        ALTER TABLE chunks ADD COLUMN enrich_error TEXT;
        CREATE INDEX chunks_atoms_status ON chunks(atoms_status);
        CREATE INDEX llm_cache_tag ON llm_cache(tag);
        """
    )


def _v4(conn: Connection, dim: int) -> None:
    # The tables of each document (Markdown in its text, see ingest/read/tables.py), so that a viewer can render them.
    conn.execute(
        """
        CREATE TABLE doc_tables (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            char_start INTEGER NOT NULL,    -- [start, end) in the document's text
            char_end INTEGER NOT NULL,
            page_start INTEGER, page_end INTEGER,
            n_rows INTEGER NOT NULL,        -- body rows
            n_cols INTEGER NOT NULL,
            header TEXT NOT NULL,           -- the header row and its rule
            PRIMARY KEY (doc_id, char_start)
        ) WITHOUT ROWID;
        """
    )


def _v5(conn: Connection, dim: int) -> None:
    # Contextual retrieval: a sentence or two from the enrichment call that situates the chunk in its document; it
    # is part of the chunk's header (so of its early vector and BM25 text) and kept when the header is rebuilt.
    conn.execute("ALTER TABLE chunks ADD COLUMN context TEXT;")


def _v6(conn: Connection, dim: int) -> None:
    # Legal cross-references (pikelocal/legal_refs.py, store/references.py): each citation of a law or article in a
    # chunk, and what it resolved to; where each article of a document begins; which chunks have been read for them
    # (NULL: not yet, as every chunk of a KB made before this version: the next ingest or `refs` reads them).
    conn.execute(
        """
        CREATE TABLE law_refs (
            id INTEGER PRIMARY KEY,
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            char_start INTEGER NOT NULL,    -- [start, end) in the chunk's text
            char_end INTEGER NOT NULL,
            law TEXT,                       -- the cited law's name as written; NULL: the citing document's own
            article TEXT,                   -- '46', '64-1', '54A'; NULL: the law as a whole
            detail TEXT NOT NULL DEFAULT '',  -- finer than the article, as written: '第三款', '(1)'
            target_doc INTEGER REFERENCES documents(id) ON DELETE SET NULL,
            target_chunk INTEGER REFERENCES chunks(id) ON DELETE SET NULL
        );
        CREATE INDEX law_refs_chunk ON law_refs(chunk_id);
        CREATE INDEX law_refs_target_doc ON law_refs(target_doc);
        CREATE INDEX law_refs_target_chunk ON law_refs(target_chunk);
        CREATE TABLE law_articles (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            article TEXT NOT NULL,
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            PRIMARY KEY (doc_id, article)
        ) WITHOUT ROWID;
        CREATE INDEX law_articles_chunk ON law_articles(chunk_id);
        ALTER TABLE chunks ADD COLUMN refs_read INTEGER;
        CREATE INDEX chunks_refs_read ON chunks(refs_read);
        """
    )


def _v7(conn: Connection, dim: int) -> None:
    # The entity graph (store/graph.py): one node per distinct entity name (with its name vector), the chunks that
    # mention it, the triples the enrichment call read from each chunk, and synonym edges between close names.
    # chunks.entities_read: NULL until the enrichment call with entities on has read the chunk.
    conn.execute(
        f"""
        CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,             -- as first written
            key TEXT NOT NULL UNIQUE,       -- normalised (store.graph.entity_key): one node per key
            linked INTEGER                  -- NULL: its synonym edges not looked for yet
        );
        CREATE TABLE chunk_entities (
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            PRIMARY KEY (chunk_id, entity_id)
        ) WITHOUT ROWID;
        CREATE INDEX chunk_entities_entity ON chunk_entities(entity_id);
        CREATE TABLE triples (
            id INTEGER PRIMARY KEY,
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            subject INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            relation TEXT NOT NULL,
            object INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE
        );
        CREATE INDEX triples_chunk ON triples(chunk_id);
        CREATE TABLE entity_synonyms (
            a INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,  -- a < b
            b INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
            similarity REAL NOT NULL,
            PRIMARY KEY (a, b)
        ) WITHOUT ROWID;
        CREATE VIRTUAL TABLE entity_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE TRIGGER entities_ad AFTER DELETE ON entities BEGIN
            DELETE FROM entity_vectors WHERE rowid = old.id;
        END;
        ALTER TABLE chunks ADD COLUMN entities_read INTEGER;
        """
    )


def _v8(conn: Connection, dim: int) -> None:
    # Summary trees (store/summaries.py): a node per section of a document's hierarchy (kind 'section'), per cluster
    # of the chunks of a document without one, and per cluster of documents' top nodes across the KB (kind
    # 'cluster'; doc_id NULL). A node summarises its children (nodes, or chunks at the first level) and points to
    # every chunk below it (summary_chunks). key: what the node summarises, so a rebuilt tree keeps its done nodes.
    conn.execute(
        f"""
        CREATE TABLE summary_nodes (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER REFERENCES documents(id) ON DELETE CASCADE,  -- NULL: across documents
            kind TEXT NOT NULL CHECK (kind IN ('section', 'cluster')),
            level INTEGER NOT NULL,          -- 1: just above chunks
            key TEXT NOT NULL UNIQUE,
            label TEXT NOT NULL,             -- the section path (' › '), or the cluster's place
            parent_id INTEGER REFERENCES summary_nodes(id) ON DELETE SET NULL,
            status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
            summary TEXT,
            error TEXT
        );
        CREATE INDEX summary_nodes_doc ON summary_nodes(doc_id);
        CREATE INDEX summary_nodes_parent ON summary_nodes(parent_id);
        CREATE TABLE summary_chunks (
            node_id INTEGER NOT NULL REFERENCES summary_nodes(id) ON DELETE CASCADE,
            chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
            PRIMARY KEY (node_id, chunk_id)
        ) WITHOUT ROWID;
        CREATE INDEX summary_chunks_chunk ON summary_chunks(chunk_id);
        CREATE VIRTUAL TABLE summary_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE VIRTUAL TABLE summaries_fts USING fts5(text, {FTS_OPTIONS});
        CREATE TRIGGER summary_nodes_ad AFTER DELETE ON summary_nodes BEGIN
            DELETE FROM summary_vectors WHERE rowid = old.id;
            DELETE FROM summaries_fts WHERE rowid = old.id;
        END;
        """
    )


def _v9(conn: Connection, dim: int) -> None:
    # HippoRAG 2's fact seeds (query/retrieve/graph.py): a vector per triple, of its text "subject relation object", so
    # the triples nearest a question seed the walk at their ends. Written after the enrichment call, by the graph's
    # loose-ends step (store.graph.triples_without_vectors), so a KB enriched before this version gets them too.
    conn.execute(
        f"""
        CREATE VIRTUAL TABLE triple_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE TRIGGER triples_ad AFTER DELETE ON triples BEGIN
            DELETE FROM triple_vectors WHERE rowid = old.id;
        END;
        """
    )


def has_bit_tables(dim: int) -> bool:
    """Whether a KB of this encoder dimension has the sign-bit tables of :data:`BIT_TABLES`."""
    return dim % 8 == 0


def _v10(conn: Connection, dim: int) -> None:
    # The hamming pre-filter of the graph's seeds (query/retrieve/graph.py): an exact float scan of 500,000 triple
    # vectors takes ~0.8 s; over their sign bits it is a fraction of that (docs/BENCHMARKS.md, "Graph retrieval speed").
    # Filled from the float tables, so a KB enriched before this version gets them at once.
    if not has_bit_tables(dim):
        return
    # Names spelled out, as in every migration: a shipped migration must not change with later constants.
    for bits, floats, owner in (
        ("entity_bits", "entity_vectors", "entities"),
        ("triple_bits", "triple_vectors", "triples"),
    ):
        conn.execute(
            f"""
            CREATE VIRTUAL TABLE {bits} USING vec0(embedding bit[{dim}]);
            INSERT INTO {bits}(rowid, embedding) SELECT rowid, vec_quantize_binary(embedding) FROM {floats};
            CREATE TRIGGER {owner}_ad_bits AFTER DELETE ON {owner} BEGIN
                DELETE FROM {bits} WHERE rowid = old.id;
            END;
            """
        )


def _v11(conn: Connection, dim: int) -> None:
    # Document review (store/reviews.py): each checklist item's result (JSON of domain.review.ReviewRow,
    # without the mark) with the KB state it was answered on, so a rerun asks again only what changed; and the
    # reviewer's marks and notes, every one kept with its time (the audit trail of an export).
    conn.execute(
        """
        CREATE TABLE review_rows (
            checklist TEXT NOT NULL,
            item_id TEXT NOT NULL,
            kb_state TEXT NOT NULL,          -- what the KB held when the item was answered
            json TEXT NOT NULL,              -- the ReviewRow, its mark and note left out
            answered_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
            PRIMARY KEY (checklist, item_id)
        ) WITHOUT ROWID;
        CREATE TABLE review_marks (
            id INTEGER PRIMARY KEY,
            checklist TEXT NOT NULL,
            item_id TEXT NOT NULL,
            mark TEXT NOT NULL,              -- '' | accepted | wrong | to_check
            note TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        );
        CREATE INDEX review_marks_item ON review_marks(checklist, item_id, id);
        """
    )


def _v12(conn: Connection, dim: int) -> None:
    # Statements (ingest/enrich/statements.py, store/statements.py): every value of a document with what it is a
    # value of, read at ingest with no model; full-text indexed (subject and heading, sentence) and embedded (one
    # vector per statement), dropped with their document. documents.statements_read: NULL until the document's
    # statements are stored (every document of a KB made before this version: the next ingest reads them).
    conn.execute(
        f"""
        CREATE TABLE statements (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,              -- amount | date | duration | count | percentage
            value_text TEXT NOT NULL,        -- as the document prints it
            normal TEXT NOT NULL,            -- text/values.py's normal form
            number REAL,
            unit TEXT NOT NULL DEFAULT '',
            subject TEXT NOT NULL,
            concepts TEXT NOT NULL DEFAULT '[]',  -- JSON list of concept ids, nearest the value first
            sentence TEXT NOT NULL,
            heading TEXT NOT NULL DEFAULT '',
            page INTEGER,                    -- NULL: a document without pages
            line_start INTEGER NOT NULL,     -- 1-based on the page
            line_end INTEGER NOT NULL,
            char_start INTEGER NOT NULL,     -- the value's [start, end) in the document's text
            char_end INTEGER NOT NULL,
            threshold INTEGER NOT NULL DEFAULT 0  -- 1: points a score must reach, not a weight
        );
        CREATE INDEX statements_doc ON statements(doc_id, char_start);
        CREATE VIRTUAL TABLE statements_fts USING fts5(subject, sentence,
            content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE statement_vectors USING vec0(embedding float[{dim}] distance_metric=cosine);
        CREATE TRIGGER statements_ad AFTER DELETE ON statements BEGIN
            DELETE FROM statements_fts WHERE rowid = old.id;
            DELETE FROM statement_vectors WHERE rowid = old.id;
        END;
        ALTER TABLE documents ADD COLUMN statements_read INTEGER;
        """
    )


def _v13(conn: Connection, dim: int) -> None:
    # The reviewer's marks and notes on the rows of the views found without the model (rejection risks, requirements,
    # the timeline: store/view_marks.py). A view is found again on each call, so a row is named by a stable id made
    # of what it is (review/view_rows.py: the view, its document's content hash, page, first line and text); every
    # mark is kept with its time, the newest being the row's. Removed with their document (a replaced file is a new
    # document: its rows lose their marks).
    conn.execute(
        """
        CREATE TABLE view_marks (
            id INTEGER PRIMARY KEY,
            view TEXT NOT NULL,              -- risks | requirements | timeline
            row_id TEXT NOT NULL,            -- the row's stable id in its view
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            mark TEXT NOT NULL,              -- '' | accepted | wrong | to_check
            note TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
        );
        CREATE INDEX view_marks_row ON view_marks(view, row_id, id);
        CREATE INDEX view_marks_doc ON view_marks(doc_id);
        """
    )


MIGRATIONS: list[Migration] = [
    Migration(1, "initial schema", _v1),
    Migration(2, "ingest failures", _v2),
    Migration(3, "enrichment progress", _v3),
    Migration(4, "document tables", _v4),
    Migration(5, "chunk contexts", _v5),
    Migration(6, "legal cross-references", _v6),
    Migration(7, "entity graph", _v7),
    Migration(8, "summary trees", _v8),
    Migration(9, "triple vectors", _v9),
    Migration(10, "sign bits of entity and triple vectors", _v10),
    Migration(11, "document review", _v11),
    Migration(12, "statements", _v12),
    Migration(13, "marks on the review views' rows", _v13),
]
LATEST_VERSION = MIGRATIONS[-1].version


def schema_version(conn: Connection) -> int:
    return one_int(conn, "PRAGMA user_version")


def check_version(conn: Connection, path: Path) -> int:
    """The file's schema version; refuse one newer than this code knows."""
    version = schema_version(conn)
    if version > LATEST_VERSION:
        raise StoreError(
            f"{path} has schema version {version} but this pikelocal knows versions up to {LATEST_VERSION};"
            " upgrade pikelocal to open it"
        )
    return version


def _dim_of(conn: Connection, path: Path) -> int:
    row = conn.execute("SELECT value FROM kb_meta WHERE key = 'encoder_dim'").fetchone()
    if row is None:
        raise StoreError(f"{path} has no encoder_dim in kb_meta; it cannot be upgraded")
    return int(json.loads(row[0]))


def _has_kb_meta(conn: Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_schema WHERE name = 'kb_meta'").fetchone() is not None


def migrate(conn: Connection, path: Path, *, new_kb: NewKB | None) -> int:
    """Bring the file to ``LATEST_VERSION``; an empty file becomes a KB only when ``new_kb`` is given."""
    check_version(conn, path)
    for m in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = check_version(conn, path)  # re-read under the lock: another process may have migrated
            if version >= m.version:
                conn.execute("COMMIT")
                continue
            if version == 0 and _has_kb_meta(conn):
                raise StoreError(f"{path} has a kb_meta table but no schema version; it is not a usable KB")
            if version == 0 and new_kb is None:
                raise StoreError(f"{path} is empty, not a pikelocal knowledge base")
            dim = new_kb.dim if version == 0 and new_kb is not None else _dim_of(conn, path)
            m.apply(conn, dim)
            if version == 0 and new_kb is not None:
                conn.executemany(
                    "INSERT INTO kb_meta(key, value) VALUES (?, ?)",
                    [(k, json.dumps(v, ensure_ascii=False)) for k, v in new_kb.meta.items()],
                )
            conn.execute(f"PRAGMA user_version = {int(m.version)}")
            conn.execute(
                "INSERT INTO kb_meta(key, value) VALUES ('schema_version', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (json.dumps(m.version),),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # some errors have rolled back already
                conn.execute("ROLLBACK")
            raise
    return schema_version(conn)
