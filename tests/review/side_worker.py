"""Run a checklist per document slowly, so that a test can kill the process mid-run:
``python side_worker.py KB CHECKLIST``.

The encoder is a HashEncoder and the model a scripted FakeLLM that sleeps 0.3 s per answer, so the run can be killed
between (or during) items of its second document. Exits 0 when the run finishes.
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
from tests.support.side_kb import quote_figure  # noqa: E402

DELAY_S = 0.3


def main(kb: str, checklist: str) -> int:
    llm = FakeLLM({"answer-quote": quote_figure}, latency_s=DELAY_S)
    with api.open_kb(Path(kb), load_settings(environ={}), encoder=HashEncoder(), llm=llm) as knowledge_base:
        knowledge_base.side_by_side(api.SideBySideRequest(checklist))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
