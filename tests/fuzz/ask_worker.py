"""Answer one decompose question slowly, so that a test can kill it: ``python ask_worker.py KB LOG [LATENCY]``.

The model is a scripted fake behind the KB's own LLM cache (``CachedLLM``); before answering a request it appends
``<cache key> <0|1>`` to LOG, 1 when that completion is already in the KB's ``llm_cache`` (a finished completion
asked for a second time), then waits ``LATENCY`` seconds (default 0.1). Prints the trace as JSON and exits 0.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal.config import Settings
from pikelocal.llm.cached import CachedLLM  # noqa: E402
from pikelocal.llm.fake import FakeLLM  # noqa: E402
from pikelocal.query.answer.decompose import DecomposeOptions  # noqa: E402
from pikelocal.query.answer.modes import AskOptions, ask  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from tests.support.answer_kb import ENC  # noqa: E402
from tests.support.answer_scripts import cite_source_with  # noqa: E402
from tests.support.enrich_llm import MODEL_ID, checked  # noqa: E402

QUESTION = "Do floods, fire, war and strikes count?"
# Stateless replies (the same request always gets the same reply), so a resumed run asks what a clean run asks.
SCRIPT = {
    "propose_subquestions": lambda _m, _p: '{"sub_questions": ["Which events include flood, fire, war and strikes?"]}',
    "select_atom": lambda _m, _p: '{"pick": 1}',
    "answer": cite_source_with("flood, fire", "Flood, fire, war and strikes"),
}
OPTIONS = AskOptions.from_settings(
    Settings(),
    mode="decompose",
    k=1,
    neighbours=0,
    decompose=DecomposeOptions.from_settings(Settings(), rounds=3, threshold=0.4),
)


def main(argv: Sequence[str]) -> int:
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    kb, log = Path(argv[1]), Path(argv[2])
    latency = float(argv[3]) if len(argv) > 3 else 0.1
    script = {tag: checked(reply, kb, log, latency) for tag, reply in SCRIPT.items()}  # type: ignore[arg-type]
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim, create=False) as store:
        llm = CachedLLM(FakeLLM(script, model_id=MODEL_ID), store.cache)  # type: ignore[arg-type]
        trace = ask(store, ENC, llm, QUESTION, OPTIONS)
        out = {
            "id": trace.id,
            "answer": trace.answer.text,
            "tags": [c.tag for c in trace.calls],
            "chunks": list(trace.context_chunks),
        }
        print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
