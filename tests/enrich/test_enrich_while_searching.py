"""Searching a KB while another process enriches it: every read works and sees the questions grow."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from pikelocal.embed.fake import HashEncoder
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from tests.support.enrich_corpus import SUMMARY_WORD_EN, build_kb, write_corpus

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "enrich_worker.py"
ENC = HashEncoder()
WAIT_S = 60.0
FINAL_QUESTIONS = 32  # what the corpus' scripted enrichment stores


def test_searches_keep_working_while_another_process_enriches(tmp_path: Path) -> None:
    kb = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs"))
    err = (tmp_path / "worker.err").open("wb")
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(kb), str(tmp_path / "calls.log"), "0.05", "1"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=err,
    )
    err.close()
    seen: list[int] = []  # questions in the KB at each read
    question_hits = 0
    try:
        deadline = time.monotonic() + WAIT_S
        while proc.poll() is None:
            assert time.monotonic() < deadline, f"the worker did not finish within {WAIT_S:.0f} s"
            with Store.open_existing(kb) as store, store.snapshot():  # the count and the searches see one state
                n = store.enrichment.enrichment_counts().questions
                hybrid = search(store, ENC, "pike spawning meadows", mode="hybrid", k=5)
                assert hybrid and all(h.chunk.doc_id == h.document.id for h in hybrid)
                assert any("Spawning happens" in h.chunk.text for h in hybrid)
                by_questions = search(store, ENC, "投标保证金 退还", mode="questions", k=5)
                assert bool(by_questions) == (n > 0)  # nothing to find before the first question, then always
                question_hits += bool(by_questions)
            assert not seen or n >= seen[-1], "committed questions never go away"
            seen.append(n)
            time.sleep(0.01)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == 0, (tmp_path / "worker.err").read_text()[-2000:]

    with Store.open_existing(kb) as store:
        final = store.enrichment.enrichment_counts().questions
        assert final == FINAL_QUESTIONS
        assert store.integrity_check() == []
        refund = next(c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id) if "退还" in c.text)
        (question,) = store.chunks.questions_of(refund.id)
        hits = search(store, ENC, question, mode="questions", k=3)
        assert hits[0].chunk.id == refund.id and hits[0].ranks == {"questions": 1}
        hybrid = search(store, ENC, question, mode="hybrid", k=3)
        assert hybrid[0].chunk.id == refund.id and hybrid[0].ranks.get("questions") == 1
        assert search(store, ENC, SUMMARY_WORD_EN, mode="bm25", k=1)
    assert len(seen) >= 10 and len(set(seen)) >= 3
    assert any(0 < n < final for n in seen), seen  # some reads came while the questions were half done
    assert question_hits > 0
