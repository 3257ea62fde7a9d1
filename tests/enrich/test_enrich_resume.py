"""Resuming an enrichment killed by SIGKILL at random points: no finished completion is asked for twice, and the
KB ends exactly as an uninterrupted run leaves it.

The worker (tests/enrich/enrich_worker.py) runs the scripted fake behind the KB's LLM cache and logs, for every
request that reaches the model, whether its completion was already in the KB's ``llm_cache``.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions
from pikelocal.llm.cached import CachedLLM, cache_key
from pikelocal.store import db
from pikelocal.store.store import Store
from tests.support.enrich_corpus import build_kb, open_kb, write_corpus
from tests.support.enrich_llm import MODEL_ID, cache_rows, checked_llm
from tests.support.workers import PythonWorkers

WORKER = Path(__file__).resolve().parent / "enrich_worker.py"
LATENCY_S = 0.05
PARALLEL = 2
KILLS = 6
WAIT_S = 30.0


@dataclass(frozen=True)
class Reference:
    base: Path  # the KB before enrichment
    snapshot: dict[str, Any]
    cache_keys: set[str]
    calls: int  # completions an uninterrupted run asks for


def cache_keys(kb: Path) -> set[str]:
    conn = db.connect(kb, readonly=True)
    try:
        return {str(r[0]) for r in conn.execute("SELECT key FROM llm_cache")}
    finally:
        db.close(conn, readonly=True)


def snapshot(store: Store, kb: Path) -> dict[str, Any]:
    """Everything enrichment writes, keyed by document path and chunk position (ids may differ between runs)."""
    conn = db.connect(kb, readonly=True)
    try:
        doc_status = dict(conn.execute("SELECT path, summary_status FROM documents").fetchall())
        chunk_status = {
            (p, o): (s, e)
            for p, o, s, e in conn.execute(
                "SELECT d.path, c.ord, c.atoms_status, c.enrich_error FROM chunks c JOIN documents d ON d.id = c.doc_id"
            )
        }
        question_ids = {int(i): int(c) for i, c in conn.execute("SELECT id, chunk_id FROM questions")}
    finally:
        db.close(conn, readonly=True)
    out: dict[str, Any] = {}
    for doc in store.docs.documents():
        out[doc.path] = (doc.title, doc.summary, doc_status[doc.path])
        for c in store.chunks.chunks_of(doc.id):
            qids = sorted(q for q, cid in question_ids.items() if cid == c.id)
            out[f"{doc.path}#{c.ord}"] = {
                "header": c.header,
                "summary": c.summary,
                "status": chunk_status[(doc.path, c.ord)],
                "questions": store.chunks.questions_of(c.id),
                "vector": store.index.vector("chunk", c.id),
                "question_vectors": [store.index.vector("question", q) for q in qids],
            }
    return out


def assert_same(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for key, value in want.items():
        if isinstance(value, tuple):
            assert got[key] == value, key
            continue
        g = got[key]
        for field in ("header", "summary", "status", "questions"):
            assert g[field] == value[field], (key, field)
        assert g["vector"] is not None and np.allclose(g["vector"], value["vector"], atol=1e-6), key
        assert len(g["question_vectors"]) == len(value["question_vectors"]) == len(value["questions"]), key
        for a, b in zip(g["question_vectors"], value["question_vectors"], strict=True):
            assert a is not None and np.allclose(a, b, atol=1e-6), key


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    base_dir = tmp_path_factory.mktemp("enrich_resume")
    base = build_kb(base_dir / "base.kb", write_corpus(base_dir / "docs"))
    ref = base_dir / "reference.kb"
    shutil.copy(base, ref)
    log = base_dir / "reference.log"
    inner = checked_llm(ref, log, 0.0, PARALLEL)
    with open_kb(ref, create=False) as store:
        report = Enricher(
            store, HashEncoder(), CachedLLM(inner, store.cache), EnrichOptions.from_settings(Settings())
        ).run()
        assert report.atomized == 14 and len(report.failures) == 1  # the corpus' always-failing chunk
        snap = snapshot(store, ref)
    lines = log.read_text().splitlines()
    assert len(lines) == len(inner.calls) and all(line.endswith(" 0") for line in lines)
    # the detector works: asking the bare model for a finished completion again is flagged
    control = base_dir / "control.log"
    first = inner.calls[0]
    checked_llm(ref, control, 0.0, 1).complete(first.messages, first.params)
    key = cache_key(MODEL_ID, first.messages, first.params)
    assert key in {line.split()[0] for line in lines} and control.read_text().split() == [key, "1"]
    return Reference(base, snap, cache_keys(ref), len(inner.calls))


@pytest.fixture
def worker(python_workers: PythonWorkers) -> Callable[[Path, Path], subprocess.Popen[bytes]]:
    return lambda kb, log: python_workers.start(WORKER, kb, log, LATENCY_S, PARALLEL)


def test_sigkill_at_random_points_then_resume_equals_clean_run(
    tmp_path: Path, reference: Reference, worker: Callable[[Path, Path], subprocess.Popen[bytes]]
) -> None:
    kb, log = tmp_path / "kb.kb", tmp_path / "calls.log"
    shutil.copy(reference.base, kb)
    rng = random.Random(20240612)
    seen, kills = 0, 0
    progress: list[int] = []
    for _ in range(KILLS):
        proc = worker(kb, log)
        deadline = time.monotonic() + WAIT_S
        while cache_rows(kb) <= seen:  # kill only after this run finished a completion of its own
            if proc.poll() is not None:
                pytest.fail(f"the worker ended (rc {proc.returncode}) before it was killed:\n{tmp_path}")
            if time.monotonic() > deadline:
                pytest.fail(f"no progress within {WAIT_S:.0f} s")
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.9 * LATENCY_S))  # within the requests in flight
        if proc.poll() is not None:
            break  # it finished before the kill: the runs so far covered everything
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        kills += 1
        seen = cache_rows(kb)
        progress.append(seen)
        with Store.open_existing(kb) as store:  # a killed run leaves a sound KB
            assert store.integrity_check() == []
    assert kills >= 4, progress
    assert progress[-1] < len(reference.cache_keys), "the kills came too late to interrupt anything"

    final = worker(kb, log)
    assert final.wait(timeout=60) == 0, (tmp_path / f"worker{kills}.err").read_text()[-2000:]

    requests = [line.split() for line in log.read_text().splitlines()]
    repeated = [key for key, present in requests if present == "1"]
    assert repeated == [], f"{len(repeated)} finished completion(s) requested again"
    # at most the requests in flight at each kill (never stored) were asked for again
    assert reference.calls <= len(requests) <= reference.calls + kills * PARALLEL
    assert len({key for key, _ in requests}) == reference.calls
    assert cache_keys(kb) == reference.cache_keys

    with open_kb(kb, create=False) as store:
        assert store.integrity_check() == []
        assert_same(snapshot(store, kb), reference.snapshot)
        counts = store.enrichment.enrichment_counts()
        assert counts.atoms["pending"] == 0 and counts.summaries["pending"] == 0
