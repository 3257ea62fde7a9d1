"""Re-check a finished quote-then-answer run offline: each answer's stored sources and the model's cached reply,
through today's checks (``query/answer/quoted.py``), scored as the honesty benchmark scores it. No model runs.

    .venv/bin/python build/bench/replay_quoted.py --kb KB --results ANSWERS.jsonl [--data tests/data/honesty_qa.jsonl]
        [--split zh_tender]

For tuning the checks on one part of the set and reading them on the rest: ``--split`` names the PDF folder of the
part they were tuned on, and the figures are printed for it and for the rest apart. Each reply is looked up in the
KB's LLM cache under the prompt this code sends for a factoid (no kind rule, no benchmark instruction): so what is
re-checked is the run made with today's prompt at the same sources. A reply not found there (a question of another
kind, or a run made with another prompt) is counted as missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal.domain.answers import QueryTrace  # noqa: E402
from pikelocal.eval.honesty import load_honesty, read_answers, score_answer  # noqa: E402
from pikelocal.llm.cached import cache_key  # noqa: E402
from pikelocal.llm.fake import FakeLLM  # noqa: E402
from pikelocal.prompts.quote import quote_messages, quote_params  # noqa: E402
from pikelocal.query.answer.quoted import quoted_answer  # noqa: E402
from pikelocal.query.context.locate import store_locator  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from pikelocal.text.lang import detect_lang  # noqa: E402
from pikelocal.text.script import detect_script  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb", type=Path, required=True)
    ap.add_argument("--results", type=Path, required=True)
    ap.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "honesty_qa.jsonl")
    ap.add_argument("--split", default="zh_tender")
    ap.add_argument("--show", action="store_true", help="print each answer that is wrong or leaks")
    args = ap.parse_args()
    items = {i.item_id: i for i in load_honesty(args.data)}
    rows = read_answers(args.results)
    counts: Counter[tuple[str, str]] = Counter()
    with Store.open_existing(args.kb) as store:
        locator = store_locator(store)
        for (item_id, _mode), row in rows.items():
            item = items[item_id]
            stored = store.traces.get_trace(int(row["trace_id"]))
            assert stored is not None
            trace = QueryTrace.from_dict(json.loads(stored.json))
            sources = trace.answer.sources
            script = detect_script(item.question)
            lang = detect_lang(item.question)
            blocks = [(s.number, s.heading(), s.text) for s in sources]
            messages = quote_messages(item.question, lang, script, blocks)
            cached = store.cache.get_cached_completion(cache_key(trace.model_id, messages, quote_params(512, script)))
            part = "tuned" if args.split in item.source_pdf else "held out"
            if cached is None:
                counts[(part, "missing")] += 1
                continue
            llm = FakeLLM({"answer-quote": cached.text}, model_id=trace.model_id)
            answer = quoted_answer(llm, item.question, lang, script, sources, lambda _d: None, max_tokens=512,
                                   locator=locator)  # fmt: skip

            def page_of(doc_id: int, page_no: int) -> object:
                return store.docs.page(doc_id, page_no)

            score = score_answer(item, answer, page_of)  # type: ignore[arg-type]
            if item.answerable:
                counts[(part, "answerable")] += 1
                counts[(part, "correct")] += score.correct
                counts[(part, "reader failure")] += score.reader_failure
            else:
                counts[(part, "unanswerable")] += 1
                counts[(part, "not stated")] += score.not_stated
            bad = (item.answerable and not score.correct) or (not item.answerable and not score.not_stated)
            if args.show and bad:
                method = [c.method for c in answer.claims if c.verdict == "supported"]
                print(f"{item_id:<12} {part:<8} {answer.text[:40]!r:<44} gold {item.answers[:1]} {method}")
                print(f"             reply {cached.text[:150]!r}")
    for part in ("tuned", "held out"):
        a, u = counts[(part, "answerable")], counts[(part, "unanswerable")]
        failures, said = counts[(part, "reader failure")], counts[(part, "not stated")]
        print(
            f"{part:>8}: answerable {counts[(part, 'correct')]}/{a}, reader failures {failures},"
            f" unanswerable not stated {said}/{u}, missing {counts[(part, 'missing')]}"
        )


if __name__ == "__main__":
    main()
