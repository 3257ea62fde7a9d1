"""``recover``: a new KB from what SQLite can still read of a damaged one, which is never touched.

The damaged file is opened immutable (no lock, no journal, nothing written beside it; read-only instead when it has
a ``-wal``, whose commits would otherwise be missed). Its rows go into a new KB written under a temporary name next
to NEW (:mod:`pikelocal.store.salvage`), the vectors that were lost or damaged are made again by the KB's encoder as
a resumed ingestion makes them, the copy must pass the store's integrity check, and only then is it synced and
renamed to NEW: a run killed at any point leaves no NEW, and the next run starts again. An encrypted KB is read with
its key and the new one is encrypted with the same key.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from pikelocal.config import Settings
from pikelocal.domain.errors import InputError, StoreError
from pikelocal.domain.events import EventSink, Notice
from pikelocal.domain.reports import RecoverReport
from pikelocal.embed.base import Encoder
from pikelocal.ingest.enrich.enrich import embed_facts
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.kb.lease import LEASE_KEY
from pikelocal.kb.options import ingest_options
from pikelocal.kb.session import kb_session
from pikelocal.store import damage, db, keys, salvage
from pikelocal.store.store import Store, fsync_path

SUFFIX = ".recovering"


def recover(
    settings: Settings, source: Path, target: Path, encoder: Callable[[], Encoder], sink: EventSink
) -> RecoverReport:
    """Copy what reads of the KB ``source`` into the new KB ``target`` (see the module); ``encoder`` loads the KB's
    encoder, called only when some vector must be made again."""
    started = time.monotonic()
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise InputError(f"{source}: no such knowledge base")
    if target.exists() or target.is_symlink():
        raise InputError(f"{target} already exists; name a new file for the recovered knowledge base")
    if not target.parent.is_dir():
        raise InputError(f"{target.parent}: no such folder")
    if target.resolve() == source.resolve():
        raise InputError("recover writes a new knowledge base: name another file than the damaged one")
    key = keys.key_for(source) if keys.file_kind(source) == "encrypted" else None
    tmp = target.with_name(target.name + SUFFIX)
    _remove(tmp)  # what a killed run left: it is made again from the start
    sink(Notice("info", f"reading what can be read from {source}", str(source)))
    try:
        with closing(db.open_damaged(source, key=key)) as old:
            found = tuple(damage.damage(old, source))
            encoder_id, dim = _encoder_of(old, source)
            db.create_private(tmp)
            with Store.open(tmp, encoder_id=encoder_id, dim=dim, key=key) as new:
                copied = salvage.copy_rows(old, new, skip_meta=(LEASE_KEY,))
                vectors = salvage.copy_vectors(old, new)
                late = new.index.has_vectors("late")
                missing = salvage.missing_vectors(new, late=late)
        embedded = _embed_missing(settings, tmp, encoder(), key, late, sink) if missing else 0
        with Store.open_existing(tmp, key=key, check=False) as new:
            problems = new.integrity_check()
            chunks = new.counts()["chunks"]
        if problems:
            raise StoreError(f"{tmp}: the recovered copy fails its own check ({problems[0]}); {source} is untouched")
        fsync_path(tmp)
        if target.exists():  # made by someone else meanwhile: never replaced
            raise InputError(f"{target} already exists; name a new file for the recovered knowledge base")
        os.replace(tmp, target)
        fsync_path(target.parent)
    except BaseException:
        _remove(tmp)
        raise
    if key is not None:
        keys.remember(target, key)
    return RecoverReport(
        source, target, found, dict(copied.rows), tuple(copied.unreadable), dict(copied.dropped), chunks, vectors,
        embedded, time.monotonic() - started,
    )  # fmt: skip


def _encoder_of(conn: db.Connection, source: Path) -> tuple[str, int]:
    """The damaged KB's encoder (id and dimension), which the new KB is made with; without it nothing is usable."""
    try:
        rows = conn.execute("SELECT key, value FROM kb_meta WHERE key IN ('encoder_id', 'encoder_dim')").fetchall()
    except db.SQLError as e:
        raise StoreError(f"{source}: its settings (kb_meta) cannot be read ({e}); nothing can be recovered") from e
    found = {str(k): json.loads(str(v)) for k, v in rows}
    if len(found) != 2:
        raise StoreError(f"{source}: its encoder is not recorded (kb_meta); nothing can be recovered")
    return str(found["encoder_id"]), int(found["encoder_dim"])


def _embed_missing(
    settings: Settings, path: Path, encoder: Encoder, key: str | None, late: bool, sink: EventSink
) -> int:
    """Make the vectors the copy lacks with the KB's encoder (after its probe check, as any writer), as a resumed
    ingestion and ``reembed`` make them; the number made."""
    with kb_session(settings, path, encoder=encoder, key=key) as s:
        before = salvage.missing_vectors(s.store, late=late)
        salvage.mark_unembedded(s.store)
        Ingestor(s.store, s.encoder, ingest_options(s.settings, late=late), sink).finish_pending()
        embed_missing(s.store, s.encoder)
        return before - salvage.missing_vectors(s.store, late=late)


def embed_missing(store: Store, encoder: Encoder) -> int:
    """Vectors for the atomic questions, entity names, triples and done summary nodes that have none (after
    ``reembed`` dropped them all, or ``recover`` lost some); the number of question vectors made."""
    done = 0
    while batch := store.index.questions_without_vectors():
        vectors = encoder.encode([text for _, text in batch], role="query")
        store.index.put_vectors("question", [qid for qid, _ in batch], vectors, skip_missing=True)
        done += len(batch)
    while names := store.graph.without_vectors():  # the entity graph's name vectors
        vectors = encoder.encode([name for _, name in names], role="query")
        store.index.put_vectors("entity", [eid for eid, _ in names], vectors, skip_missing=True)
    embed_facts(store, encoder)  # the graph's triples (fact seeds)
    while nodes := store.summaries.without_vectors():  # the summary trees' nodes
        vectors = encoder.encode([text for _, text in nodes], role="passage")
        store.index.put_vectors("summary", [nid for nid, _ in nodes], vectors, skip_missing=True)
    return done


def _remove(path: Path) -> None:
    for p in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm", "-journal"))):
        p.unlink(missing_ok=True)
