"""What SQLite can still read from a damaged KB, copied into a new KB (``pikelocal recover``).

SQLite's own recovery extension (the shell's ``.recover``) is not part of apsw, so the copy is row by row: every
table that holds data, in rowid order. A page that cannot be read loses its rows and the copy goes on after it: the
next readable rowid is found by seeking (a seek lands in a readable page or fails), first in growing steps, then by
bisection. A row whose owner was lost (a question of a lost chunk) is dropped; a reference that may be NULL is set
NULL. What is derived from the rows is made again rather than copied: the FTS5 indexes from the texts, and the sign
bits from the vectors. Vectors are copied where they read back intact (finite and of unit length, as every encoder
writes them; SQLite keeps no checksums, so this is the only test a flipped bit in a vector can fail) and are left
for the encoder otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from pikelocal.store import db, schema
from pikelocal.store.fts import normalize_for_index
from pikelocal.store.index import _OWNER as OWNERS  # the table each vector table's rowids are the ids of

if TYPE_CHECKING:
    from pikelocal.store.handle import Db
    from pikelocal.store.index import SearchIndex, VectorTable

MIN_ROWID = -(2**63)
MAX_ROWID = 2**63 - 1
BATCH = 512
UNIT_TOLERANCE = 1e-3  # |norm - 1| of a stored vector: float32 rounding is ~1e-7; a flipped high bit is far above
# kb_meta rows that belong to the file rather than to its contents: the new file's own schema version
SKIP_META = ("schema_version",)
VECTOR_KINDS: tuple[VectorTable, ...] = ("chunk", "late", "question", "entity", "summary", "triple", "statement")


class OpenKB(Protocol):
    """What salvage needs of an open KB (a :class:`~pikelocal.store.store.Store`, which does not import this module):
    its connection, encoder dimension and vector index."""

    @property
    def db(self) -> Db: ...

    @property
    def dim(self) -> int: ...

    @property
    def index(self) -> SearchIndex: ...


@dataclass
class Salvage:
    """What a copy read, lost and dropped; see :class:`pikelocal.domain.reports.RecoverReport`."""

    rows: dict[str, int] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    vectors_copied: int = 0


def data_tables(store: OpenKB) -> list[str]:
    """The ordinary tables of ``store``'s schema that hold data (not SQLite's own, not the shadow tables of FTS5 and
    vec0, which are made again from the data)."""
    rows = store.db.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'table' ORDER BY rowid")
    virtual = [str(n) for n, sql in rows if str(sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
    out = []
    for (name,) in ((str(r[0]),) for r in rows):
        if name.startswith("sqlite_") or name in virtual or any(name.startswith(v + "_") for v in virtual):
            continue
        out.append(name)
    return out


def copy_rows(source: db.Connection, store: OpenKB, *, skip_meta: Sequence[str] = ()) -> Salvage:
    """Copy every data table of ``source`` (a damaged KB opened by :func:`db.open_damaged`) into the new, empty KB
    ``store`` (of the same encoder), drop what lost its owner, and index the texts again (vectors:
    :func:`copy_vectors`). ``kb_meta`` rows named in ``skip_meta`` stay out (a writer's lease on the old file)."""
    salvage = Salvage()
    skip = set(SKIP_META) | set(skip_meta)
    tables = data_tables(store)
    with store.db.locked() as conn:
        # Off while copying, so the tables may come in any order; the orphans are dropped afterwards, at once.
        conn.execute("PRAGMA foreign_keys=OFF")
        try:
            with store.db.transaction():
                conn.execute("DELETE FROM kb_meta WHERE key NOT IN (SELECT value FROM json_each(?))", (_json(skip),))
                for table in tables:
                    salvage.rows[table] = _copy_table(source, conn, table, skip, salvage)
                salvage.dropped = _drop_orphans(conn, tables)
                _index_texts(conn)
        finally:
            conn.execute("PRAGMA foreign_keys=ON")
    for table, n in salvage.dropped.items():
        salvage.rows[table] -= n
    return salvage


def _json(values: Sequence[str] | set[str]) -> str:
    return json.dumps(sorted(values))


def _columns(conn: db.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f"PRAGMA table_info({_q(table)})").fetchall()]


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _has_rowid(conn: db.Connection, table: str) -> bool:
    try:
        conn.execute(f"SELECT rowid FROM {_q(table)} LIMIT 0").fetchall()
    except db.SQLError:
        return False
    return True


