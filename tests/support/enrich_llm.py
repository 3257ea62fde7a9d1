"""The enrich worker's scripted model: each request logged with whether its completion was already cached."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.cached import cache_key
from pikelocal.llm.fake import FakeLLM
from pikelocal.store import db
from tests.support.enrich_corpus import SCRIPT

MODEL_ID = "fake-enrich"
Reply = Callable[[Sequence[Message], GenParams], str]


def in_cache(kb: Path, key: str) -> bool:
    """Whether ``key`` is in the KB's llm_cache, through a read-only connection of its own."""
    conn = db.connect(kb, readonly=True)
    try:
        return conn.execute("SELECT 1 FROM llm_cache WHERE key = ?", (key,)).fetchone() is not None
    finally:
        db.close(conn, readonly=True)


def cache_rows(kb: Path) -> int:
    """Rows in the KB's llm_cache (completions stored), through a read-only connection of its own."""
    conn = db.connect(kb, readonly=True)
    try:
        return int(conn.execute("SELECT count(*) FROM llm_cache").fetchone()[0])
    finally:
        db.close(conn, readonly=True)


def checked(reply: Reply, kb: Path, log: Path, latency: float) -> Reply:
    def answer(messages: Sequence[Message], params: GenParams) -> str:
        key = cache_key(MODEL_ID, messages, params)
        with log.open("a", encoding="utf-8") as f:  # closed (so written) before the answer is worked on
            f.write(f"{key} {int(in_cache(kb, key))}\n")
        time.sleep(latency)
        return reply(messages, params)

    return answer


def checked_llm(kb: Path, log: Path, latency: float, parallel: int) -> FakeLLM:
    script = {tag: checked(reply, kb, log, latency) for tag, reply in SCRIPT.items()}
    return FakeLLM(script, model_id=MODEL_ID, max_parallel=parallel)
