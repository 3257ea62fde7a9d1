"""The bid's copies totalled by the system (read_rows.copies_row): the model, shown 「正本1份、副本4份」, answered 4;
the row is the total, cited at its line, and the model is not asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.text.copies import copies_statements, counts_the_bid
from tests.support.review_kb import reviewed

CHECKLIST = """
name = "copies-mini"

[[items]]
id = "copies"
label = "份数 / 份數"
section = "投标文件格式"
kind = "count"
question.hans = "投标文件需要提交几份？"
hints = ["份数", "正本", "副本", "一正", "份數", "一式"]
"""

TEXT = """# 投标人须知

本合同一式四份，甲乙双方各执贰份。

3. 递交要求：正本1份、副本4份，密封包装，封面注明项目名称。
"""


def test_the_total_of_the_original_and_its_copies_without_the_model(tmp_path: Path) -> None:
    # the scripted model answers the copies' count alone, as the real one did on the signage tender
    reply = "原文：3. 递交要求：正本1份、副本4份，密封包装，封面注明项目名称。\n答案：4份"
    row = reviewed(tmp_path, load_settings(), TEXT, reply, CHECKLIST)["copies"]
    assert row.verdict == "found"
    assert [v.normal for v in row.values] == ["5"]
    assert row.answer == "5份（正本1份、副本4份）"
    assert row.quotes[0].text == "3. 递交要求：正本1份、副本4份，密封包装，封面注明项目名称。"
    assert row.quotes[0].where.line_start == row.quotes[0].where.line_end
    assert row.extra.get("read") == "copies"


def test_a_contract_s_counterparts_alone_leave_the_item_to_the_model(tmp_path: Path) -> None:
    text = "# 合同条款\n\n本合同一式四份，甲乙双方各执贰份。\n"
    row = reviewed(tmp_path, load_settings(), text, "原文：无\n答案：文档中没有说明", CHECKLIST)["copies"]
    assert row.extra.get("read") is None
    assert row.verdict == "not_stated"


DATA = Path(__file__).parent.parent / "data" / "review"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "total"),
    [
        ("cn-tender-luodian-canteen.pdf", 3),  # 「磋商响应文件一式三份」 p. 5 (gold: 3, 一正二副 p. 7)
        ("tw-req-hualien-bus.pdf", 8),  # 「服務建議書1 式8 份」 p. 23; the deliverables' 「一式 3 份」 are no bid
        ("cn-tender-yulin-safety.pdf", 3),  # 「正本份数：壹份；副本；份数：贰份」 p. 7
        ("cn-tender-hanshan-pumps.pdf", None),  # an electronic bid: only the contract's 「一式六份」 (gold: none)
        ("tw-rfp-moea-warehouse.pdf", None),  # only deliverables' 「乙式 1 份」 (gold: none)
    ],
)
def test_real_tenders_first_count_of_the_bid(name: str, total: int | None) -> None:
    from pikelocal.ingest.read.parse import parse_document

    text = "\n".join(p.text for p in parse_document(DATA / name).pages)
    counted = [s.total for s in copies_statements(text) if counts_the_bid(s)]
    assert (counted[0] if counted else None) == total
