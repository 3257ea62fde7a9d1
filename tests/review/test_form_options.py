"""A Taiwanese model form read as ticked (review/ticks.py, text/ticked_options.py through the review's Corpus): the
options before the term they are about (「本採購■不允許□允許 共同投標」), boxes that are about the clause after them,
an unticked option no reader takes, a form's ticked method, a bond's reduction rule that is no waiver, a time longer
than the warranty that is no warranty, a title naming only the purchaser, and a field of a name and a case number."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.review.field_lines import head_of
from pikelocal.review.title_block import title_block
from tests.support.review_kb import reviewed

CHECKLIST = """name = "form"
[[items]]
id = "joint_bid"
label = "联合体投标 / 共同投標"
kind = "yesno"
question.hant = "是否允許共同投標？"
hints = ["联合体", "共同投標"]

[[items]]
id = "subcontracting"
label = "分包 / 分包及轉包"
kind = "yesno"
question.hant = "是否允許分包？"
hints = ["分包", "分包廠商"]

[[items]]
id = "qualifications"
label = "资格要求 / 投標廠商資格"
kind = "text"
question.hant = "投標廠商資格為何？"
hints = ["投標廠商資格", "资格要求"]

[[items]]
id = "evaluation_method"
label = "评标方法 / 評選方式"
kind = "text"
question.hant = "決標方式為何？"
hints = ["最低標", "最有利標"]

[[items]]
id = "procurement_method"
label = "采购方式 / 招標方式"
kind = "text"
question.hant = "招標方式為何？"
hints = ["招標方式", "公開招標"]

[[items]]
id = "bid_bond"
label = "投标保证金 / 押標金"
kind = "amount"
question.hant = "押標金是多少？"
hints = ["押標金"]

[[items]]
id = "warranty_period"
label = "质保期 / 保固期"
kind = "duration"
question.hant = "保固期多久？"
hints = ["保固期", "保固"]
"""
NOT_STATED = "原文：无\n答案：文档中没有说明"
FORM = """臺北大眾捷運股份有限公司投標須知
一、採購方式：
□(一)公開招標。
■2.公開取得書面報價或企劃書。
十三、本採購■不允許□允許 共同投標。
投標廠商資格■不允許□允許 分包廠商就其分包部分具有者代替之。
五十、決標原則：
■1.最低標
□2.最有利標
二十五、仍無法提出相關證明文件者，不適用押標金減收規定。
(九)保固保證金之有效期應較契約規定之保固期長 90 日。
"""


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


def test_a_model_form_is_read_as_ticked(tmp_path: Path, settings: Settings) -> None:
    rows = reviewed(tmp_path, settings, FORM, NOT_STATED, CHECKLIST)
    joint = rows["joint_bid"]
    assert (joint.extra.get("read"), [v.normal for v in joint.values]) == ("ticked box", ["no"])
    assert "■不允許" in joint.quotes[0].text and joint.quotes[0].text.endswith("共同投標")  # cited with its term
    # the boxes after 投標廠商資格 are about the subcontractors' clause after them: neither item's answer
    assert rows["qualifications"].extra.get("read") != "ticked box"
    assert rows["subcontracting"].extra.get("read") != "ticked box"
    assert (rows["evaluation_method"].answer, rows["evaluation_method"].extra.get("read")) == (
        "最低標",
        "evaluation method",
    )
    assert rows["procurement_method"].answer == "公開取得書面報價"  # not the unticked 公開招標
    # 「不適用押標金減收規定」 says the bond's reduction does not apply: no waiver of the bond
    assert rows["bid_bond"].extra.get("read") != "none asked for"
    # 90 days longer than the warranty is no warranty of 90 days
    assert rows["warranty_period"].extra.get("read") != "agreed statements"
    assert rows["warranty_period"].values == ()


def test_a_title_of_the_purchaser_s_document_names_no_project() -> None:
    block = title_block("臺北大眾捷運股份有限公司投標須知\n第壹節、總則\n")
    assert block is not None and (block.name, block.purchaser) == ("", "臺北大眾捷運股份有限公司")
    named = title_block("榆林高新控股集团安全环保管家项目（二次）竞争性磋商文件\n")
    assert named is not None and named.purchaser == "" and named.name.startswith("榆林高新")


def test_a_field_of_a_name_and_a_case_number_is_split_at_the_code(tmp_path: Path, settings: Settings) -> None:
    checklist = """name = "ids"
[[items]]
id = "project_name"
label = "项目名称 / 標案名稱"
kind = "name"
question.hant = "標案名稱為何？"
hints = ["標案名稱"]

[[items]]
id = "project_number"
label = "项目编号 / 標案案號"
kind = "name"
question.hant = "案號為何？"
hints = ["案號"]
"""
    notice = "# 投標須知\n\n二、採購標的名稱及案號： 進氣閥等4項採購\u3000\u3000C13A07469A  。\n"
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, checklist)
    assert rows["project_name"].answer == "進氣閥等4項採購" and rows["project_number"].answer == "C13A07469A"
    assert head_of("採購標的名稱及案號") == "採購標的名稱及案號"  # 標的 is a word, not 的 before a head
    assert head_of("发包人提供的设备清单") == "设备清单"
