"""Resuming an interrupted ingest: an exception inside the encoder, a real SIGKILL, and a reader meanwhile.

Whatever the point of interruption, a second run must leave the KB exactly as an uninterrupted run does, and must
not embed again what the first run had committed.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.errors import StoreError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor, IngestReport
from pikelocal.query.retrieve.search import search
from pikelocal.store.db import SQLError
from pikelocal.store.store import Store
from tests.support.crash_ingest import OPTIONS as WORKER_OPTIONS
from tests.support.crash_ingest import SPLIT
from tests.support.encoders import CountingEncoder
from tests.support.workers import PythonWorkers

WORKER = Path(__file__).resolve().parent / "crash_worker.py"
# late "off": these tests count every encoded text as a chunk's early vector (the "mix" default also encodes
# each late group's header lines; tests/ingest/test_late_context.py covers it)
IN_PROCESS = IngestOptions.from_settings(Settings(), split=SPLIT, embed_batch=4, late=True, late_context="off")
WAIT_S = 30.0

_VOCABULARY = (
    "pike perch roach lake reed water spring autumn winter ice shore angler tag fish weed bay current stream "
    "oxygen survey gill fin scale hunt prey strike minnow depth meadow flood spawn egg larva warden net boat "
    "dawn dusk shallow drop-off vegetation temperature season record measure weigh release"
)
WORDS = _VOCABULARY.split()


# --- corpus and the reference (uninterrupted) run ----------------------------------------------------------


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 14))]
    return " ".join(words).capitalize() + "."


def _document(rng: random.Random, n_words: int, markdown: bool, title: str) -> str:
    parts = [f"# {title}\n\n"] if markdown else []
    written, section = 0, 0
    while written < n_words:
        if markdown and rng.random() < 0.25:
            section += 1
            parts.append(f"## Section {section}\n\n")
        para = " ".join(_sentence(rng) for _ in range(rng.randint(2, 5)))
        written += len(para.split())
        parts.append(para + "\n\n")
    return "".join(parts)


def write_corpus(folder: Path) -> Path:
    """16 short documents (one late group each) and one long one (two late groups): ~150 chunks."""
    rng = random.Random(20240611)
    folder.mkdir(parents=True)
    for i in range(16):
        md = i % 2 == 0
        text = _document(rng, rng.randint(120, 260), md, f"Survey report {i}")
        (folder / f"doc{i:02d}.{'md' if md else 'txt'}").write_text(text, encoding="utf-8")
    # sorted first, so late pooling starts with it and a crash can stop it between its two groups
    (folder / "a_long.txt").write_text(_document(rng, 2300, False, "long"), encoding="utf-8")
    return folder


class SimulatedCrash(Exception):
    pass


class CrashingEncoder(CountingEncoder):
    """Lets ``after`` calls of ``site`` through, then raises on the next one."""

    def __init__(self, site: str, after: int) -> None:
        super().__init__()
        self.site, self.after, self.calls = site, after, 0

    def _count(self, site: str, n: int) -> None:
        if site == self.site:
            if self.calls >= self.after:
                raise SimulatedCrash(f"{site} call {self.calls + 1}")
            self.calls += 1


@dataclass(frozen=True)
class Reference:
    folder: Path
    counts: dict[str, int]
    texts: dict[str, list[str]]  # path → chunk texts in order
    late_calls: int  # encode_tokens calls of an uninterrupted run = number of late groups


def open_kb(path: Path, *, create: bool = True) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim, create=create)


def chunk_texts(store: Store) -> dict[str, list[str]]:
    return {d.path: [c.text for c in store.chunks.chunks_of(d.id)] for d in store.docs.documents()}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    base = tmp_path_factory.mktemp("resume")
    folder = write_corpus(base / "docs")
    encoder = CountingEncoder()
    with open_kb(base / "clean.kb") as store:
        report = Ingestor(store, encoder, IN_PROCESS).ingest_paths([folder])
        assert {o.status for o in report.outcomes} == {"ingested"}
        counts = store.counts()
        # the corpus is as intended: many encoder calls at batch 4 and 2, more late groups than documents
        assert counts["documents"] == 17 and 100 <= counts["chunks"] <= 260, counts
        assert counts["chunk_vectors"] == counts["late_vectors"] == counts["chunks"]
        # 2048-token late groups (4 windows of 512): one per short document, two for the long one
        assert encoder.texts == counts["chunks"] and encoder.token_calls == counts["documents"] + 1
        ref = Reference(folder, counts, chunk_texts(store), encoder.token_calls)
    # the worker's options differ only in batch size, which must not change what the KB holds
    assert WORKER_OPTIONS.split == IN_PROCESS.split and WORKER_OPTIONS.late == IN_PROCESS.late
    assert WORKER_OPTIONS.late_context == IN_PROCESS.late_context
    return ref


def assert_like_reference(store: Store, ref: Reference) -> None:
    assert store.integrity_check() == []
    assert store.counts() == ref.counts
    assert {d.stage for d in store.docs.documents()} == {"ready"}
    for doc in store.docs.documents():
        ords = [c.ord for c in store.chunks.chunks_of(doc.id)]
        assert ords == list(range(len(ords))), doc.path  # no chunk twice, none missing
    assert chunk_texts(store) == ref.texts
    assert store.docs.failures() == []


# --- an exception inside the encoder -----------------------------------------------------------------------


@pytest.mark.parametrize("site", ["encode", "encode_tokens"])
@pytest.mark.parametrize("after", [1, 3, 7])
def test_resume_after_encoder_exception_equals_clean_run(
    tmp_path: Path, reference: Reference, site: str, after: int
) -> None:
    kb = tmp_path / "kb.kb"
    crashing = CrashingEncoder(site, after)
    with pytest.raises(SimulatedCrash), open_kb(kb) as store:
        Ingestor(store, crashing, IN_PROCESS).ingest_paths([reference.folder])
    assert crashing.calls == after

    n_chunks = reference.counts["chunks"]
    with open_kb(kb, create=False) as store:
        interrupted = store.counts()
        stages = [d.stage for d in store.docs.documents()]
        assert interrupted["documents"] == 17 and interrupted["chunks"] == n_chunks  # parsing had finished
        # vectors are committed batch by batch: exactly what the calls that returned produced is there
        assert interrupted["chunk_vectors"] == crashing.texts
        if site == "encode":
            assert crashing.texts == after * IN_PROCESS.embed_batch
            assert interrupted["late_vectors"] == 0 and set(stages) <= {"parsed", "embedded"}
        else:
            assert crashing.texts == n_chunks and crashing.token_calls == after
            assert 0 < interrupted["late_vectors"] < n_chunks
            assert set(stages) <= {"embedded", "ready"} and stages.count("ready") <= after
            # after one late call the long document (first, two groups) is left half pooled
            docs = store.docs.documents()
            partial = [
                d.path
                for d in docs
                if 0 < len(store.index.chunk_ids_without("late", d.id)) < len(store.chunks.chunks_of(d.id))
            ]
            assert partial == ([str((reference.folder / "a_long.txt").resolve())] if after == 1 else [])
        assert store.integrity_check() == []

        resumer = CountingEncoder()
        report = Ingestor(store, resumer, IN_PROCESS).ingest_paths([reference.folder])

        statuses = [o.status for o in report.outcomes]
        assert statuses.count("unchanged") == stages.count("ready")
        assert statuses.count("resumed") == len(stages) - stages.count("ready")
        # nothing embedded twice: the two runs together embedded each chunk once and pooled each group once
        assert crashing.texts + resumer.texts == n_chunks
        assert crashing.token_calls + resumer.token_calls == reference.late_calls
        assert report.units["embed"] == n_chunks - interrupted["chunk_vectors"]
        assert report.units["late"] == n_chunks - interrupted["late_vectors"]
        assert_like_reference(store, reference)


def test_resume_with_finish_pending_alone(tmp_path: Path, reference: Reference) -> None:
    """A KB left half embedded is finished without the source files: finish_pending needs only the KB."""
    kb = tmp_path / "kb.kb"
    with pytest.raises(SimulatedCrash), open_kb(kb) as store:
        Ingestor(store, CrashingEncoder("encode", 5), IN_PROCESS).ingest_paths([reference.folder])
    with open_kb(kb, create=False) as store:
        report = Ingestor(store, HashEncoder(), IN_PROCESS).finish_pending()
        assert report.outcomes == []
        assert_like_reference(store, reference)


# --- a real SIGKILL ----------------------------------------------------------------------------------------


@dataclass
class Reads:
    ok: int = 0
    last: dict[str, int] | None = None
    vector_counts: set[int] = field(default_factory=set)  # the chunk_vectors counts seen


def read_once(kb: Path, reads: Reads, query: str = "") -> dict[str, int] | None:
    """Counts (and a hybrid search when ``query``) through a read-only connection; None before the KB exists.

    Once the KB has been read successfully, any error is a failure of the test.
    """
    try:
        store = Store.open_existing(kb)
    except (StoreError, SQLError):
        if reads.ok:
            raise
        return None  # the worker has not created the KB yet
    with store:
        counts = store.counts()
        if query:
            hits = search(store, HashEncoder(), query, mode="hybrid", k=5)
            assert len(hits) <= 5
            assert all(h.chunk.text and h.document.id == h.chunk.doc_id for h in hits)
            if counts["chunks"]:
                assert hits  # BM25 finds the corpus words as soon as chunks exist
    if reads.last is not None:  # committed work only grows while the worker runs
        assert all(counts[t] >= reads.last[t] for t in ("documents", "chunks", "chunk_vectors", "late_vectors"))
    assert counts["chunk_vectors"] <= counts["chunks"] and counts["late_vectors"] <= counts["chunks"]
    reads.ok += 1
    reads.last = counts
    reads.vector_counts.add(counts["chunk_vectors"])
    return counts


@pytest.fixture
def worker(python_workers: PythonWorkers) -> Callable[[Path, Path], subprocess.Popen[bytes]]:
    return lambda kb, folder: python_workers.start(WORKER, kb, folder)


def wait_for(
    proc: subprocess.Popen[bytes], kb: Path, ready: Callable[[dict[str, int]], bool], reads: Reads, query: str = ""
) -> dict[str, int]:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            errs = sorted(kb.parent.glob("worker*.err"))
            detail = errs[-1].read_text()[-2000:] if errs else ""
            pytest.fail(f"the worker ended (rc {proc.returncode}) before the point to kill it:\n{detail}")
        counts = read_once(kb, reads, query)
        if counts is not None and ready(counts):
            return counts
        time.sleep(0.02)
    pytest.fail(f"no such state within {WAIT_S:.0f} s; last counts {reads.last}")


def kill(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL  # it was still running: the kill interrupted it


def resume_in_process(kb: Path, ref: Reference) -> IngestReport:
    with open_kb(kb, create=False) as store:
        before = store.counts()
        assert before["chunk_vectors"] < ref.counts["chunks"] or before["late_vectors"] < ref.counts["chunks"]
        encoder = CountingEncoder()
        report = Ingestor(store, encoder, WORKER_OPTIONS).ingest_paths([ref.folder])
        assert "resumed" in {o.status for o in report.outcomes}
        assert {o.status for o in report.outcomes} <= {"resumed", "unchanged"}
        # the killed run's committed vectors were kept, not recomputed
        assert encoder.texts == ref.counts["chunks"] - before["chunk_vectors"]
        assert_like_reference(store, ref)
    return report


KILL_POINTS = {
    "first early vectors": lambda c: c["chunk_vectors"] > 0,
    "first late vectors": lambda c: c["late_vectors"] > 0,
}


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_then_resume_equals_clean_run(tmp_path: Path, reference: Reference, worker, point: str) -> None:
    kb = tmp_path / "kb.kb"
    proc = worker(kb, reference.folder)
    at_kill = wait_for(proc, kb, KILL_POINTS[point], Reads())
    kill(proc)
    assert at_kill["documents"] == 17  # every file is parsed before the first vector is written
    resume_in_process(kb, reference)


def test_reader_searches_while_worker_writes(tmp_path: Path, reference: Reference, worker) -> None:
    kb = tmp_path / "kb.kb"
    proc = worker(kb, reference.folder)
    reads = Reads()
    wait_for(proc, kb, lambda c: c["chunk_vectors"] > 0, reads, query="pike spawn")
    first_ok = reads.ok
    # keep reading while the worker writes vectors: ten more successful reads at least
    counts = wait_for(
        proc, kb, lambda c: reads.ok >= first_ok + 10 and c["chunk_vectors"] > 0, reads, query="oxygen winter"
    )
    kill(proc)
    assert reads.ok >= 10
    assert len({n for n in reads.vector_counts if n > 0}) >= 2  # the reads overlapped the writes
    assert counts["chunk_vectors"] < reference.counts["chunks"] or counts["late_vectors"] < reference.counts["chunks"]
    resume_in_process(kb, reference)
