"""Run a checklist slowly, so that a test can kill the process mid-run: ``python review_worker.py KB CHECKLIST``.

The encoder is a HashEncoder and the model a scripted FakeLLM that sleeps 1 s per answer, so each item takes a
second and the run can be killed between (or during) items. Exits 0 when the run finishes.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Run as a script from anywhere: make the repository's package importable even without an installed checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.llm.fake import FakeLLM  # noqa: E402
from tests.support.review_kb import quote_first  # noqa: E402

DELAY_S = 1.0


def main(kb: str, checklist: str) -> int:
    llm = FakeLLM({"answer-quote": quote_first}, latency_s=DELAY_S)
    with api.open_kb(Path(kb), load_settings(environ={}), encoder=HashEncoder(), llm=llm) as knowledge_base:
        knowledge_base.review(api.ReviewRequest(checklist))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
