"""docs/results.json: one record per (benchmark, dataset, mode), the newest run replacing the older."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal.domain.errors import InputError
from pikelocal.eval.results_file import read_results, record_result


def test_a_newer_run_replaces_the_older_record_of_the_same_benchmark_dataset_and_mode(tmp_path: Path) -> None:
    path = tmp_path / "docs" / "results.json"
    common = {"benchmark": "honesty", "dataset": "honesty_qa.jsonl", "command": "eval qa …", "machine": "m"}
    record_result(path, mode="naive", n=99, metrics={"answerable_accuracy": 0.6}, date="2026-11-20", **common)
    record_result(path, mode="decompose", n=50, metrics={"answerable_accuracy": 0.5}, date="2026-11-20", **common)
    record_result(path, mode="naive", n=128, metrics={"answerable_accuracy": 0.71234567}, **common)
    records = json.loads(path.read_text(encoding="utf-8"))
    assert [(r["mode"], r["n"]) for r in records] == [("decompose", 50), ("naive", 128)]
    naive = records[1]
    assert naive["metrics"] == {"answerable_accuracy": 0.7123} and naive["date"] != "2026-11-20"
    assert set(naive) == {"benchmark", "dataset", "n", "mode", "metrics", "machine", "date", "command"}


def test_a_rerun_keeps_the_section_and_shipped_mark_a_reader_gave_the_record(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    common = {"benchmark": "review", "dataset": "zh_tender", "mode": "naive", "command": "bench", "machine": "m"}
    record_result(path, n=50, metrics={"item_accuracy": 0.4}, **common)
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0] |= {"section": "bench_review_tender_zh", "shipped": True, "source": "backfilled"}
    path.write_text(json.dumps(records), encoding="utf-8")
    again = record_result(path, n=50, metrics={"item_accuracy": 0.43}, **common)
    assert again["section"] == "bench_review_tender_zh" and again["shipped"] is True
    assert "source" not in again  # a rerun is measured, not backfilled
    assert json.loads(path.read_text(encoding="utf-8")) == [again]


def test_a_file_that_is_not_a_list_of_records_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"benchmark": "x"}', encoding="utf-8")
    with pytest.raises(InputError, match="not a results file"):
        read_results(path)
    assert read_results(tmp_path / "absent.json") == []


def test_a_record_says_whether_its_documents_were_held_out_from_the_rules(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    common = {"benchmark": "review", "mode": "naive", "command": "bench", "machine": "m", "n": 5}
    record_result(path, dataset="tw_tender", metrics={"item_accuracy": 0.7}, held_out=True, **common)
    record_result(path, dataset="zh_tender", metrics={"item_accuracy": 0.8}, held_out=False, **common)
    record_result(path, dataset="other", metrics={"item_accuracy": 0.8}, **common)
    by_set = {r["dataset"]: r for r in read_results(path)}
    assert by_set["tw_tender"]["held_out"] is True and by_set["zh_tender"]["held_out"] is False
    assert "held_out" not in by_set["other"]  # not said
