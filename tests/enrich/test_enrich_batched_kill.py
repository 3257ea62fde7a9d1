"""SIGKILL during enrichment on a real model decoding two calls side by side (llm.batch = 2), then resume: no
finished completion is asked for twice, and the KB ends sound with every chunk done or failed with a reason.

The worker (tests/enrich/enrich_batched_worker.py) runs SmolLM2 behind the KB's LLM cache and logs, for every request
that reaches the model, whether its completion was already in the KB's ``llm_cache``. Its replies are whatever the
135M model writes (some chunks fail the reply checks): what is checked is the requests, not the questions.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from pikelocal.store.store import Store
from tests.support.enrich_corpus import build_kb, open_kb, write_corpus
from tests.support.enrich_llm import cache_rows
from tests.support.paths import installed_model
from tests.support.workers import PythonWorkers

pytestmark = pytest.mark.slow

WORKER = Path(__file__).resolve().parent / "enrich_batched_worker.py"
KILLS = 3
WAIT_S = 120.0


def test_killed_batched_enrichment_resumes_without_asking_a_finished_call_again(
    tmp_path: Path, python_workers: PythonWorkers
) -> None:
    smollm2_path = installed_model("smollm2-135m-instruct-q4_1.gguf")
    kb, log = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs")), tmp_path / "calls.log"
    rng = random.Random(20261125)
    seen, kills = 0, 0
    for _ in range(KILLS):
        proc = python_workers.start(WORKER, kb, log, smollm2_path)
        deadline = time.monotonic() + WAIT_S
        while cache_rows(kb) <= seen:  # kill only after this run finished a completion of its own
            if proc.poll() is not None:
                break
            if time.monotonic() > deadline:
                pytest.fail(f"no progress within {WAIT_S:.0f} s")
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.3))  # with calls in flight, side by side
        if proc.poll() is not None:
            break
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        kills += 1
        seen = cache_rows(kb)
        with Store.open_existing(kb) as store:
            assert store.integrity_check() == []
    assert kills >= 2, "the runs finished before they could be killed"

    final = python_workers.start(WORKER, kb, log, smollm2_path)
    assert final.wait(timeout=600) == 0
    requests = [line.split() for line in log.read_text().splitlines()]
    repeated = [key for key, present in requests if present == "1"]
    assert repeated == [], f"{len(repeated)} finished completion(s) requested again"
    assert len({key for key, _ in requests}) == cache_rows(kb)  # every distinct request stored once
    # at most the two calls in flight at each kill (never stored) were asked for again
    assert len(requests) <= cache_rows(kb) + 2 * kills
    with open_kb(kb, create=False) as store:
        assert store.integrity_check() == []
        counts = store.enrichment.enrichment_counts()
        assert counts.atoms["pending"] == 0 and counts.summaries["pending"] == 0
