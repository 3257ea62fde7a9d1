"""What the claim check did to an `eval qa` results file written before `eval qa` kept each answer's draft F1.

    .venv/bin/python build/bench/qa_check_effect.py KB RESULTS.jsonl

Reads every answer's trace from the KB (``answer.draft``: the model's text before the check, as `pikelocal trace
KB ID` shows it), scores the draft as `eval qa` scores answers, and prints per mode the drafts' F1 against the
checked answers' and on how many questions the check lowered or raised it: the figures `eval qa` now prints
itself. No LLM call.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.eval.qa import QARun, check_effect, load_results  # noqa: E402
from pikelocal.eval.qa_metrics import score_item  # noqa: E402
from pikelocal.query.verify.citations import strip_citations  # noqa: E402


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    kb, results = Path(sys.argv[1]), Path(sys.argv[2])
    rescored = []
    with api.open_kb(kb, load_settings()) as knowledge_base:
        for r in load_results(results).values():
            draft = knowledge_base.trace(r.trace_id).answer.draft if r.trace_id is not None else ""
            f1 = score_item(r.task, strip_citations(draft), r.gold).f1 if draft else None
            rescored.append(replace(r, draft_f1=f1))
    modes = tuple(dict.fromkeys(r.mode for r in rescored))
    run = QARun(results.name, kb, results, modes, rescored)
    print("\n".join(check_effect(run, {r.item_id for r in rescored})).strip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
