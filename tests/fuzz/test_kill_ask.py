"""kill -9 at random points of ``ask``: the KB stays sound, and the next ask reuses every completion the
killed runs finished (the KB's LLM cache), asks for nothing twice, and answers exactly as an uninterrupted run.

The worker (tests/fuzz/ask_worker.py) answers one decompose question with a scripted fake behind the KB's cache and
logs, for every request that reaches the model, whether its completion was already cached.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from pikelocal.store import db
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build
from tests.support.workers import PythonWorkers

pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("ask_worker.py")
LATENCY_S = 0.2
KILLS = 3
WAIT_S = 30.0


def rows(kb: Path, table: str) -> int:
    conn = db.connect(kb, readonly=True)
    try:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    finally:
        db.close(conn, readonly=True)


def stored_answers(kb: Path) -> list[dict[str, object]]:
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim, create=False) as store:
        found = []
        for row in store.traces.trace_rows(100):
            payload = json.loads(row.json)
            found.append({"answer": payload["answer"]["text"], "chunks": payload["context_chunks"]})
        return found


def test_ask_killed_at_random_points_then_asked_again_reuses_every_finished_call(
    tmp_path: Path, python_workers: PythonWorkers
) -> None:
    base = build(tmp_path / "base")
    reference_kb, kb = tmp_path / "reference.kb", tmp_path / "kb.kb"
    shutil.copy(base, reference_kb)
    shutil.copy(base, kb)
    ref = python_workers.start(WORKER, reference_kb, tmp_path / "reference.log", 0.0)
    assert ref.wait(timeout=60) == 0
    want = stored_answers(reference_kb)
    calls = len((tmp_path / "reference.log").read_text().splitlines())
    assert len(want) == 1 and calls >= 3, (want, calls)  # several calls: there is something to interrupt
    assert "[" in str(want[0]["answer"])  # a cited answer, not a refusal

    log = tmp_path / "calls.log"
    rng = random.Random(20261123)
    seen, kills = 0, 0
    progress: list[int] = []  # completions stored at each kill
    for _ in range(KILLS):
        proc = python_workers.start(WORKER, kb, log, LATENCY_S)
        deadline = time.monotonic() + WAIT_S
        while rows(kb, "llm_cache") <= seen:  # kill only once this run has finished a completion of its own
            if proc.poll() is not None:
                pytest.fail(f"the worker ended (rc {proc.returncode}) before it was killed: {tmp_path}")
            if time.monotonic() > deadline:
                pytest.fail(f"no progress within {WAIT_S:.0f} s")
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.9 * LATENCY_S))  # inside the next request
        if proc.poll() is not None:
            break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        kills += 1
        seen = rows(kb, "llm_cache")
        progress.append(seen)
        with Store.open_existing(kb) as store:
            assert store.integrity_check() == []
    # the first kill lands while the question is half answered (later ones may land after its last completion
    # on a loaded machine: the run may be finishing by then)
    assert kills >= 1 and progress[0] < calls, (progress, calls)

    final = python_workers.start(WORKER, kb, log, LATENCY_S)
    assert final.wait(timeout=60) == 0
    requests = [line.split() for line in log.read_text().splitlines()]
    assert [key for key, cached in requests if cached == "1"] == [], "a finished completion was asked for again"
    assert len({key for key, _ in requests}) == calls  # every distinct request of a clean run, no other
    assert len(requests) <= calls + kills  # at most the request in flight at each kill was asked again
    with Store.open_existing(kb) as store:
        assert store.integrity_check() == []
    got = stored_answers(kb)
    assert got and all(g == want[0] for g in got)  # only whole answers are stored, each the clean run's
