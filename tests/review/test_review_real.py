"""A checklist run on the real default LLM and encoder (slow), over the bundled sample tender: the bid bond and the
deadline answered with their values and cited to their lines, an item the tender does not state left not stated,
the rerun asking nothing, and the report written from the stored rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
SAMPLE = Path(__file__).parents[2] / "pikelocal" / "samples" / "道路改造工程招标文件（示例）.md"
SETTINGS = {"ingest.late": False}
CHECKLIST = """name = "sample"
title = "样例清单"

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

[[items]]
id = "advance"
label = "预付款比例"
kind = "percentage"
question.hans = "合同预付款比例是多少？"
hints = ["预付款", "預付款"]
"""


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, api.ReviewReport]:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    root = tmp_path_factory.mktemp("review-real")
    path, checklist = root / "kb.sqlite", root / "sample.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    with api.open_kb(path, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        assert knowledge_base.add([SAMPLE]).ingest.count("ingested") == 1
        report = knowledge_base.review(api.ReviewRequest(str(checklist)))
    return path, checklist, report


def test_the_items_are_answered_with_their_values_and_lines(reviewed: tuple[Path, Path, api.ReviewReport]) -> None:
    _, _, report = reviewed
    rows = {r.item_id: r for r in report.rows}
    bond, deadline, advance = rows["bid_bond"], rows["deadline"], rows["advance"]
    assert bond.verdict == "found" and bond.values[0].number == 50_000, bond
    assert any("伍万元" in q.text or "50,000" in q.text for q in bond.quotes) and bond.quotes[0].where.line_start == 19
    assert deadline.verdict == "found" and deadline.values[0].normal == "2026-12-20", deadline
    assert deadline.quotes[0].where.line_start == 29
    assert advance.verdict == "not_stated" and advance.quotes == (), advance


def test_a_rerun_asks_nothing_and_the_report_is_written_without_a_model(
    reviewed: tuple[Path, Path, api.ReviewReport], tmp_path: Path
) -> None:
    path, checklist, _ = reviewed
    with api.open_kb(path, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        again = knowledge_base.review(api.ReviewRequest(str(checklist)))
        out = knowledge_base.export_review(str(checklist), tmp_path / "report.md")
    assert (again.asked, again.kept) == (0, 3)
    text = out.read_text(encoding="utf-8")
    assert "| 投标保证金 |" in text and "50000" in text and "line 19" in text
