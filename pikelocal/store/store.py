"""The knowledge base as one SQLite file: the one concrete ``Store`` class every layer above uses.

``Store`` itself is about the file and its connection: opening, closing, transactions, snapshots, ``kb_meta``
and health checks. What is kept in the file is reached through its parts, one concern each, made in
``__init__`` and sharing the store's connection and lock (a part may call another through the store):

* ``store.docs`` (:class:`~pikelocal.store.documents.Documents`): documents, their pages, ingestion failures;
* ``store.chunks`` (:class:`~pikelocal.store.chunks.Chunks`): chunks and their atomic questions;
* ``store.index`` (:class:`~pikelocal.store.index.SearchIndex`): vectors, KNN and full-text search;
* ``store.cache`` (:class:`~pikelocal.store.cache.LLMCache`): the LLM completion cache;
* ``store.enrichment`` (:class:`~pikelocal.store.enrichment.Enrichment`): summaries and atomic questions to do;
* ``store.traces`` (:class:`~pikelocal.store.traces.Traces`): the stored query traces.

One connection per Store, guarded by a re-entrant lock, so a Store may be shared between threads (LLM
cache writes come from several). Write transactions are ``BEGIN IMMEDIATE`` (in WAL mode a deferred
transaction that upgrades to a write can fail with SQLITE_BUSY without waiting). Callers must not run an
LLM call inside :meth:`Store.transaction`: the lock would stall every other thread meanwhile.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pikelocal import __version__
from pikelocal.domain.errors import DiskFullError, EncoderMismatchError, StoreError
from pikelocal.embed.probes import ProbeEncoder
from pikelocal.store import checks, damage, db, keys, schema
from pikelocal.store.cache import LLMCache
from pikelocal.store.chunks import Chunks
from pikelocal.store.documents import Documents
from pikelocal.store.enrichment import Enrichment
from pikelocal.store.fts import FTS_NORMALIZER_VERSION
from pikelocal.store.graph import Graph
from pikelocal.store.index import SearchIndex
from pikelocal.store.probe_check import check_probes
from pikelocal.store.references import References
from pikelocal.store.reviews import Reviews
from pikelocal.store.summaries import Summaries
from pikelocal.store.traces import Traces

logger = logging.getLogger(__name__)


class Store:
    """An open KB file. Create with :meth:`open` or :meth:`open_existing`; use as a context manager."""

    def __init__(self, conn: db.Connection, path: Path, *, readonly: bool) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self._lock = threading.RLock()
        self._depth = 0  # transaction nesting; > 1 uses savepoints
        self._closed = False
        self.docs = Documents(self)
        self.chunks = Chunks(self)
        self.index = SearchIndex(self)
        self.cache = LLMCache(self)
        self.enrichment = Enrichment(self)
        self.traces = Traces(self)
        self.refs = References(self)
        self.graph = Graph(self)
        self.summaries = Summaries(self)
        self.reviews = Reviews(self)
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
        key: str | None = None,
    ) -> Store:
        """Open the KB at ``path`` for writing, creating it (or filling an empty file) when ``create``.

        Raises EncoderMismatchError when the KB was built with another encoder or dimension. With ``probe`` (the
        encoder about to be used), also EncoderNumericsError when that encoder's probe vectors disagree with the
        ones the KB recorded (``probe_check``); ``force`` downgrades that to a warning. ``key`` opens an encrypted KB
        (or creates one); without it, the key :func:`keys.key_for` finds.
        """
        path = Path(path)
        if not create and not path.exists():
            raise StoreError(f"{path} does not exist")
        conn = db.connect(path, key=key)
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
        except db.DAMAGE_ERRORS as e:
            db.close(conn)
            raise damage.corrupt(path, str(e)) from e
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
    def open_existing(cls, path: Path, *, readonly: bool = True, key: str | None = None, check: bool = True) -> Store:
        """Open an existing KB whatever its encoder (for ``doctor``, listing, inspection). Read-only, a damaged file
        is opened after one warning; ``check=False`` skips that check (for a caller that reports damage itself, or
        reads one value of ``kb_meta``). For writing it is refused (:func:`db.connect`)."""
        path = Path(path)
        if not path.exists():
            raise StoreError(f"{path} does not exist")
        conn = db.connect(path, readonly=readonly, key=key, check=check)
        try:
            version = schema.check_version(conn, path)
            if version == 0:
                raise StoreError(f"{path} is empty, not a pikelocal knowledge base")
            if not readonly:
                schema.migrate(conn, path, new_kb=None)
            elif version < schema.LATEST_VERSION:  # an older KB: upgrade it once, then read it as asked
                db.close(conn, readonly=True)
                cls.open_existing(path, readonly=False, key=key).close()
                conn = db.connect(path, readonly=True, key=key, check=check)
            return cls(conn, path, readonly=readonly)
        except db.DAMAGE_ERRORS as e:
            db.close(conn, readonly=readonly)
            raise damage.corrupt(path, str(e)) from e
        except BaseException:
            db.close(conn, readonly=readonly)
            raise

    @staticmethod
    def reencrypt(
        path: Path,
        new_key: str | None,
        *,
        key: str | None = None,
        check: Callable[[Mapping[str, Any]], None] | None = None,
    ) -> None:
        """Encrypt the KB at ``path`` with ``new_key`` (a plain KB, or an encrypted one opened with ``key``, else the
        key :func:`keys.key_for` finds), or with ``new_key=None`` make it plain again, replacing the file only once
        the new one is complete.

        Crash-safe: a compact copy is written next to it (``VACUUM INTO``, mode 0600), checked with the new key (or
        none), synced, and renamed over the original (``os.replace``, atomic), so a run killed at any point leaves
        either the old file or the new one, whole. The original's ``-wal`` is checkpointed into it first (and its
        ``-shm`` removed) under the exclusive lock, so the copy has every commit and no stale ``-wal`` lies beside
        the new file. Refused while another connection has the file open; ``check`` sees ``kb_meta`` under the
        exclusive lock and may raise to refuse (a live writer's lease).
        """
        path = Path(path).resolve()
        old_key = keys.key_for(path, key) if keys.file_kind(path) == "encrypted" else None
        if new_key is not None:
            keys.check_key(new_key)
        tmp = path.with_name(path.name + (".encrypting" if new_key is not None else ".decrypting"))
        for suffix in (".encrypting", ".decrypting"):  # from a run killed before its rename (a plain one, too)
            leftover = path.with_name(path.name + suffix)
            for name in (leftover, leftover.with_name(leftover.name + "-journal")):
                name.unlink(missing_ok=True)
        with db.sole(path, key=old_key) as conn:
            if check is not None:
                rows = conn.execute("SELECT key, value FROM kb_meta").fetchall()
                check({str(k): json.loads(str(v)) for k, v in rows})
            db.create_private(tmp)
            try:
                db.vacuum_into(conn, tmp, key=new_key)
                if keys.file_kind(tmp) != ("encrypted" if new_key is not None else "plain"):
                    raise StoreError(f"{tmp}: the copy is not what was asked for; {path} is left as it was")
                with Store.open_existing(tmp, key=new_key) as copy:  # the new key (or none) opens it; it is a KB
                    if copy.meta().get("encoder_id") is None:
                        raise StoreError(f"{tmp}: the new copy has no kb_meta; {path} is left as it was")
                fsync_path(tmp)
                os.replace(tmp, path)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            fsync_path(path.parent)
        keys.forget(path)
        if new_key is not None:
            keys.remember(path, new_key)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                db.close(self._conn, readonly=self.readonly)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
        if isinstance(ev, db.DAMAGE_ERRORS):  # a damaged page met while reading: one line naming this file
            raise damage.corrupt(self.path, str(ev)) from ev

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

    # --- health --------------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        with self._lock:
            return checks.counts(self._conn)

    def integrity_check(self) -> list[str]:
        with self._lock:
            return checks.integrity_check(self._conn)


def fsync_path(path: Path) -> None:
    """Flush ``path`` (a file, or a folder after a rename in it) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
