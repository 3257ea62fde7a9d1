"""One writer at a time: a lease in the KB itself that ingest, enrich and reembed hold while they work.

Two processes writing one KB used to collide: the second ingest of a folder aborted on the first one's documents
("same sha256"), and two ingests of different folders each embedded the other's chunks. With the lease, a second
writer says what it waits for and waits; when its turn comes it finds the first one's work done (files unchanged,
chunks embedded) and does only what is left. Readers (search, ask) never wait for it.

The lease is a ``kb_meta`` row naming the holder (pid, host, what, when) with a heartbeat the holder refreshes. A
holder that died (its pid is gone on this host, or its heartbeat is older than ``STALE_S`` for a KB on a shared
drive) is replaced, so a killed run never locks a KB for good. Within one process the lease is re-entrant.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from pikelocal.domain.events import EventSink, Notice
from pikelocal.store.store import Store

LEASE_KEY = "writer_lease"
BEAT_S = 10.0  # the holder refreshes its heartbeat this often
STALE_S = 60.0  # a heartbeat this old means the holder is gone (used when the holder is on another host)
POLL_S = 1.0

_held: dict[str, int] = {}  # KB path → re-entrant depth in this process
_held_lock = threading.Lock()


@dataclass(frozen=True)
class Holder:
    pid: int
    host: str
    what: str  # "ingest", "enrich", "reembed"
    since: str  # ISO-8601 UTC
    beat: float  # time.time() of the last heartbeat

    @staticmethod
    def parse(value: Any) -> Holder | None:
        try:
            return Holder(int(value["pid"]), str(value["host"]), str(value["what"]), str(value["since"]),
                          float(value["beat"]))  # fmt: skip
        except (TypeError, KeyError, ValueError):
            return None  # not a lease we understand: treat it as absent


def is_alive(holder: Holder, *, now: float | None = None) -> bool:
    """Whether ``holder`` may still be working: its process exists (same host), or its heartbeat is fresh."""
    if holder.host == socket.gethostname():
        try:
            os.kill(holder.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True  # another user's live process
        return True
    return (now if now is not None else time.time()) - holder.beat < STALE_S


def _mine(holder: Holder) -> bool:
    return holder.pid == os.getpid() and holder.host == socket.gethostname()


def _try_take(store: Store, what: str) -> Holder | None:
    """Take the lease unless a live writer holds it; the holder that blocks us, or None when taken."""
    with store.transaction():
        current = Holder.parse(store.meta().get(LEASE_KEY))
        if current is not None and not _mine(current) and is_alive(current):
            return current
        me = Holder(
            os.getpid(), socket.gethostname(), what, datetime.now(UTC).isoformat(timespec="seconds"), time.time()
        )
        store.set_meta(LEASE_KEY, asdict(me))
        return None


def _release(store: Store) -> None:
    with store.transaction():
        current = Holder.parse(store.meta().get(LEASE_KEY))
        if current is not None and _mine(current):
            store.set_meta(LEASE_KEY, None)


def _beat(store: Store, stop: threading.Event) -> None:
    while not stop.wait(BEAT_S):
        try:
            with store.transaction():
                current = Holder.parse(store.meta().get(LEASE_KEY))
                if current is None or not _mine(current):
                    return  # taken over (we looked dead): nothing of ours to refresh
                store.set_meta(LEASE_KEY, {**asdict(current), "beat": time.time()})
        except Exception:  # a heartbeat that fails must not take the work down; the next one tries again
            continue


@contextmanager
def writer_lease(
    store: Store, what: str, sink: EventSink, *, sleep: Callable[[float], None] = time.sleep
) -> Iterator[None]:
    """Hold the KB's writer lease for the block, waiting (and saying so once) while another writer holds it."""
    key = str(store.path.resolve())
    with _held_lock:
        depth = _held.get(key, 0)
        _held[key] = depth + 1
    if depth:  # this process holds it already (the TUI adds while an enrichment runs): share it
        try:
            yield
        finally:
            with _held_lock:
                _held[key] -= 1
        return
    try:
        said = False
        while (blocker := _try_take(store, what)) is not None:
            if not said:
                who = f"{blocker.what}, pid {blocker.pid} on {blocker.host}, since {blocker.since}"
                sink(Notice("info", f"{store.path.name}: waiting for another writer of this KB ({who}) to finish…"))
                said = True
            sleep(POLL_S)
        stop = threading.Event()
        beat = threading.Thread(target=_beat, args=(store, stop), name="pikelocal-lease", daemon=True)
        beat.start()
        try:
            yield
        finally:
            stop.set()
            beat.join()
            _release(store)
    finally:
        with _held_lock:
            _held[key] -= 1
            if not _held[key]:
                del _held[key]
