"""`pikelocal review KB --checklist NAME --per-document [DOC ...]` as a user runs it: the table printed with a column
per bid and the differences marked, the quotes with their citations, an export, and an unknown document as one
line (in-process with the hashing encoder and a scripted model; the errors in a child process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal.cli.app import main
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb import knowledge_base
from pikelocal.llm.fake import FakeLLM
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.side_kb import bids_kb, quote_figure


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return bids_kb(tmp_path_factory.mktemp("side-cli"), load_settings(environ={}))


@pytest.fixture(autouse=True)
def fake_models(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())
    monkeypatch.setattr("pikelocal.llm.factory.open_llm", lambda _settings: FakeLLM({"answer-quote": quote_figure}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no user config file
    monkeypatch.setenv("COLUMNS", "140")


def run(capsys: pytest.CaptureFixture[str], *args: object) -> str:
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        assert not exc.code, capsys.readouterr().err
    return capsys.readouterr().out


def test_the_table_has_a_column_per_bid_and_marks_the_differences(
    kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, checklist = kb
    out = run(capsys, "review", path, "--checklist", checklist, "--per-document")
    lines = out.splitlines()
    assert lines[:3] == [
        f"A: 甲公司投标文件  ({path.parent / 'bids' / 'bid_a.md'})",
        f"B: 乙公司投标文件  ({path.parent / 'bids' / 'bid_b.md'})",
        f"C: 丙公司投标文件  ({path.parent / 'bids' / 'bid_c.md'})",
    ]
    header = next(line for line in lines if line.startswith("item"))
    assert header.index("A 甲公司") < header.index("B 乙公司") < header.index("C 丙公司") < header.index("documents")
    grid = {line.split(" | ")[0].strip(): [c.strip() for c in line.split(" | ")[1:]] for line in lines if " | " in line}
    assert grid["投标保证金"] == ["350900 元", "350900 元", "350900 CNY", "same"]
    assert grid["投标有效期"] == ["90 days", "60 days", "90 days", "DIFFERS"]
    assert grid["交货期"] == ["30 days", "30 days", "30 days", "same"]
    assert grid["履约保证金"] == ["50000 元", "not stated", "not stated", ""]
    quotes = out[out.index("Quotes:") :]
    assert "B: “投标有效期为60日" in quotes and "乙公司投标文件, p. 1, line 9" in quotes
    assert lines[-1].startswith("bids: 4 items on 3 documents, 2 same, 1 differ; 12 asked now")


def test_documents_named_after_the_kb_are_the_columns_and_a_rerun_asks_nothing(
    kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, checklist = kb
    run(capsys, "review", path, "--checklist", checklist, "--per-document")
    data = json.loads(run(capsys, "review", path, "bid_b.md", "bid_a.md", "--checklist", checklist, "--per-document",
                          "--json"))  # fmt: skip
    assert [d["heading"] for d in data["documents"]] == ["乙公司投标文件", "甲公司投标文件"]
    assert data["asked"] == 0 and data["kept"] == 8
    marks = {r["item_id"]: r["agreement"] for r in data["rows"]}
    assert marks == {"bond": "same", "validity": "differs", "delivery": "same", "performance": ""}
    assert data["rows"][3]["cells"][0]["verdict"] == "not_stated"


def test_the_table_exported_as_a_workbook(
    kb: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from openpyxl import load_workbook

    path, checklist = kb
    run(capsys, "review", path, "--checklist", checklist, "--per-document")
    out = tmp_path / "bids.xlsx"
    printed = run(capsys, "review", path, "--checklist", checklist, "--per-document", "--export", out)
    assert printed.strip() == f"Wrote {out}"
    sheet = load_workbook(out)["side by side"]
    header = [c.value for c in sheet[1]]
    validity = next(r for r in sheet.iter_rows(min_row=2, values_only=True) if r[1] == "validity")
    assert dict(zip(header, validity, strict=True))["甲公司投标文件: value"] == "90 days"


def test_an_export_before_any_per_document_run_is_one_line(tmp_path: Path) -> None:
    path, checklist = bids_kb(tmp_path, load_settings(environ={}))
    out = tmp_path / "side.md"
    proc = run_cli("review", str(path), "--checklist", str(checklist), "--per-document", "--export", str(out))
    assert_one_line_error(proc, 6, "no item answered per document yet", "--per-document")
    assert not out.exists()


def test_an_unknown_document_is_one_line(kb: tuple[Path, Path]) -> None:
    path, checklist = kb
    proc = run_cli("review", str(path), "bid_a.md", "nope.md", "--checklist", str(checklist), "--per-document")
    assert_one_line_error(proc, 6, "no document 'nope.md'")


def test_documents_without_per_document_is_one_line(kb: tuple[Path, Path]) -> None:
    path, checklist = kb
    proc = run_cli("review", str(path), "bid_a.md", "--checklist", str(checklist))
    assert_one_line_error(proc, 6, "--per-document")
