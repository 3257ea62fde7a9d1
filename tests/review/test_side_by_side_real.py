"""Documents side by side on the real default LLM and encoder (slow): the bundled sample tender and a copy that a
second purchaser edited (the bid bond raised from 伍万元 to 捌万元, the deadline kept), each answered from itself,
the bond marked as differing and the deadline as the same, every quote in its own column's document; a rerun asks
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
SAMPLE = Path(__file__).parents[2] / "pikelocal" / "samples" / "道路改造工程招标文件（示例）.md"
SETTINGS = {"ingest.late": False}
CHECKLIST = """name = "pair"
title = "两份招标文件"

[[items]]
id = "bid_bond"
label = "投标保证金"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金", "押標金"]

[[items]]
id = "deadline"
label = "投标截止时间"
kind = "date"
question.hans = "投标截止时间是什么时候？"
hints = ["投标截止时间", "截止投標"]
"""


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, api.SideBySide]:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    root = tmp_path_factory.mktemp("side-real")
    docs = root / "docs"
    docs.mkdir()
    text = SAMPLE.read_text(encoding="utf-8")
    (docs / "original.md").write_text(text, encoding="utf-8")
    edited = text.replace("人民币伍万元整（¥50,000）", "人民币捌万元整（¥80,000）").replace(
        "道路改造工程", "桥梁维修工程"
    )
    assert edited.count("捌万元") == 1  # the one sentence that states the bond (line 19)
    (docs / "edited.md").write_text(edited, encoding="utf-8")
    path, checklist = root / "kb.sqlite", root / "pair.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    with api.open_kb(path, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        assert knowledge_base.add([docs]).ingest.count("ingested") == 2
        table = knowledge_base.side_by_side(api.SideBySideRequest(str(checklist), ("original.md", "edited.md")))
    return path, checklist, table


def test_the_edited_bond_differs_and_the_deadline_is_the_same(compared: tuple[Path, Path, api.SideBySide]) -> None:
    _, _, table = compared
    rows = {r.item_id: r for r in table.rows}
    bond, deadline = rows["bid_bond"], rows["deadline"]
    assert [c.values[0].number if c and c.values else None for c in bond.cells] == [50_000, 80_000], bond
    assert bond.agreement == "differs"
    assert [c.values[0].normal if c and c.values else None for c in deadline.cells] == ["2026-12-20"] * 2, deadline
    assert deadline.agreement == "same"
    for row in table.rows:
        for doc, cell in zip(table.documents, row.cells, strict=True):
            assert cell is not None and cell.quotes, (row.item_id, doc.heading)
            assert all(q.where.doc_id == doc.doc_id for q in cell.quotes), (row.item_id, doc.heading)
    assert bond.cells[1] is not None and "捌万元" in bond.cells[1].quotes[0].text
    assert bond.cells[1].quotes[0].where.line_start == 19


def test_a_rerun_asks_nothing(compared: tuple[Path, Path, api.SideBySide]) -> None:
    path, checklist, first = compared
    with api.open_kb(path, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        again = knowledge_base.side_by_side(api.SideBySideRequest(str(checklist), ("original.md", "edited.md")))
    assert (again.asked, again.kept) == (0, 4)
    assert again.rows == first.rows
