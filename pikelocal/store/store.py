"""The knowledge base as one SQLite file: the one concrete ``Store`` class every layer above uses.

``Store`` itself is about the file: opening, closing, transactions, snapshots, ``kb_meta`` and health checks.
Its connection is a :class:`~pikelocal.store.handle.Db` (``store.db``: ``rows``, ``one``, ``execute``,
``transaction``, …). What is kept in the file is reached through the Store's parts, one concern each, made in
``__init__`` from that ``Db`` (never from the Store: no part imports this module, a contract in pyproject.toml
says so), a part that calls another being handed it there:

* ``store.docs`` (:class:`~pikelocal.store.documents.Documents`): documents, their pages, ingestion failures;
* ``store.chunks`` (:class:`~pikelocal.store.chunks.Chunks`): chunks and their atomic questions;
* ``store.index`` (:class:`~pikelocal.store.index.SearchIndex`): vectors, KNN and full-text search;
* ``store.cache`` (:class:`~pikelocal.store.cache.LLMCache`): the LLM completion cache;
* ``store.enrichment`` (:class:`~pikelocal.store.enrichment.Enrichment`): summaries and atomic questions to do;
* ``store.traces`` (:class:`~pikelocal.store.traces.Traces`): the stored query traces;
* ``store.refs``, ``store.graph``, ``store.summaries``, ``store.reviews``, ``store.view_marks``: legal
  cross-references, the entity graph, summary trees, document reviews, the marks on the review views' rows;
* ``store.statements`` (:class:`~pikelocal.store.statements.Statements`): every value of a document with what it is
  a value of, with their full-text rows and vectors.

One connection per Store, guarded by the Db's re-entrant lock, so a Store may be shared between threads (LLM
cache writes come from several). Write transactions are ``BEGIN IMMEDIATE`` (in WAL mode a deferred
transaction that upgrades to a write can fail with SQLITE_BUSY without waiting). Callers must not run an
LLM call inside :meth:`Store.transaction`: the lock would stall every other thread meanwhile.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pikelocal import __version__
from pikelocal.domain.errors import EncoderMismatchError, StoreError
from pikelocal.embed.probes import ProbeEncoder
from pikelocal.store import checks, damage, db, keys, schema
from pikelocal.store.cache import LLMCache
from pikelocal.store.chunks import Chunks
from pikelocal.store.documents import Documents
from pikelocal.store.enrichment import Enrichment
from pikelocal.store.fts import FTS_NORMALIZER_VERSION
from pikelocal.store.graph import Graph
from pikelocal.store.handle import Db
from pikelocal.store.index import SearchIndex
from pikelocal.store.probe_check import check_probes
from pikelocal.store.references import References
from pikelocal.store.reviews import Reviews
from pikelocal.store.statements import Statements
from pikelocal.store.summaries import Summaries
from pikelocal.store.traces import Traces
from pikelocal.store.view_marks import ViewMarks

logger = logging.getLogger(__name__)


class Store:
    """An open KB file. Create with :meth:`open` or :meth:`open_existing`; use as a context manager."""

    def __init__(self, conn: db.Connection, path: Path, *, readonly: bool) -> None:
        self.db = Db(conn, path, readonly=readonly)
        self.path = path
        self.readonly = readonly
        meta = self.meta()
        self.encoder_id: str = str(meta.get("encoder_id", ""))
        self.dim: int = int(meta.get("encoder_dim", 0))
        self.chunks = Chunks(self.db)
        self.index = SearchIndex(self.db, self.dim)
        self.summaries = Summaries(self.db)
        self.graph = Graph(self.db, self.index)
        self.docs = Documents(self.db, chunks=self.chunks, summaries=self.summaries, graph=self.graph)
        self.enrichment = Enrichment(self.db, docs=self.docs, chunks=self.chunks, index=self.index, graph=self.graph)
        self.cache = LLMCache(self.db)
        self.traces = Traces(self.db)
        self.refs = References(self.db)
        self.reviews = Reviews(self.db)
        self.view_marks = ViewMarks(self.db)
        self.statements = Statements(self.db, self.index)

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
        try:
            schema.migrate(conn, path, new_kb=_new_kb(encoder_id, dim, settings) if create else None)
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
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
        if isinstance(ev, db.DAMAGE_ERRORS):  # a damaged page met while reading: one line naming this file
            raise damage.corrupt(self.path, str(ev)) from ev

    def transaction(self) -> AbstractContextManager[None]:
        """One write transaction, committed on exit; nested calls become savepoints of the outer one
        (:meth:`Db.transaction`)."""
        return self.db.transaction()

    def snapshot(self) -> AbstractContextManager[None]:
        """Reads inside see one consistent state of the file, whatever another process commits meanwhile."""
        return self.db.snapshot()

    # --- kb_meta -------------------------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        return self.db.meta()

    def set_meta(self, key: str, value: Any) -> None:
        self.db.set_meta(key, value)

    # --- health --------------------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        with self.db.locked() as conn:
            return checks.counts(conn)

    def integrity_check(self) -> list[str]:
        with self.db.locked() as conn:
            return checks.integrity_check(conn)


def _new_kb(encoder_id: str, dim: int, settings: Mapping[str, Any] | None) -> schema.NewKB:
    """What a new KB is created with: the encoder, when, by which version, and the settings it was made with."""
    return schema.NewKB(
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


def fsync_path(path: Path) -> None:
    """Flush ``path`` (a file, or a folder after a rename in it) to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
