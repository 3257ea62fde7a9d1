"""Every command's `--json` (declared once: pikelocal/cli/output.py) prints one JSON document whose records carry
the fields the command documents, run in-process on a small tender KB with the hashing encoder and a scripted
model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from openpyxl import Workbook

from pikelocal import api
from pikelocal.cli import cli
from pikelocal.cli.app import main
from pikelocal.cli.output import json_records
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb import knowledge_base
from pikelocal.llm.fake import FakeLLM
from tests.support.refs_kb import TENDER_TEXT
from tests.support.review_kb import CHECKLIST, RFP, RULES, quote_first


def json_commands(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from json_commands(command, f"{prefix}{name} ")
        elif any(p.name == "as_json" for p in command.params):
            yield f"{prefix}{name}", command


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("json-output")
    docs = root / "docs"
    docs.mkdir()
    (docs / "rfp.md").write_text(RFP, encoding="utf-8")
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    (docs / "招标文件.txt").write_text(TENDER_TEXT.text, encoding="utf-8")
    (root / "mini.toml").write_text(CHECKLIST, encoding="utf-8")
    book = Workbook()  # a review workbook as `review --export` writes it, filled in: one row, one mark
    sheet = book.active
    assert sheet is not None
    sheet.title = "review"
    sheet.append(["checklist", "item", "mark", "note"])
    sheet.append(["mini", "deadline", "accepted", "checked"])
    book.save(root / "marks.xlsx")
    path = root / "t.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge:
        assert not knowledge.add([docs]).ingest.failed
    return path


@pytest.fixture(autouse=True)
def fake_models(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())
    monkeypatch.setattr("pikelocal.llm.factory.open_llm", lambda _settings: FakeLLM({"answer-quote": quote_first}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no user config file


def run_json(capsys: pytest.CaptureFixture[str], *args: object) -> Any:
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        assert not exc.code, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def invocations(kb: Path) -> dict[str, list[list[object]]]:
    """For each command with --json, the argument lists that print each of its record types, in its order."""
    checklist = kb.parent / "mini.toml"
    return {
        "ask": [["ask", kb, "投标保证金是多少？"]],
        "config": [["config"]],
        "docs": [["docs", kb]],
        "figures": [["figures", kb]],
        "history": [["history", kb]],
        "refs": [["refs", kb]],
        "review": [
            ["review", kb, "--checklist", checklist],
            ["review", kb, "--risks"],
            ["review", kb, "--requirements"],
            ["review", kb, "--timeline"],
            ["review", kb, "--requirements", "rfp.md", "--against", "rules.md"],
            ["review", kb, "--checklist", checklist, "--import-marks", kb.parent / "marks.xlsx"],
            ["review", kb, "--checklist", checklist, "--per-document"],
        ],
        "search": [
            ["search", kb, "投标保证金"],
            ["search", kb, "投标保证金", "--segments"],
            ["search", kb, "投标保证金", "--summaries"],
        ],  # fmt: skip
        "stats": [["stats", kb]],
        "trace": [["trace", kb]],
    }


def test_every_json_flag_is_the_shared_one_and_is_tested(kb: Path) -> None:
    found = dict(json_commands(cli))
    assert set(found) == set(invocations(kb))
    for name, command in found.items():
        records = json_records(command)
        assert records, f"{name}: --json declared without pikelocal.cli.output.json_option"
        assert len(records) == len(invocations(kb)[name]), name


def test_every_command_s_json_parses_and_carries_its_documented_fields(
    kb: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = dict(json_commands(cli))
    for name, runs in invocations(kb).items():  # ask before history and trace: they read its trace
        for record, args in zip(json_records(commands[name]), runs, strict=True):
            data = run_json(capsys, *args, "--json")
            if not record.many:
                assert isinstance(data, dict) and set(record.fields) <= set(data), (name, record.name)
                continue
            assert isinstance(data, list), (name, record.name)
            if record.name != "summary node":  # the KB has no summary trees (`enrich --trees`): none to check
                assert data, (name, record.name)
            for row in data:
                assert set(record.fields) <= set(row), (name, record.name, sorted(set(record.fields) - set(row)))


def test_ask_and_trace_print_the_same_trace_record(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asked = run_json(capsys, "ask", kb, "投标截止时间是什么时候？", "--json")
    shown = run_json(capsys, "trace", kb, asked["id"], "--json")
    assert set(asked) == set(shown) and asked["answer"] == shown["answer"]
    refs = run_json(capsys, "refs", kb, "--json")
    assert refs and all(r["document"].endswith("招标文件.txt") and "/" in r["document"] for r in refs)
