"""Enrich a KB slowly, so that a test can kill it or read meanwhile: ``python enrich_worker.py KB LOG [LATENCY] [N]``.

The model is the scripted fake of tests/enrich/corpus.py behind the KB's own LLM cache (``CachedLLM``), answering
``N`` requests at a time (default 2) after ``LATENCY`` seconds each (default 0.05). Before answering, the fake
appends ``<cache key> <0|1>`` to LOG: 1 when that request's completion is already in the KB's ``llm_cache`` at
the moment it is asked for, i.e. a finished completion requested a second time. Exits 0 when the run finishes.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

# Run as a script from anywhere: make the repository's package importable even without an installed checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.enrich import Enricher, EnrichOptions  # noqa: E402
from pikelocal.llm.base import GenParams, Message  # noqa: E402
from pikelocal.llm.cached import CachedLLM, cache_key  # noqa: E402
from pikelocal.llm.fake import FakeLLM  # noqa: E402
from pikelocal.store import db  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from tests.enrich.corpus import SCRIPT  # noqa: E402

MODEL_ID = "fake-enrich"
Reply = Callable[[Sequence[Message], GenParams], str]


def in_cache(kb: Path, key: str) -> bool:
    """Whether ``key`` is in the KB's llm_cache, through a read-only connection of its own."""
    conn = db.connect(kb, readonly=True)
    try:
        return conn.execute("SELECT 1 FROM llm_cache WHERE key = ?", (key,)).fetchone() is not None
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


def main(argv: Sequence[str]) -> int:
    if len(argv) not in (3, 4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    kb, log = Path(argv[1]), Path(argv[2])
    latency = float(argv[3]) if len(argv) > 3 else 0.05
    parallel = int(argv[4]) if len(argv) > 4 else 2
    encoder = HashEncoder()
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, create=False) as store:
        llm = CachedLLM(checked_llm(kb, log, latency, parallel), store)
        report = Enricher(store, encoder, llm, EnrichOptions()).run()
        print(json.dumps({"atomized": report.atomized, "questions": report.questions}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