def _copy_table(source: db.Connection, conn: db.Connection, table: str, skip: set[str], salvage: Salvage) -> int:
    """Copy the rows of ``table`` that read; the number copied (rows the new schema refuses are counted as lost)."""
    try:
        have = set(_columns(source, table))
    except db.DAMAGE_ERRORS as e:
        salvage.unreadable.append(f"{table}: not readable ({e})")
        return 0
    if not have:  # a table this (older) KB did not have yet
        return 0
    cols = [c for c in _columns(conn, table) if c in have]
    names = ", ".join(_q(c) for c in cols)
    rowid = _has_rowid(conn, table) and _has_rowid(source, table)
    insert = (
        f"INSERT INTO {_q(table)}(rowid, {names}) VALUES (?{', ?' * len(cols)})"
        if rowid
        else f"INSERT INTO {_q(table)}({names}) VALUES ({', '.join('?' * len(cols))})"
    )
    rows = _rows_by_rowid(source, table, names, salvage) if rowid else _rows_in_order(source, table, names, salvage)
    copied = 0
    for row in rows:
        if table == "kb_meta" and row[cols.index("key")] in skip:
            continue
        try:
            conn.execute(insert, row)
        except db.SQLError:  # a value the schema refuses (NOT NULL, UNIQUE, CHECK): the damage reached the row
            salvage.dropped[table] = salvage.dropped.get(table, 0) + 1
            continue
        copied += 1
    return copied


def _rows_by_rowid(source: db.Connection, table: str, names: str, salvage: Salvage) -> Iterator[tuple[Any, ...]]:
    """(rowid, columns…) of every row that reads, in rowid order; an unreadable stretch is noted and skipped."""
    # ``rowid >= start``, as in the probe of :func:`_readable_from`: ``rowid > last`` would seek to the last row
    # read, which may lie on the damaged page itself, and fail where the probe succeeded.
    sql = f"SELECT rowid, {names} FROM {_q(table)} WHERE rowid >= ? ORDER BY rowid"
    start, last = MIN_ROWID, None
    while True:
        try:
            for row in source.execute(sql, (start,)):
                yield row
                last = db.int_of(row[0])
            return
        except db.DAMAGE_ERRORS as e:
            after = last if last is not None and last >= start else start - 1
            resume = _next_readable(source, table, names, after)
            where = f"after rowid {after}" if after >= MIN_ROWID else "from the start"
            upto = "to its end" if resume is None else f"up to rowid {resume}"
            salvage.unreadable.append(f"{table}: rows {where} {upto} could not be read ({e})")
            if resume is None:
                return
            start = max(resume, start + 1) if last is None or last < start else resume  # always forward


def _readable_from(source: db.Connection, table: str, names: str, start: int) -> bool:
    try:
        source.execute(
            f"SELECT rowid, {names} FROM {_q(table)} WHERE rowid >= ? ORDER BY rowid LIMIT 1", (start,)
        ).fetchall()
    except db.DAMAGE_ERRORS:
        return False
    return True


def _next_readable(source: db.Connection, table: str, names: str, after: int) -> int | None:
    """The smallest rowid > ``after`` from which reading works again (None: nothing after ``after`` reads)."""
    bad, step = after, 1
    while True:  # growing steps until a seek works
        good = min(after + step, MAX_ROWID)
        if _readable_from(source, table, names, good):
            break
        bad = good
        if good == MAX_ROWID:
            return None
        step *= 2
    while good - bad > 1:  # then bisect between the last seek that failed and the first that worked
        mid = (bad + good) // 2
        if _readable_from(source, table, names, mid):
            good = mid
        else:
            bad = mid
    return good


def _rows_in_order(source: db.Connection, table: str, names: str, salvage: Salvage) -> Iterator[tuple[Any, ...]]:
    """The rows of a WITHOUT ROWID table in key order, up to the first that cannot be read (small tables: a
    mapping or a list; their keys are not numbers to seek past a damaged page with)."""
    try:
        yield from source.execute(f"SELECT {names} FROM {_q(table)}")
    except db.DAMAGE_ERRORS as e:
        salvage.unreadable.append(f"{table}: the rows after the first damaged page could not be read ({e})")


