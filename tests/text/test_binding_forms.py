"""How the bid is bound, read by the system (``text/binding_forms.py``): sentences from the gold sheets' tenders."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.text.binding_forms import binding_form
from tests.support.review_kb import reviewed


@pytest.mark.parametrize(
    "sentence",
    [
        "15.9 响应方应对所有响应文件采用左侧书本式装订，装订应采用胶装，牢固、不易拆散和换页，不得采用活页方式装订。",
        "投标人应按招标文件中提供的投标文件格式填写，一律用A4纸。",
        "服務建議書一律以 A4 紙張中文橫式撰寫(須含封面、目次、頁碼等)，左側裝訂。",
        "1.正本与副本分别装订（胶装）成册与电子版、密封于规定的一个标书收袋内。",
    ],
)
def test_a_sentence_naming_a_way_the_bid_is_bound(sentence: str) -> None:
    assert binding_form(sentence) == " ".join(sentence.split())


@pytest.mark.parametrize(
    ("sentence", "named", "general"),
    [
        ("报价文件的正本与副本应当分别装订成册。", False, True),  # a general way: read when no named one is stated
        ("竣工资料应采用A4纸胶装成册，交发包人存档。", False, False),  # another document bound (the as-built file)
        ("投标文件的装订要求见第六章。", False, False),  # points elsewhere, names no way
        ("合同文本一式四份，A4纸打印，胶装。", False, False),  # the contract's copies, not the bid
        ("投标文件应加盖公章并密封。", False, False),  # sealed, not bound
    ],
)
def test_what_is_no_named_way_of_binding_the_bid(sentence: str, named: bool, general: bool) -> None:
    assert (binding_form(sentence) is not None) == named
    assert (binding_form(sentence, named=False) is not None) == general


BINDING = """name = "binding"
[[items]]
id = "binding"
label = "装订与格式 / 裝訂及格式"
kind = "text"
question.hans = "投标文件的装订有什么要求？"
hints = ["装订", "胶装"]
"""


def test_a_named_way_is_read_before_a_general_one_without_the_model(tmp_path: Path) -> None:
    text = "# 投标须知\n\n6.2 投标文件正、副本都应分别装订成册。\n\n6.3 投标文件须采用胶装，不得采用活页夹。\n"
    row = reviewed(tmp_path, load_settings(environ={}), text, "原文：无\n答案：文档中没有说明", BINDING)["binding"]
    assert (row.verdict, row.extra.get("read"), row.trace_id) == ("found", "binding", None)
    assert row.answer == "6.3 投标文件须采用胶装，不得采用活页夹。"
