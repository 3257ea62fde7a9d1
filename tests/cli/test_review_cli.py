"""The review commands as a user runs them: the built-in checklists listed, a missing checklist and an export
before any run as one-line errors, and the key-figures sheet of the bundled sample tender (no LLM)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from tests.support.cli import assert_one_line_error, run_cli

SAMPLE = Path(__file__).parents[2] / "pikelocal" / "samples" / "道路改造工程招标文件（示例）.md"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("review-cli") / "t.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert knowledge_base.add([SAMPLE]).ingest.count("ingested") == 1
    return path


def test_the_built_in_checklists_are_listed() -> None:
    proc = run_cli("review", "unused.kb", "--list")
    assert proc.returncode == 0 and proc.stdout.split() == ["contract-en", "contract-zh", "tender-en", "tender-zh"]


def test_a_run_without_a_checklist_is_one_line(kb: Path) -> None:
    assert_one_line_error(run_cli("review", str(kb)), 6, "name a checklist", "--list")


def test_an_export_before_any_run_is_one_line(kb: Path, tmp_path: Path) -> None:
    proc = run_cli("review", str(kb), "--checklist", "tender-zh", "--export", str(tmp_path / "r.md"))
    assert_one_line_error(proc, 6, "tender-zh has no answered item yet", "pikelocal review")
    assert not (tmp_path / "r.md").exists()


def test_the_key_figures_of_the_sample_tender(kb: Path) -> None:
    proc = run_cli("figures", str(kb), "--json")
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)
    bond = [f for f in figures if f["value"]["normal"] == "50000 CNY"]
    assert bond and all(f["where"]["line_start"] == 19 and f["heading"] == "第十条 投标保证金" for f in bond)
    assert {"2026-12-20", "240 days", "10%"} <= {f["value"]["normal"] for f in figures}
