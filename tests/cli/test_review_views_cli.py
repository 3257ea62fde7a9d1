"""`pikelocal review KB --risks | --requirements | --timeline` as a user runs them on the bundled sample tender (no
LLM), a mistaken combination as a one-line error, and the XLSX export read back with openpyxl."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openpyxl import load_workbook

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from tests.support.cli import assert_one_line_error, run_cli

SAMPLE = Path(__file__).parents[2] / "pikelocal" / "samples" / "道路改造工程招标文件（示例）.md"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("views-cli") / "t.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert knowledge_base.add([SAMPLE]).ingest.count("ingested") == 1
    return path


def test_timeline_of_the_sample_tender(kb: Path) -> None:
    proc = run_cli("review", str(kb), "--timeline", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    dated = [r["date"] for r in rows if r["date"]]
    # the sample's 投标截止时间 (line 29) is 2026-12-20 and its bond deadline (line 19) 2026-12-15: in date order
    assert dated == sorted(dated) and {"2026-12-15", "2026-12-20"} <= set(dated)
    assert all(r["roc"].startswith("民國") for r in rows if r["date"])


def test_requirements_and_risks_print(kb: Path) -> None:
    proc = run_cli("review", str(kb), "--requirements", "--risks", "--docs", SAMPLE.name)
    assert proc.returncode == 0, proc.stderr
    assert "requirements" in proc.stdout and "rejection risks" in proc.stdout


def test_a_checklist_with_a_view_is_one_line(kb: Path) -> None:
    proc = run_cli("review", str(kb), "--risks", "--checklist", "tender-zh")
    assert_one_line_error(proc, 6, "read no checklist")


def test_json_of_two_views_is_one_line(kb: Path) -> None:
    assert_one_line_error(run_cli("review", str(kb), "--risks", "--timeline", "--json"), 6, "one view at a time")


def test_xlsx_export_has_one_sheet_per_view(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "views.xlsx"
    proc = run_cli("review", str(kb), "--requirements", "--timeline", "--export", str(out))
    assert proc.returncode == 0, proc.stderr
    book = load_workbook(out)
    assert book.sheetnames == ["requirements", "timeline"]
    header = [c.value for c in book["timeline"][1]]
    assert header[0] == "id"
    assert header[-8:] == ["quote", "document", "page", "line_start", "line_end", "mark", "note", "marked_at"]
    assert book["timeline"].max_row > 1
