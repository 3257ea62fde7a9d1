"""``build/bench/bench_headline.py``: every figure of the headline table at the top of docs/BENCHMARKS.md is
a figure of docs/results.json, linked to its record's section, and the table and plots are the same on every run."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.build_scripts import load_build_script

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "docs" / "BENCHMARKS.md"
RESULTS = ROOT / "docs" / "results.json"
LINK = re.compile(r"\[([^\]]*)\]\(([^)#]*#[^)]*)\)")  # to a section: #anchor, or a topic file's
NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?!\w)")  # not the 1 of "F1" or "1k"


@pytest.fixture(scope="module")
def headline() -> ModuleType:
    return load_build_script("bench/bench_headline")


def between_markers(text: str, mod: ModuleType) -> str:
    assert mod.BEGIN in text and mod.END in text, "docs/BENCHMARKS.md has no headline markers"
    return mod.BEGIN + text.split(mod.BEGIN, 1)[1].split(mod.END, 1)[0] + mod.END


def table_rows(section: str) -> list[dict[str, str]]:
    """Each table row of ``section`` as {header: cell} (cells unescaped)."""
    rows: list[dict[str, str]] = []
    header: list[str] = []
    for line in section.splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if not header:
            header = cells
        elif not all(set(c) <= set("-:") for c in cells):
            rows.append(dict(zip(header, cells, strict=True)))
    return rows


def check_figures(
    section: str, records: list[dict[str, Any]], pages: dict[str, str], mod: ModuleType, **where: Any
) -> int:
    """Assert that every number in a link of the table is one of its row's record's metrics at the precision shown,
    and that the link goes to that record's section (``where``: the linking file, as section_link takes it); the
    number of figures checked."""
    by_key = {tuple(str(r[k]) for k in mod.KEY): r for r in mod.latest(records)}
    checked = 0
    rows = table_rows(section)
    assert rows, "the headline has no table rows"
    for row in rows:
        mode = row["mode"].removesuffix(" **(default)**")
        key = (row["benchmark"], row["data set"], mode)
        assert key in by_key, f"headline row {key} is not a record of docs/results.json"
        record = by_key[key]
        assert row["date"] == record["date"], key
        if "n" in row:
            assert row["n"] == str(record["n"]), key
        anchor = mod.section_link(mod.section_of(record), pages, **where)
        values = [float(v) for v in record["metrics"].values()]
        for header, cell in row.items():
            for text, link in LINK.findall(cell):
                assert link == anchor, f"{key} {header}: {link} is not the record's section {anchor}"
                for number in NUMBER.findall(text):
                    x = float(number.replace(",", ""))
                    places = len(number.split(".")[1]) if "." in number else 0
                    assert any(abs(v - x) <= 0.5 * 10**-places + 1e-9 for v in values), (
                        f"{key} {header}: {number} is in no metric of the record {record['metrics']}"
                    )
                    checked += 1
            if not LINK.search(cell) and header not in ("data set", "benchmark", "n", "mode", "machine", "date"):
                assert cell in ("not measured", "not recorded", "–"), f"{key} {header}: {cell!r} links nowhere"
    return checked


def test_every_headline_figure_is_a_figure_of_results_json(headline: ModuleType) -> None:
    markdown = BENCHMARKS.read_text(encoding="utf-8")
    records = headline.read_records(RESULTS)
    pages = headline.read_pages(BENCHMARKS)
    assert check_figures(between_markers(markdown, headline), records, pages, headline) > 50


def test_the_generated_table_is_checked_the_same_way_and_shows_the_shipped_rows_first(headline: ModuleType) -> None:
    records = headline.read_records(RESULTS)
    pages = headline.read_pages(BENCHMARKS)
    section = headline.render(records, pages)
    check_figures(section, records, pages, headline)
    shipped, others = section.split("Other modes measured", 1)
    assert "answer.quote = false" not in shipped.split("### How accurate", 1)[1]
    assert "answer.quote = false" in others


def test_the_readme_shows_the_shipped_rows_linked_to_the_topic_files(headline: ModuleType) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    records = headline.read_records(RESULTS)
    pages = headline.read_pages(BENCHMARKS)
    brief = headline.render(records, pages, here=None, prefix="docs/", brief=True)
    assert between_markers(readme, headline) == brief, "README.md's headline is stale: run bench_headline.py"
    assert check_figures(brief, records, pages, headline, here=None, prefix="docs/") > 30
    assert "answer.quote = false" not in brief and "(docs/benchmarks/" in brief


def test_the_table_is_deterministic(headline: ModuleType, tmp_path: Path) -> None:
    markdown = BENCHMARKS.read_text(encoding="utf-8")
    records = headline.read_records(RESULTS)
    pages = headline.read_pages(BENCHMARKS)
    first = headline.render(records, pages)
    shuffled = list(records)
    random.Random(4).shuffle(shuffled)
    assert headline.render(shuffled, pages) == first
    shutil.copytree(BENCHMARKS.parent / "benchmarks", tmp_path / "benchmarks")  # the topic files the links name
    out = tmp_path / "BENCHMARKS.md"
    out.write_text(markdown.replace(between_markers(markdown, headline), ""), encoding="utf-8")  # inserted anew
    (tmp_path / "results.json").write_text(RESULTS.read_text(encoding="utf-8"), encoding="utf-8")
    args = ["--json", str(tmp_path / "results.json"), "--out", str(out), "--no-plots"]
    assert headline.main(args) == 0
    once = out.read_text(encoding="utf-8")
    assert once.startswith("# Benchmarks\n\n" + headline.BEGIN)
    assert headline.main(args) == 0
    assert out.read_text(encoding="utf-8") == once


def test_newest_record_wins_and_missing_figures_say_so(headline: ModuleType) -> None:
    markdown = "# Benchmarks\n\n<!-- qa_runs:begin -->\n## QA runs\n<!-- qa_runs:end -->\n"

    def rec(date: str, f1: float, **extra: Any) -> dict[str, Any]:
        metrics: Mapping[str, float] = {"f1": f1, "not_stated": 0.1}
        return {"benchmark": "qa", "dataset": "set", "n": 5, "mode": "naive", "metrics": dict(metrics),
                "machine": "AMD EPYC, avx avx2, 2 cores", "date": date, "section": "qa_runs", **extra}  # fmt: skip

    section = headline.render([rec("2026-11-02", 0.5), rec("2026-11-01", 0.25)], markdown)
    (row,) = [r for r in table_rows(section) if r.get("data set") == "set"]
    assert row["accuracy"] == "[F1 0.500](#qa-runs)"
    assert row["answer time, 2 CPU cores"] == "not recorded"
    assert row["answer time, GPU"] == "not measured"
    gpu = rec("2026-11-03", 0.5, mode="naive, gpu")
    gpu["metrics"]["median_total_s"] = 0.4
    section = headline.render([rec("2026-11-02", 0.5), gpu], markdown)
    (row,) = [r for r in table_rows(section) if r.get("data set") == "set"]
    assert row["answer time, GPU"] == "[0.4 s](#qa-runs)"


def test_anchors_follow_github(headline: ModuleType) -> None:
    md = "# T\n## Honesty set, naive (n = 128)\n```\n## not a heading\n```\n## A `b` c\n## A b c\n"
    assert headline.section_anchor("Honesty set, naive (n = 128)", md) == "honesty-set-naive-n--128"
    assert list(headline.anchors(md).values()) == ["t", "honesty-set-naive-n--128", "a-b-c", "a-b-c-1"]


def test_the_plots_are_deterministic(headline: ModuleType, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    records = headline.read_records(RESULTS)
    first = headline.write_plots(records, tmp_path / "a")
    second = headline.write_plots(records, tmp_path / "b")
    assert [p.name for p in first] == ["accuracy.svg", "answer_time.svg", "ingest_formats.svg"]
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_the_product_never_imports_matplotlib() -> None:
    users = [p for p in (ROOT / "pikelocal").rglob("*.py") if "matplotlib" in p.read_text(encoding="utf-8")]
    assert users == []


def test_setup_records_its_whole_run_in_results_json(tmp_path: Path) -> None:
    """``build/setup.py --json``: its record of a whole set-up, written by the project's helper in another process."""
    setup = load_build_script("setup")
    rows = [("python packages", 300.0, 700, ""), ("models", 400.0, 2600, ""), ("pip itself", 3.0, None, "")]
    record = setup.setup_record(750.0, rows, (9_500_000_000, 3_800_000_000), "", "python3 build/setup.py --json x")
    assert record["metrics"] == {"setup_min": 12.5, "peak_rss_gb": 2.6, "disk_peak_gb": 9.5, "disk_left_gb": 3.8}
    assert record["benchmark"] == "setup" and str(record["mode"]).startswith("CPU build on ")
    out = tmp_path / "results.json"
    subprocess.run([sys.executable, "-c", setup._RECORD, str(out), json.dumps(record)], cwd=ROOT, check=True)
    (written,) = json.loads(out.read_text(encoding="utf-8"))
    assert written["metrics"]["setup_min"] == 12.5 and written["machine"] and written["date"]
