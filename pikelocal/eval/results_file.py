"""docs/results.json: the benchmarks' headline figures, for machines.

A JSON list of objects ``{"benchmark", "dataset", "n", "mode", "metrics": {name: number}, "machine", "date",
"command"}``; the newest run of a (benchmark, dataset, mode) replaces the older. Metric names in use:
``answerable_accuracy``, ``not_stated``, ``citation_precision``, ``reader_failures`` (rates in 0–1) for the honesty
set; ``f1``, ``em``, ``accuracy`` for QA sets; ``median_total_s``, ``median_first_token_s``,
``median_prompt_tokens`` for answer cost. A record measured on documents or questions no rule was written on says
so: ``"held_out": true`` (false: the rules were written on them; absent: not said). The file is rewritten whole
through a temporary file, so a crash leaves the old one.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pikelocal.cpu import cpu_summary
from pikelocal.domain.errors import InputError

KEY = ("benchmark", "dataset", "mode")
# What a reader added to a record by hand, kept when a rerun replaces it: the BENCHMARKS.md section it links to and
# whether its mode is the shipped default (build/bench/bench_headline.py reads both).
KEPT_ON_RERUN = ("section", "shipped")


def read_results(path: Path) -> list[dict[str, Any]]:
    """The file's records; an absent file has none."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise InputError(f"{path}: not a results file ({exc})") from exc
    if not isinstance(data, list):
        raise InputError(f"{path}: not a results file (a JSON list of records is expected)")
    return [r for r in data if isinstance(r, dict)]


def record_result(
    path: Path,
    *,
    benchmark: str,
    dataset: str,
    mode: str,
    n: int,
    metrics: Mapping[str, float],
    command: str,
    machine: str | None = None,
    date: str | None = None,
    held_out: bool | None = None,
) -> dict[str, Any]:
    """Add one run's figures to ``path``, replacing the older record of the same benchmark, dataset and mode (its
    ``section`` and ``shipped`` keys carried over)."""
    record: dict[str, Any] = {
        "benchmark": benchmark,
        "dataset": dataset,
        "n": n,
        "mode": mode,
        "metrics": {k: round(float(v), 4) for k, v in metrics.items()},
        "machine": machine if machine is not None else cpu_summary(),
        "date": date or dt.date.today().isoformat(),
        "command": command,
    }
    if held_out is not None:
        record["held_out"] = held_out
    same = tuple(record[k] for k in KEY)
    records = read_results(path)
    for old in (r for r in records if tuple(r.get(k) for k in KEY) == same):
        record.update({k: old[k] for k in KEPT_ON_RERUN if k in old})
    kept = [r for r in records if tuple(r.get(k) for k in KEY) != same]
    kept.append(record)
    kept.sort(key=lambda r: tuple(str(r.get(k, "")) for k in KEY))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(kept, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return record
