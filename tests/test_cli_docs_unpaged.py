"""`pikelocal docs` names no page count for an unpaged document (an .xlsx, a .docx without page breaks: stored as
one text whose chunks cite no page) and keeps it for a paged one; ``--json`` says which is which."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pikelocal.cli import cli
from tests.support.table_kb import build_table_kb


def test_docs_shows_unpaged_for_the_workbook_and_the_page_count_for_the_note(tmp_path: Path) -> None:
    kb = build_table_kb(tmp_path)
    result = CliRunner().invoke(cli, ["docs", str(kb)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["id", "stage", "pages", "chunks", "title", "/", "path"]
    workbook = next(line for line in lines if line.rstrip().endswith(" prices"))
    note = next(line for line in lines if line.rstrip().endswith(" Note"))
    assert workbook.split()[2] == "unpaged" and note.split()[2] == "1"
    assert lines[0].index("pages") + len("pages") == workbook.index("unpaged") + len("unpaged")  # aligned
    assert any(line.strip().endswith("prices.xlsx") for line in lines)

    data = json.loads(CliRunner().invoke(cli, ["docs", str(kb), "--json"]).output)
    assert {Path(d["path"]).name: d["paged"] for d in data["documents"]} == {"prices.xlsx": False, "note.md": True}
