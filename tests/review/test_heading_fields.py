"""A heading that is only a label, with one short paragraph under it, is a field (a Word notice's 「## 二、采购人」
then the bank's name); a slash label stands for both its readings (「项目实施/提供地点」); a term that only
qualifies the asked one does not make a field another item's (「采购平台电子投标截止时间」); and the model's answers
that point elsewhere or count a time from another period's end are no answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.review.field_lines import fields, slash_readings
from tests.support.review_kb import reviewed

CHECKLIST = """name = "headings"
[[items]]
id = "purchaser"
label = "采购人 / 招標機關"
kind = "name"
question.hans = "本项目的采购人是谁？"
hints = ["采购人", "招标人"]

[[items]]
id = "place"
label = "履约地点 / 履約地點"
kind = "text"
question.hans = "本项目的服务或交货地点在哪里？"
hints = ["服务地点", "交货地点", "履约地点", "实施地点"]

[[items]]
id = "bid_deadline"
label = "投标截止时间 / 截止投標時間"
kind = "date"
question.hans = "投标截止时间是什么时候？"
hints = ["投标截止", "截止时间", "响应截止"]

[[items]]
id = "clarification_deadline"
label = "澄清与疑问截止 / 疑義提出期限"
kind = "date"
question.hans = "提出疑问的截止时间是什么时候？"
hints = ["澄清", "疑问", "答疑"]

[[items]]
id = "binding"
label = "装订与格式 / 裝訂及格式"
kind = "text"
question.hans = "投标文件的装订和格式有什么要求？"
hints = ["装订", "格式"]

[[items]]
id = "warranty_period"
label = "质保期 / 保固期"
kind = "duration"
question.hans = "质保期是多久？"
hints = ["质保期"]

[[items]]
id = "contract_term"
label = "服务期 / 履約期限"
kind = "duration"
question.hans = "服务期是多久？"
hints = ["服务期限", "服务期"]
"""
NOT_STATED = "原文：无\n答案：文档中没有说明"
NOTICE = """# 第一部分 响应函

根据某银行业务发展需求，现就我行“安全众测服务采购项目”进行采购。

## 二、采购人

江苏常熟农村商业银行股份有限公司

## 三、项目实施/提供地点

江苏省苏州市苏州工业园区直属镇东长路88号

## 五、响应截止日期

北京时间 2025年06月24日

## 六、其他说明

投标截止时间以系统时间为准，逾期上传的响应文件不予受理。
"""


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


def test_a_label_s_heading_and_its_one_paragraph_are_a_field() -> None:
    found = [(f.label, f.value, f.line, f.last_line) for f in fields(NOTICE)]
    assert ("采购人", "江苏常熟农村商业银行股份有限公司", 4, 6) in found
    assert ("响应截止日期", "北京时间 2025年06月24日", 12, 14) in found
    assert ("项目实施/提供地点", "江苏省苏州市苏州工业园区直属镇东长路88号", 8, 10) in found
    # a section's clause is its text, not its value; neither is a paragraph the next paragraph goes on from
    assert not any(label == "其他说明" for label, *_ in found)
    assert not [f for f in fields("## 二、采购人\n\n某某有限公司\n\n另一段文字\n")]
    assert not [f for f in fields("## 三、投标截止时间\n\n投标截止时间为2025年10月25日9时30分，逾期不予受理。\n")]
    table = [f.label for f in fields("## 六、采购人联系方式\n\n| 投标地址 | 常熟市新世纪大道58号 |\n")]
    assert table == ["投标地址"]  # the table's cells are its fields; the heading over them is none


def test_a_slash_label_stands_for_both_readings() -> None:
    assert {"项目实施地点", "提供地点", "项目实施"} <= set(slash_readings("项目实施/提供地点"))
    assert {"交货地点", "服务地点"} <= set(slash_readings("交货/服务地点"))
    assert slash_readings("项目名称") == () and slash_readings("a/b/c") == ()


def test_a_notice_of_label_headings_answers_without_the_model(tmp_path: Path, settings: Settings) -> None:
    rows = reviewed(tmp_path, settings, NOTICE, NOT_STATED, CHECKLIST)
    assert (rows["purchaser"].answer, rows["purchaser"].extra.get("read")) == (
        "江苏常熟农村商业银行股份有限公司",
        "labelled field",
    )
    assert rows["place"].answer == "江苏省苏州市苏州工业园区直属镇东长路88号"
    assert rows["place"].extra.get("read") == "labelled field"
    deadline = rows["bid_deadline"]
    assert deadline.extra.get("read") == "labelled field" and [v.normal for v in deadline.values] == ["2025-06-24"]
    cited = deadline.quotes[0].text
    assert "响应截止日期" in cited and "2025年06月24日" in cited


def test_a_qualifying_term_does_not_make_a_field_another_item_s(tmp_path: Path, settings: Settings) -> None:
    notice = (
        "# 投标邀请\n\n书面答疑回复截止时间：2026年7月30日17时（北京时间），格式和答疑途径同上\n\n"
        "采购平台电子投标截止时间：2026年8月5日9时00分（北京时间）\n\n"
        "服务期限质保期：12个月\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, CHECKLIST)
    deadline = rows["bid_deadline"]
    # 电子投标 (the documents' form) only says which bids' deadline; 答疑回复 makes the first line the replies'
    assert deadline.extra.get("read") == "labelled field" and [v.normal for v in deadline.values] == ["2026-08-05"]
    # two terms side by side still name two things: neither the warranty nor the term is read from that field
    assert rows["warranty_period"].extra.get("read") != "labelled field"
    assert rows["contract_term"].extra.get("read") != "labelled field"
