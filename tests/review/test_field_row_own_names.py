"""A labelled field under another name of the item's own concept answers a text item (the place's 「项目实施地点：」),
but not one whose concept another item shares (开标时间 is no place); and a field pointing elsewhere
(「项目名称：项目名称见应答人须知前附表。」) is no answer: the field it points to is read instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from tests.support.review_kb import reviewed

CHECKLIST = """name = "fields"
[[items]]
id = "place"
label = "履约地点 / 履約地點"
kind = "text"
question.hans = "本项目的服务或交货地点在哪里？"
hints = ["服务地点", "交货地点", "履约地点", "实施地点"]

[[items]]
id = "bid_opening"
label = "开标时间 / 開標時間"
kind = "date"
question.hans = "开标时间是什么时候？"
hints = ["开标时间", "开标"]

[[items]]
id = "bid_opening_place"
label = "开标地点 / 開標地點"
kind = "text"
question.hans = "开标地点在哪里？"
hints = ["开标地点", "开标"]

[[items]]
id = "binding"
label = "装订与格式 / 裝訂及格式"
kind = "text"
question.hans = "投标文件的装订和格式有什么要求？"
hints = ["装订", "胶装"]

[[items]]
id = "submission"
label = "递交方式 / 投標方式"
kind = "text"
question.hans = "投标文件以什么方式递交？"
hints = ["递交", "提交方式", "提交地点", "投标地点", "上传网站"]

[[items]]
id = "project_name"
label = "项目名称 / 標案名稱"
kind = "name"
question.hans = "本项目的名称是什么？"
hints = ["项目名称"]
"""
NOT_STATED = "原文：无\n答案：文档中没有说明"


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


def test_a_field_under_another_name_of_the_items_own_concept_answers_it(tmp_path: Path, settings: Settings) -> None:
    notice = (
        "# 招标书\n\n1、项目实施地点：昆山市花桥镇商祥路259号中城商务广场3号楼\n\n2、开标时间：2025年5月12日9时30分\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, CHECKLIST)
    place = rows["place"]
    assert (place.verdict, place.answer, place.extra.get("read")) == (
        "found",
        "昆山市花桥镇商祥路259号中城商务广场3号楼",
        "labelled field",
    )
    # 开标时间 names the opening, a concept the opening's date item shares: no place of the opening
    assert rows["bid_opening_place"].extra.get("read") != "labelled field"


def test_a_field_naming_another_side_of_a_broad_concept_is_not_the_items(tmp_path: Path, settings: Settings) -> None:
    # 签字盖章 and 装订 are both the document's form (one concept), but the binding item asks for 装订 (its hints)
    notice = "# 磋商文件\n\n签字盖章：供应商必须按照采购文件的规定和要求签字、盖章。\n"
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, CHECKLIST)
    assert rows["binding"].extra.get("read") != "labelled field" and rows["binding"].verdict == "not_stated"


def test_a_field_pointing_elsewhere_is_no_answer_and_the_field_pointed_to_is(
    tmp_path: Path, settings: Settings
) -> None:
    notice = (
        "# 询比文件\n\n1.1.2 项目名称：项目名称见应答人须知前附表。\n\n"
        "# 应答人须知前附表\n\n项目名称：中国移动安徽公司2025年大数据平台网络安全评估服务采购项目\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, CHECKLIST)
    assert rows["project_name"].answer == "中国移动安徽公司2025年大数据平台网络安全评估服务采购项目"


def test_where_the_bid_is_handed_in_is_read_but_not_a_bond_s_form(tmp_path: Path, settings: Settings) -> None:
    # a bond's block has its own 提交方式 (广东's catering tender): no answer of how the bid is handed in
    notice = (
        "# 招标公告\n\n投标保证金\n开户银行：中信银行广州花园支行\n"
        "提交方式：支票、汇票、本票或者金融机构出具的保函等非现金形式提交。\n\n"
        "（三）投标文件提交地点：马鞍山市兴马项目咨询有限公司电子交易系统。\n"
    )
    rows = reviewed(tmp_path, settings, notice, NOT_STATED, CHECKLIST)
    assert rows["submission"].answer == "马鞍山市兴马项目咨询有限公司电子交易系统。"
    assert rows["submission"].extra.get("read") == "labelled field"
