"""A bond not asked for and a fixed price, read by the system (read_rows.waiver_row, fixed_price_row): the model
answered 0, or yes; the row is the clause that says so (a bond's with no value), and an option after an unticked box
is not taken."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import load_settings
from tests.support.review_kb import reviewed

CHECKLIST = """
name = "bond-mini"

[[items]]
id = "bid_bond"
label = "投标保证金 / 押標金"
section = "金额"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金", "押標金"]

[[items]]
id = "performance_bond"
label = "履约保证金 / 履約保證金"
section = "金额"
kind = "amount"
question.hans = "履约保证金是多少？"
hints = ["履约保证金", "履約保證金"]
"""

TEXT = """# 投标人须知前附表

■本项目无需递交投标保证金

□本项目不收取履约保证金

履约保证金的金额：按合同总价的5%。
"""


def test_the_clause_saying_none_is_asked_for_and_not_an_unticked_option(tmp_path: Path) -> None:
    reply = "原文：■本项目无需递交投标保证金\n答案：0元"
    rows = reviewed(tmp_path, load_settings(), TEXT, reply, CHECKLIST)
    bond = rows["bid_bond"]
    assert (bond.verdict, bond.answer, bond.values) == ("found", "■本项目无需递交投标保证金", ())
    assert bond.extra.get("read") == "none asked for"
    assert rows["performance_bond"].extra.get("read") != "none asked for"  # 「□…不收取履约保证金」 not ticked


PRICE_CHECKLIST = """
name = "price-mini"

[[items]]
id = "price_adjustment"
label = "价格调整 / 物價調整"
section = "合同条款"
kind = "yesno"
question.hans = "合同价格是否随物价变动调整？"
hints = ["价格调整", "调价", "固定总价"]
"""


def test_a_fixed_price_answers_no_without_the_model(tmp_path: Path) -> None:
    text = "# 合同条款\n\n3.1.2 除专用合同条款另有约定外，签约合同价为固定价格。\n"
    row = reviewed(tmp_path, load_settings(), text, "原文：无\n答案：是", PRICE_CHECKLIST)["price_adjustment"]
    assert [v.normal for v in row.values] == ["no"]
    assert row.quotes[0].text == "3.1.2 除专用合同条款另有约定外，签约合同价为固定价格。"
    assert row.extra.get("read") == "fixed price"
