"""Enrich a KB slowly, so that a test can kill it or read meanwhile: ``python enrich_worker.py KB LOG [LATENCY] [N]``.

The model is the scripted fake of tests/enrich/corpus.py behind the KB's own LLM cache (``CachedLLM``), answering
``N`` requests at a time (default 2) after ``LATENCY`` seconds each (default 0.05). Before answering, the fake
appends ``<cache key> <0|1>`` to LOG: 1 when that request's completion is already in the KB's ``llm_cache`` at
the moment it is asked for, i.e. a finished completion requested a second time. Exits 0 when the run finishes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

# Run as a script from anywhere: make the repository's package importable even without an installed checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions  # noqa: E402
from pikelocal.llm.cached import CachedLLM  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from tests.support.enrich_llm import checked_llm  # noqa: E402


def main(argv: Sequence[str]) -> int:
    if len(argv) not in (3, 4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    kb, log = Path(argv[1]), Path(argv[2])
    latency = float(argv[3]) if len(argv) > 3 else 0.05
    parallel = int(argv[4]) if len(argv) > 4 else 2
    encoder = HashEncoder()
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, create=False) as store:
        llm = CachedLLM(checked_llm(kb, log, latency, parallel), store.cache)
        report = Enricher(store, encoder, llm, EnrichOptions.from_settings(Settings())).run()
        print(json.dumps({"atomized": report.atomized, "questions": report.questions}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
