"""The contract's term read as a span to an end date (read_rows.term_row): the model, asked for a length, answered
「自決標次日起至115年12月31日止」 with one it made up; the row is the span, cited at its sentence."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import load_settings
from tests.support.review_kb import reviewed

CHECKLIST = """
name = "term-mini"

[[items]]
id = "contract_term"
label = "服务期 / 履約期限"
section = "合同条款"
kind = "duration"
question.hant = "履約期限為多久？"
question.hans = "服务期（履约期限）是多长时间？"
hints = ["服务期", "履约期限", "履約期限"]
"""


def test_the_span_to_an_end_date_without_the_model(tmp_path: Path) -> None:
    text = (
        "# 投標須知\n\n獲取文件期間：自公告日起至115年1月16日止。\n\n"
        "三、 期程要求：自決標次日起至 115 年 12 月 31 日止；\n"
    )
    row = reviewed(tmp_path, load_settings(), text, "原文：三、 期程要求\n答案：30天", CHECKLIST)["contract_term"]
    assert row.verdict == "found"
    assert row.answer == "自決標次日起至115年12月31日止"  # not the documents' sale before it
    assert row.quotes[0].text == "三、 期程要求：自決標次日起至 115 年 12 月 31 日止；"
    assert row.extra.get("read") == "term to an end date"


def test_a_term_printed_as_a_length_is_read_as_one(tmp_path: Path) -> None:
    text = "# 项目概况\n\n3、服务期：一年。\n"
    row = reviewed(tmp_path, load_settings(), text, "原文：3、服务期：一年。\n答案：一年", CHECKLIST)["contract_term"]
    assert row.extra.get("read") != "term to an end date"
    assert [v.normal for v in row.values] == ["1 year"]
