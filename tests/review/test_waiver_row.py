"""A bond not asked for, read by the system (read_rows.waiver_row): the model answered 0; the row is the clause that
says so, with no value, and an option after an unticked box is not taken."""

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
