"""A figure item the documents state the same way wherever they state it is answered from those statements, without
the model (runner.agreed_row); where they disagree, or state nothing, the model is asked."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import load_settings
from tests.support.review_kb import reviewed

VALIDITY = """name = "validity"

[[items]]
id = "bid_validity"
label = "投标有效期 / 投標有效期"
section = "时间"
kind = "duration"
question.hans = "投标有效期是多长时间？"
hints = ["投标有效期", "有效期"]
"""
REPLY = "原文：投标有效期为60天。\n答案：60天"  # what the scripted model would answer


def test_statements_that_agree_answer_without_the_model(tmp_path: Path) -> None:
    text = "# 投标人须知\n\n本项目投标有效期为90天。\n\n# 投标文件格式\n\n本投标文件的投标有效期为90日历天。\n"
    row = reviewed(tmp_path, load_settings(), text, REPLY, VALIDITY)["bid_validity"]
    assert (row.verdict, row.extra.get("read"), row.trace_id) == ("found", "agreed statements", None)
    assert [v.normal for v in row.values] == ["90 days"]
    assert row.quotes[0].text == "本项目投标有效期为90天。" and row.quotes[0].where.line_start is not None


def test_statements_that_disagree_leave_the_item_to_the_model(tmp_path: Path) -> None:
    text = "# 投标人须知\n\n本项目投标有效期为90天。\n\n# 投标文件格式\n\n本投标文件的投标有效期为60日历天。\n"
    row = reviewed(tmp_path, load_settings(), text, REPLY, VALIDITY)["bid_validity"]
    assert row.extra.get("read") != "agreed statements" and row.trace_id is not None
    assert row.verdict == "conflicting"  # the model's 60 days set against the 90 days


def test_no_statement_leaves_the_item_to_the_model(tmp_path: Path) -> None:
    text = "# 投标人须知\n\n投标有效期见投标人须知前附表。\n"
    row = reviewed(tmp_path, load_settings(), text, "原文：无\n答案：文档中没有说明", VALIDITY)["bid_validity"]
    assert row.trace_id is not None and row.verdict == "not_stated"
