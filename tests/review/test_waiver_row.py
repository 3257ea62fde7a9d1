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


FORM_CHECKLIST = """
name = "form-mini"

[[items]]
id = "bid_bond_form"
label = "投标保证金缴纳方式 / 押標金繳納方式"
section = "金额"
kind = "text"
question.hans = "投标保证金以什么形式缴纳？"
hints = ["投标保证金", "保函", "缴纳方式"]

[[items]]
id = "performance_bond_form"
label = "履约保证金形式"
section = "金额"
kind = "text"
question.hans = "履约保证金以什么形式提交？"
hints = ["履约保证金", "保函"]
"""


def test_the_form_of_a_bond_not_asked_for_is_not_stated_without_the_model(tmp_path: Path) -> None:
    # 阳西: 「13.1 投标保证金 ☑不收取」, and a guarantee form among the file's forms, which the model offered
    text = "# 投标人须知表\n\n13.1 投标保证金 ☑不收取。\n\n# 附件\n\n投标保函格式：本保函自出具之日起有效。\n"
    reply = "原文：投标保函格式：本保函自出具之日起有效\n答案：投标保函"
    rows = reviewed(tmp_path, load_settings(), text, reply, FORM_CHECKLIST)
    form = rows["bid_bond_form"]
    # the lone tick after a numbered label is the form's box: no bond, so no form of it
    assert (form.verdict, form.extra.get("read"), form.trace_id) == ("not_stated", "ticked box", None)
    assert "不收取" in form.quotes[0].text
    # the performance bond is not waived: its form is asked of the model
    assert rows["performance_bond_form"].extra.get("read") != "none asked for"
    assert rows["performance_bond_form"].trace_id is not None


def test_a_bond_replaced_by_a_pledge_has_that_form_and_the_model_is_asked(tmp_path: Path) -> None:
    # 玉林: 「本项目不适用于保证金」 and 「采用信用承诺代替投标保证金」: the pledge is the form, not "none"
    text = "# 投标须知\n\n1、投标保证金数额：/（本项目不适用于保证金）\n\n本项目采用信用承诺代替投标保证金。\n"
    reply = "原文：本项目采用信用承诺代替投标保证金\n答案：信用承诺"
    form = reviewed(tmp_path, load_settings(), text, reply, FORM_CHECKLIST)["bid_bond_form"]
    assert form.extra.get("read") != "none asked for" and form.trace_id is not None


def test_the_form_of_a_bond_waived_in_prose_is_not_stated_without_the_model(tmp_path: Path) -> None:
    text = "# 投标人须知表\n\n本项目不收取投标保证金。\n\n# 附件\n\n投标保函格式：本保函自出具之日起有效。\n"
    reply = "原文：投标保函格式：本保函自出具之日起有效\n答案：投标保函"
    form = reviewed(tmp_path, load_settings(), text, reply, FORM_CHECKLIST)["bid_bond_form"]
    assert (form.verdict, form.extra.get("read"), form.trace_id) == ("not_stated", "none asked for", None)
    assert "不收取" in form.quotes[0].text
