"""Read-only health queries over a KB connection: row counts and an integrity / consistency check."""

from __future__ import annotations

import json

from pikelocal.store.db import Connection, SQLError, one_int
from pikelocal.store.schema import BIT_TABLES, VECTOR_TABLES, schema_version

COUNTED = (
    "documents",
    "pages",
    "chunks",
    "questions",
    "doc_tables",
    "entities",
    "triples",
    "law_refs",
    "statements",
    "chunk_vectors",
    "late_vectors",
    "question_vectors",
    "entity_vectors",
    "triple_vectors",
    "statement_vectors",
    "summary_nodes",
    "summary_vectors",
    "llm_cache",
    "traces",
)
# Index tables whose rowid must be the id of a row in the owner table.
OWNED = (
    ("chunk_vectors", "chunks"),
    ("late_vectors", "chunks"),
    ("chunks_fts", "chunks"),
    ("question_vectors", "questions"),
    ("questions_fts", "questions"),
    ("entity_vectors", "entities"),
    ("triple_vectors", "triples"),
    ("summary_vectors", "summary_nodes"),
    ("summaries_fts", "summary_nodes"),
    ("statement_vectors", "statements"),
    ("statements_fts", "statements"),
)

# Sign-bit tables and the float tables they copy: the same rowids in both.
BIT_MIRRORS = tuple((VECTOR_TABLES[kind], bits) for kind, bits in BIT_TABLES.items())


def counts(conn: Connection) -> dict[str, int]:
    return {t: one_int(conn, f"SELECT count(*) FROM {t}") for t in COUNTED}


def integrity_check(conn: Connection) -> list[str]:
    """Problems found, one line each; empty when the file is sound and consistent."""
    problems: list[str] = []
    rows = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
    if rows != ["ok"]:
        problems.extend(f"integrity_check: {r}" for r in rows)
    for table, rowid, parent, _ in conn.execute("PRAGMA foreign_key_check").fetchall():
        problems.append(f"{table} row {rowid} refers to a missing {parent} row")
    version = schema_version(conn)
    row = conn.execute("SELECT value FROM kb_meta WHERE key = 'schema_version'").fetchone()
    if row is None or json.loads(row[0]) != version:
        problems.append(f"kb_meta schema_version {row and row[0]} differs from user_version {version}")
    for index, owner in OWNED:
        try:
            n = one_int(conn, f"SELECT count(*) FROM {index} WHERE rowid NOT IN (SELECT id FROM {owner})")
        except SQLError as e:  # a damaged virtual table: report it rather than stop the check
            problems.append(f"{index}: {e}")
            continue
        if n:
            problems.append(f"{n} rows in {index} have no matching row in {owner}")
    for floats, bits in BIT_MIRRORS:
        if conn.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (bits,)).fetchone() is None:
            continue  # a KB whose dimension has no bit tables, or one not yet migrated
        n = one_int(conn, f"SELECT count(*) FROM {floats} WHERE rowid NOT IN (SELECT rowid FROM {bits})")
        n += one_int(conn, f"SELECT count(*) FROM {bits} WHERE rowid NOT IN (SELECT rowid FROM {floats})")
        if n:
            problems.append(f"{n} rows differ between {floats} and its sign bits {bits}")
    for owner, fts in (("chunks", "chunks_fts"), ("questions", "questions_fts"), ("statements", "statements_fts")):
        n = one_int(conn, f"SELECT count(*) FROM {owner} WHERE id NOT IN (SELECT rowid FROM {fts})")
        if n:
            problems.append(f"{n} {owner} have no full-text row in {fts}")
    return problems
