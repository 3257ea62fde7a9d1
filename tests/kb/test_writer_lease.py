"""Two writers on one KB: the second waits for the first, then does only what is left; a lease whose
holder died is taken over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.domain import Notice
from pikelocal.kb.lease import LEASE_KEY, Holder, writer_lease
from pikelocal.store.store import Store
from tests.support.encoders import SlowEncoder

WORKER = Path(__file__).with_name("writer_worker.py")
REPO = Path(__file__).resolve().parents[2]


def make_folder(root: Path, name: str, n: int) -> Path:
    folder = root / name
    folder.mkdir()
    for i in range(n):
        body = "\n\n".join(
            f"{name} clause {i}.{j}: the supplier delivers pump {j} within {i + j} days." for j in range(8)
        )
        (folder / f"{name}-{i}.md").write_text(f"# {name} document {i}\n\n{body}\n")
    return folder


def start(kb: Path, folder: Path, notices: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WORKER), str(kb), str(folder), "0.01", str(notices)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def wait_until_waiting(*notices: Path, timeout: float = 120.0) -> None:
    """Until every writer has said it waits for another (each appends its notices to its file at once)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(n.exists() and "waiting for another writer of this KB" in n.read_text() for n in notices):
            return
        time.sleep(0.05)
    raise AssertionError("the writers did not wait: " + " | ".join(n.read_text() for n in notices if n.exists()))


@contextmanager
def held_lease(kb: Path) -> Iterator[None]:
    """This test process holds the KB's writer lease for the block (so both writers arrive while it is held)."""
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store, writer_lease(store, "test", lambda e: None):
        yield


def finish(proc: subprocess.Popen[str]) -> dict[str, object]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def content(kb: Path) -> list[tuple[str, list[str]]]:
    """Each document (by file name) with its chunk texts: what two KBs must agree on."""
    with Store.open_existing(kb) as store:
        assert store.integrity_check() == []
        counts = store.counts()
        assert counts["chunk_vectors"] == counts["chunks"]
        return sorted(
            (Path(d.path).name, [c.text for c in store.chunks.chunks_of(d.id)]) for d in store.docs.documents()
        )


def test_two_ingests_at_once_end_as_one_ingest_of_both(tmp_path: Path) -> None:
    a, b = make_folder(tmp_path, "alpha", 6), make_folder(tmp_path, "beta", 6)
    kb = tmp_path / "shared.kb"
    with held_lease(kb):  # both start while a writer holds the KB: each waits, then one goes first
        first, second = start(kb, a, tmp_path / "a.log"), start(kb, b, tmp_path / "b.log")
        wait_until_waiting(tmp_path / "a.log", tmp_path / "b.log")
    one, two = finish(first), finish(second)
    assert one["statuses"] == two["statuses"] == ["ingested"] * 6
    chunks = sum(len(texts) for _, texts in content(kb))
    embedded = one["units"]["embed"] + two["units"]["embed"]  # type: ignore[index]
    assert embedded == chunks  # no chunk embedded twice
    together = tmp_path / "together.kb"
    with api.open_kb(together, api.load_settings(environ={}), encoder=SlowEncoder(0.0)) as knowledge_base:
        knowledge_base.add([a, b])
    assert content(kb) == content(together)
    with Store.open_existing(kb) as store:
        assert Holder.parse(store.meta().get(LEASE_KEY)) is None  # released


def test_the_same_folder_twice_at_once_is_ingested_once(tmp_path: Path) -> None:
    a = make_folder(tmp_path, "alpha", 4)
    kb = tmp_path / "shared.kb"
    with held_lease(kb):
        first, second = start(kb, a, tmp_path / "1.log"), start(kb, a, tmp_path / "2.log")
        wait_until_waiting(tmp_path / "1.log", tmp_path / "2.log")
    one, two = finish(first), finish(second)
    runs = sorted([one, two], key=lambda r: r["statuses"])  # whichever went first ingested; the other found it done
    assert runs[0]["statuses"] == ["ingested"] * 4 and runs[1]["statuses"] == ["unchanged"] * 4, runs
    assert runs[1]["units"].get("embed", 0) == 0  # type: ignore[union-attr]


def test_a_dead_holders_lease_is_taken_over(tmp_path: Path) -> None:
    kb = tmp_path / "kb.kb"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        holder = Holder(int(dead.stdout), os.uname().nodename, "ingest", "2026-01-01T00:00:00+00:00", time.time())
        store.set_meta(LEASE_KEY, holder.__dict__)
        notices: list[object] = []
        with writer_lease(store, "enrich", notices.append, sleep=lambda s: pytest.fail("waited for a dead holder")):
            taken = Holder.parse(store.meta()[LEASE_KEY])
        assert taken is not None and taken.pid == os.getpid() and taken.what == "enrich" and notices == []


def test_a_live_holder_is_waited_for_and_named_once(tmp_path: Path) -> None:
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        holder = Holder(os.getppid(), os.uname().nodename, "ingest", "2026-01-01T00:00:00+00:00", time.time())
        store.set_meta(LEASE_KEY, holder.__dict__)
        notices: list[Notice] = []
        waits: list[float] = []

        def sleep(seconds: float) -> None:
            waits.append(seconds)
            if len(waits) == 3:  # the other writer finishes while we wait
                store.set_meta(LEASE_KEY, None)

        with writer_lease(store, "enrich", notices.append, sleep=sleep):  # type: ignore[arg-type]
            assert Holder.parse(store.meta()[LEASE_KEY]).pid == os.getpid()  # type: ignore[union-attr]
        assert len(waits) == 3 and len(notices) == 1 and f"pid {os.getppid()}" in notices[0].message
