"""The honesty benchmark's headline figures from a finished answers file, for docs/results.json.

Rates in 0–1 over the rows of one mode: ``answerable_accuracy``, ``english_accuracy`` (the en_legal_au subset),
``not_stated`` (unanswerable questions answered "not stated"), ``citation_precision``, ``reader_failures`` (of the
answerable questions: the gold fact stood in the sources sent, the answer was wrong or "not stated"), ``gold_sent``;
and the answer cost: ``median_total_s``, ``median_first_token_s``, ``median_prompt_tokens`` (prompt tokens the model
evaluated, after the reused KV prefix), over the answers that were not replayed from the LLM cache.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from pikelocal.eval.honesty import HonestyItem, score_of


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


def headline(
    items: Sequence[HonestyItem], rows: Mapping[tuple[str, str], Mapping[str, Any]], mode: str
) -> dict[str, float]:
    """The figures of ``mode``'s rows for ``items`` (a metric with no question to count is left out)."""
    scored = [
        (i, score_of(rows[(i.item_id, mode)]), rows[(i.item_id, mode)]) for i in items if (i.item_id, mode) in rows
    ]
    ans = [s for i, s, _ in scored if i.answerable]
    una = [s for i, s, _ in scored if not i.answerable]
    english = [s for i, s, _ in scored if i.answerable and i.script == "en"]
    fresh = [r for _, _, r in scored if not r.get("cached")]
    figures = {
        "answerable_accuracy": _rate(sum(s.correct for s in ans), len(ans)),
        "english_accuracy": _rate(sum(s.correct for s in english), len(english)),
        "not_stated": _rate(sum(s.not_stated for s in una), len(una)),
        "citation_precision": _rate(sum(s.cite_right for s in ans), sum(s.cite_shown for s in ans)),
        "reader_failures": _rate(sum(s.reader_failure for s in ans), len(ans)),
        "gold_sent": _rate(sum(s.gold_sent for s in ans), len(ans)),
        "median_total_s": _median([r["total_s"] for r in fresh]),
        "median_first_token_s": _median([r["first_token_s"] for r in fresh if r.get("first_token_s") is not None]),
        "median_prompt_tokens": _median([r["prompt_evaluated"] for r in fresh if "prompt_evaluated" in r]),
    }
    return {k: v for k, v in figures.items() if v is not None}


def _median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None
