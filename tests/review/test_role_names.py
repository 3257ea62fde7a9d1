"""The purchaser and the agent read from a data sheet's block (``review/role_names.py``): the forms of the national
tender templates and of a 政府采购 notice, blanks and sentences left alone, and a review row answered from the block
with its page and lines when the model found nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.review.role_names import ROLES, RoleName, role_names
from tests.support.review_kb import reviewed

# The data sheet of the national template, as two of the review documents print it (the shared tender, p. 10; the
# switchgear tender, p. 6): the role on its clause's line, its name on the next.
DATA_SHEET = """投标人须知前附表
条款号 内 容 说明与要求
1.1.2 招标人
名 称：黄梅县水利和湖泊局（规划计划股）
地 址：黄梅县人民大道682号
1.1.3 招标代理机构
名称：湖北京翔工程咨询有限公司
1.1.4 代建人
名 称： /
"""
# The contact block that ends a 政府采购 notice (written here in its usual form)
NOTICE = """九、凡对本次采购提出询问，请按以下方式联系。
1.采购人信息
名 称：上海市某区教育局
地 址：某路1号
2.采购代理机构信息
名 称：上海某招标咨询有限公司
"""


def test_the_data_sheet_s_blocks_name_the_purchaser_and_the_agent() -> None:
    assert role_names(DATA_SHEET, ROLES) == [
        RoleName("purchaser", "黄梅县水利和湖泊局（规划计划股）", 2, 3),
        RoleName("agency", "湖北京翔工程咨询有限公司", 5, 6),
    ]


def test_a_notice_s_contact_block_names_them_too_and_only_the_wanted_role_is_read() -> None:
    assert [(r.concept, r.name) for r in role_names(NOTICE, frozenset({"agency"}))] == [
        ("agency", "上海某招标咨询有限公司")
    ]
    assert [r.name for r in role_names(NOTICE, ROLES)] == ["上海市某区教育局", "上海某招标咨询有限公司"]


@pytest.mark.parametrize(
    "text",
    [
        "1.1.2 招标人\n名 称： /\n",  # a blank of the form
        "1.1.2 招标人\n名称：＿＿＿＿\n",
        "招标人应当在投标截止前答复。\n名称：某公司\n",  # a sentence that names the role is no heading
        "1.1.2 招标人\n地 址：某路1号\n联系人：张三\n名称：某公司\n",  # the name too far below the role
        "1.1.5 项目名称\n名称：某项目\n",  # another concept's heading
    ],
)
def test_blanks_sentences_and_other_headings_name_nobody(text: str) -> None:
    assert role_names(text, ROLES) == []


CHECKLIST = """name = "roles"
[[items]]
id = "purchaser"
label = "采购人 / 招標機關"
kind = "name"
question.hans = "本项目的采购人是谁？"
hints = ["采购人", "招标人", "采购单位"]
"""


def test_a_purchaser_the_model_did_not_find_is_read_from_the_block_with_its_page_and_lines(tmp_path: Path) -> None:
    row = reviewed(tmp_path, load_settings(environ={}), DATA_SHEET, "原文：无\n答案：文档中没有说明", CHECKLIST)[
        "purchaser"
    ]
    assert (row.verdict, row.extra.get("read")) == ("found", "role block")
    assert row.answer == "黄梅县水利和湖泊局（规划计划股）"
    (quote,) = row.quotes
    assert quote.text == "1.1.2 招标人 名 称：黄梅县水利和湖泊局（规划计划股）"
    assert (quote.where.line_start, quote.where.line_end) == (3, 4)


def test_the_block_is_read_before_the_model_whose_quote_may_name_someone_else(tmp_path: Path) -> None:
    # the model quotes a sentence that mentions the role under a fee's heading and names a financing platform
    text = DATA_SHEET + "\n10.4 招标人服务费\n“政采贷”业务申请：湖北省政府采购合同融资平台\n"
    reply = "原文：“政采贷”业务申请：湖北省政府采购合同融资平台\n答案：湖北省政府采购合同融资平台"
    row = reviewed(tmp_path, load_settings(environ={}), text, reply, CHECKLIST)["purchaser"]
    assert (row.answer, row.extra.get("read")) == ("黄梅县水利和湖泊局（规划计划股）", "role block")


def test_a_name_followed_by_its_role_in_brackets() -> None:
    # 苏州工业园区's 2005 招标书 opens 「…中心 (招标人)，对…进行招标」; an invitation names both parties so
    text = (
        "苏州工业园区计算机信息中心 (招标人)，对计算机信息中心共享知识平台软件开发项目进行招标。\n"
        "受上海市某区教育局（以下简称“采购人”）委托，上海某招标咨询有限公司（以下简称“采购代理机构”）对本项目招标。\n"
        "已由湖北省水利厅、湖北省发展和改革委员会（项目批准机关名称）以鄂水利函〔2025)200号文批准建设\n"
    )
    assert [(r.concept, r.name, r.first_line) for r in role_names(text, ROLES)] == [
        ("purchaser", "苏州工业园区计算机信息中心", 0),
        ("purchaser", "上海市某区教育局", 1),  # 受 (on behalf of) is no part of the name
        ("agency", "上海某招标咨询有限公司", 1),
    ]  # a form's hint in brackets (项目批准机关名称) holds a role's term, but is no role
    assert [r.name for r in role_names(text, frozenset({"agency"}))] == ["上海某招标咨询有限公司"]