def _drop_orphans(conn: db.Connection, tables: list[str]) -> dict[str, int]:
    """Delete the rows whose owner was lost (again, until none is left: a lost chunk's questions, then their
    rows), and set NULL the references that may be NULL; the rows deleted per table."""
    dropped: dict[str, int] = {}
    while True:
        changed = 0
        for table in tables:
            for fk in conn.execute(f"PRAGMA foreign_key_list({_q(table)})").fetchall():
                parent, column, target, on_delete = str(fk[2]), str(fk[3]), fk[4], str(fk[6]).upper()
                wanted = _q(str(target)) if target else "rowid"
                lost = f"{_q(column)} IS NOT NULL AND {_q(column)} NOT IN (SELECT {wanted} FROM {_q(parent)})"
                if on_delete == "SET NULL":
                    conn.execute(f"UPDATE {_q(table)} SET {_q(column)} = NULL WHERE {lost}")
                else:
                    conn.execute(f"DELETE FROM {_q(table)} WHERE {lost}")
                    dropped[table] = dropped.get(table, 0) + conn.changes()
                changed += conn.changes()
        if not changed:
            return {t: n for t, n in dropped.items() if n}


def _index_texts(conn: db.Connection) -> None:
    """The full-text rows of the chunks, atomic questions, done summary nodes and statements, as the store writes
    them."""
    for select, insert in (
        ("SELECT id, header, text FROM chunks", "INSERT INTO chunks_fts(rowid, header, text) VALUES (?, ?, ?)"),
        ("SELECT id, text FROM questions", "INSERT INTO questions_fts(rowid, text) VALUES (?, ?)"),
        (
            "SELECT id, summary FROM summary_nodes WHERE status = 'done' AND summary IS NOT NULL",
            "INSERT INTO summaries_fts(rowid, text) VALUES (?, ?)",
        ),
        (
            "SELECT id, subject || ' ' || heading, sentence FROM statements",
            "INSERT INTO statements_fts(rowid, subject, sentence) VALUES (?, ?, ?)",
        ),
    ):
        rows = conn.execute(select).fetchall()
        conn.executemany(insert, [(r[0], *(normalize_for_index(str(v or "")) for v in r[1:])) for r in rows])


def copy_vectors(source: db.Connection, store: OpenKB) -> int:
    """Copy every vector of the rows the new KB holds that reads back intact from ``source``; the number copied.
    Those that do not are left missing, for the encoder to make again (the sign bits come with each vector)."""
    copied = 0
    for table in VECTOR_KINDS:
        name, owner = schema.VECTOR_TABLES[table], OWNERS[table]
        ids = [db.int_of(r[0]) for r in store.db.rows(f"SELECT id FROM {owner} ORDER BY id")]
        for start in range(0, len(ids), BATCH):
            batch = ids[start : start + BATCH]
            kept: list[int] = []
            vecs: list[np.ndarray] = []
            for row_id in batch:
                vec = _intact(source, name, row_id, store.dim)
                if vec is not None:
                    kept.append(row_id)
                    vecs.append(vec)
            if kept:
                store.index.put_vectors(table, kept, np.stack(vecs), skip_missing=True)
                copied += len(kept)
    return copied


def _intact(source: db.Connection, name: str, row_id: int, dim: int) -> np.ndarray | None:
    """The vector of ``row_id`` in ``source``'s table ``name`` when it reads and looks as an encoder wrote it."""
    try:
        row = source.execute(f"SELECT embedding FROM {name} WHERE rowid = ?", (row_id,)).fetchone()
    except db.SQLError:  # a damaged page, or vec0's own tables no longer agreeing: make it again
        return None
    if row is None or not isinstance(row[0], bytes) or len(row[0]) != 4 * dim:
        return None
    vec = np.frombuffer(row[0], dtype="<f4").astype(np.float32)
    if not np.all(np.isfinite(vec)):
        return None
    norm = float(np.linalg.norm(vec))
    return vec if norm == 0.0 or abs(norm - 1.0) <= UNIT_TOLERANCE else None


def mark_unembedded(store: OpenKB) -> int:
    """Send the documents some of whose chunks have no early vector back to stage 'parsed', so that the ingest
    pipeline's resume (``Ingestor.finish_pending``) embeds those chunks; the number of such documents."""
    with store.db.transaction():
        return store.db.execute(
            "UPDATE documents SET stage = 'parsed' WHERE stage IN ('embedded', 'ready') AND id IN"
            " (SELECT doc_id FROM chunks WHERE id NOT IN (SELECT rowid FROM chunk_vectors))"
        )


def missing_vectors(store: OpenKB, *, late: bool) -> int:
    """Rows of the KB that should have a vector and have none (late vectors only with ``late``)."""
    n = 0
    for table, name in schema.VECTOR_TABLES.items():
        if table == "late" and not late:
            continue
        where = " WHERE status = 'done'" if table == "summary" else ""
        rows = f"SELECT id FROM {OWNERS[table]}{where}"
        with store.db.locked() as conn:
            n += db.one_int(conn, f"SELECT count(*) FROM ({rows}) WHERE id NOT IN (SELECT rowid FROM {name})")
    return n
