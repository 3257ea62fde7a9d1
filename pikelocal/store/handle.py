"""The one open connection of a KB as its parts see it: :class:`Db`, made by :class:`~pikelocal.store.store.Store`.

The store's parts (``documents``, ``chunks``, ``index``, ``cache``, …) take a ``Db`` rather than the ``Store``, so
each can be read and tested alone and none imports ``store.store``. Every call goes through one re-entrant lock,
so a ``Db`` may be shared between threads (LLM cache writes come from several). Write transactions are
``BEGIN IMMEDIATE`` (in WAL mode a deferred transaction that upgrades to a write can fail with SQLITE_BUSY without
waiting); nested ones are savepoints of the outer one. Callers must not run an LLM call inside
:meth:`Db.transaction`: the lock would stall every other thread meanwhile.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pikelocal.domain.errors import DiskFullError, StoreError
from pikelocal.store import db


class Db:
    """The connection to one KB file, its lock and its transactions; ``path`` and ``readonly`` as it was opened."""

    def __init__(self, conn: db.Connection, path: Path, *, readonly: bool) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self._lock = threading.RLock()
        self._depth = 0  # transaction nesting; > 1 uses savepoints
        self._closed = False

    # --- statements ----------------------------------------------------------------------------------

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of ``sql``."""
        with self._lock:  # fetch everything under the lock: apsw cursors are lazy
            return self._conn.execute(sql, params).fetchall()

    def one(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row of ``sql``, or None when it has none."""
        rows = self.rows(sql, params)
        return rows[0] if rows else None

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run ``sql`` (one statement or several, without parameters); the rows the last INSERT, UPDATE or DELETE
        changed. A write belongs inside :meth:`transaction`."""
        with self._lock:
            self._conn.execute(sql, params)
            return int(self._conn.changes())

    def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run the INSERT ``sql``; the rowid of the row it inserted."""
        with self._lock:
            self._conn.execute(sql, params)
            return int(self._conn.last_insert_rowid())

    def executemany(self, sql: str, params: Iterable[Sequence[Any]]) -> None:
        """Run ``sql`` once per parameter row."""
        with self._lock:
            self._conn.executemany(sql, params)

    @contextmanager
    def locked(self) -> Iterator[db.Connection]:
        """The raw connection, under the lock, for the helpers that take one (``vectors``, ``checks``, ``salvage``)."""
        with self._lock:
            yield self._conn

    # --- transactions --------------------------------------------------------------------------------

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
            except BaseException as exc:
                self._depth -= 1
                self._roll_back(depth)
                if isinstance(exc, db.FullError):
                    raise self._full(exc) from exc
                raise
            self._depth -= 1
            try:
                self._conn.execute("COMMIT" if depth == 0 else f"RELEASE sp{depth}")
            except db.FullError as exc:
                self._roll_back(depth)
                raise self._full(exc) from exc

    def _roll_back(self, depth: int) -> None:
        if depth == 0:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
        else:
            self._conn.execute(f"ROLLBACK TO sp{depth}; RELEASE sp{depth}")

    def _full(self, exc: Exception) -> DiskFullError:
        return DiskFullError(
            f"{self.path}: {exc}: free some space and run the same command again (finished work is kept)"
        )

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

    def close(self) -> None:
        """Close the connection (once; later calls do nothing), as :func:`db.close` does."""
        with self._lock:
            if not self._closed:
                self._closed = True
                db.close(self._conn, readonly=self.readonly)

    # --- kb_meta -------------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """``kb_meta``, each value read back from its JSON."""
        return {k: json.loads(v) for k, v in self.rows("SELECT key, value FROM kb_meta ORDER BY key")}

    def set_meta(self, key: str, value: Any) -> None:
        with self.transaction():
            self.execute(
                "INSERT INTO kb_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value, ensure_ascii=False)),
            )
