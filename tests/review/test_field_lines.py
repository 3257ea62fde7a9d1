"""Labelled fields read without the model (review/field_lines.py, read_rows.field_row): the forms a notice and a
data sheet print (lines as pypdf and the Word reader give them), what is no field, and a review run that answers
an item from a field without asking the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.review.field_lines import fields, head_of, referred_label
from tests.support.review_kb import reviewed


def pairs(text: str) -> list[tuple[str, str]]:
    return [(f.label, f.value) for f in fields(text)]


def test_a_value_wrapped_by_the_page_is_read_whole_and_a_code_ends_its_line() -> None:
    text = (
        "1、项目编号：MASJY-QT-H-2024-1593 含山县城乡统筹供水一体化升级改造工程\n"
        "项目-仙踪镇剩余供水支管网改造工程\n"
        "2、项目名称：含山县城乡统筹供水一体化升级改造工程项目-仙踪镇剩余供\n"
        "水支管网改造工程（加压泵站设备采购及安装项目）\n"
        "3、采购金额：197.4万元\n"
    )
    got = dict(pairs(text))
    assert (
        got["项目名称"]
        == "含山县城乡统筹供水一体化升级改造工程项目-仙踪镇剩余供水支管网改造工程（加压泵站设备采购及安装项目）"
    )
    assert got["采购金额"] == "197.4万元"
    # a number's line ends with its code; the words after it on the line are the cover's, left as printed
    assert got["项目编号"] == "MASJY-QT-H-2024-1593"


def test_a_bracket_left_open_at_a_line_s_end_continues_on_the_next() -> None:
    text = (
        "2.1 项目名称：山西华阳集团新能股份有限公司一矿阎家庄风井项目（阎家庄 35/6KV\n"
        "变电站 35KV开关柜）采购\n2.2 招标编号：JSH2023-15-35-103\n"
    )
    assert pairs(text) == [
        ("项目名称", "山西华阳集团新能股份有限公司一矿阎家庄风井项目（阎家庄 35/6KV变电站 35KV开关柜）采购"),
        ("招标编号", "JSH2023-15-35-103"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "发包人： （盖单位章） 勘察设计人： （盖单位章）",  # a form's signature block: what to fill in
        "项目名称：＿＿＿＿＿＿＿＿",  # underscores
        "1.1.1.6 发包人要求：指合同文件中名为“发包人要求”的文件。",  # a definition
        "投标截止时间：详见投标人须知前附表",  # a reference elsewhere
        "其他投标保证金事项：人民币5万元以上的，应从基本账户转出。",  # a figure that bounds a case
    ],
)
def test_what_is_no_field_s_value(line: str) -> None:
    assert [v for _label, v in pairs(line) if head_of(_label)] == []


def test_a_table_row_s_label_cell_and_the_cell_after_it() -> None:
    assert ("项目编号", "310113000241206154458-13179835") in pairs("| 1 | 项目编号 | 310113000241206154458-13179835 |")


def test_a_word_heading_that_is_a_field() -> None:
    # the signage tender's data sheet: Word made each numbered line a heading
    found = list(fields("### 2.投标有效期：自开标之日起60日历天。\n### 第二章 投标人须知\n"))
    assert [(f.label, f.value) for f in found] == [("投标有效期", "自开标之日起60日历天。")]


def test_what_a_label_names() -> None:
    assert head_of("发包人提供的设备清单") == "设备清单"  # a list of equipment, not the purchaser
    assert head_of("投标保证金的金额") == "投标保证金"  # the bond's amount
    assert head_of("上級機關名稱") == "上級機關名稱"
    assert head_of("报价要求") == ""  # a topic, not a value
    assert head_of("缺陷责任期的具体期限") == "缺陷责任期"  # the period's own length (肥西's contract data sheet)


def test_a_flattened_table_s_row_number_before_the_clause_number() -> None:
    # 肥西's 专用合同条款数据表, as PDF text: the table's row 12, then clause 15.2.1 and its field
    (field,) = fields("12  15.2.1 缺陷责任期的具体期限：   24个月 。\n")
    assert (field.label, field.value) == ("缺陷责任期的具体期限", "24个月 。")
    assert [f.label for f in fields("2025 年 12 月：完成\n")] == []  # a date is no row number and label


def test_a_value_naming_another_field() -> None:
    assert referred_label("同投标文件提交截止时间。") == "投标文件提交截止时间"
    assert referred_label("2025年1月15日") == ""


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


DATES = """name = "dates"
[[items]]
id = "bid_deadline"
label = "投标截止时间"
kind = "date"
question.hans = "投标截止时间是什么时候？"
hints = ["投标截止", "截止时间"]

[[items]]
id = "bid_opening"
label = "开标时间"
kind = "date"
question.hans = "开标时间是什么时候？"
hints = ["开标时间", "开标"]

[[items]]
id = "contract_term"
label = "服务期"
kind = "duration"
question.hans = "服务期是多久？"
hints = ["服务期", "服务期限"]

[[items]]
id = "warranty_period"
label = "保固期"
kind = "duration"
question.hant = "保固期為多久？"
hints = ["保固期", "保固"]
"""
NOTICE = (
    "# 招标公告\n\n一、时间安排\n\n1、投标文件提交截止时间：2025年1月15日9时00分（北京时间）。\n\n"
    "2、开标时间：同投标文件提交截止时间。\n\n3、服务期保固期：自驗收合格次日起一年。\n"
)


def test_a_review_answers_from_labelled_fields_without_the_model(tmp_path: Path, settings: Settings) -> None:
    rows = reviewed(tmp_path, settings, NOTICE, "原文：无\n答案：文档中没有说明", DATES)
    deadline, opening = rows["bid_deadline"], rows["bid_opening"]
    assert (deadline.verdict, [v.normal for v in deadline.values]) == ("found", ["2025-01-15"])
    assert deadline.extra.get("read") == "labelled field" and deadline.trace_id is None  # the model was not asked
    # 「同投标文件提交截止时间」 is read as that field's date, cited at its own line
    assert (opening.verdict, [v.normal for v in opening.values]) == ("found", ["2025-01-15"])
    assert opening.quotes[0].text == "2、开标时间：同投标文件提交截止时间。"
    # 服务期保固期 names the warranty and the term: neither item is read from it, the model is asked (and finds none)
    assert rows["contract_term"].verdict == "not_stated" and rows["contract_term"].trace_id is not None
    assert rows["warranty_period"].verdict == "not_stated" and rows["warranty_period"].trace_id is not None


def test_a_field_of_two_items_joined_answers_both(tmp_path: Path, settings: Settings) -> None:
    notice = "# 招标公告\n\n四、投标截止及开标时间：2025年1月16日9时00分。\n"
    rows = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", DATES)
    for item in ("bid_deadline", "bid_opening"):
        assert [v.normal for v in rows[item].values] == ["2025-01-16"] and rows[item].trace_id is None


def test_a_label_s_brackets_give_the_field_another_name() -> None:
    # the Beijing Bank tender's notice: the deadline's field is the opening's too, the delivery place the opening's
    text = (
        "(1) 投标文件递交截止时间（即投标截止时间和开标时间，下同）：2026年8月27日13:30（北京时间）；\n"
        "(3) 投标文件递交地点（即开标地点，下同）：北京市西城区金融大街丙17号会议室；\n"
        "（一）截止时间（开标时间）：2024 年 6 月 18 日9：00（北京时间）\n"
        "投标保证金（人民币 5 万元）：银行转账\n"
    )
    read = [(f.label, f.alias, f.value) for f in fields(text)]
    assert read == [
        ("投标文件递交截止时间", "投标截止时间和开标时间", "2026年8月27日13:30（北京时间）；"),
        ("投标文件递交地点", "开标地点", "北京市西城区金融大街丙17号会议室；"),
        ("截止时间", "开标时间", "2024 年 6 月 18 日9：00（北京时间）"),  # a time's colon is no next label
    ]  # a bracket with a figure is no name: 「投标保证金（人民币 5 万元）」 is no field


def test_a_field_named_again_in_its_brackets_answers_both_items(tmp_path: Path, settings: Settings) -> None:
    notice = "# 招标公告\n\n(1) 投标文件递交截止时间（即投标截止时间和开标时间，下同）：2025年1月16日9时00分；\n"
    rows = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", DATES)
    for item in ("bid_deadline", "bid_opening"):
        assert [v.normal for v in rows[item].values] == ["2025-01-16"] and rows[item].trace_id is None


TEXTS = """name = "texts"
[[items]]
id = "bid_opening_place"
label = "开标地点 / 開標地點"
kind = "text"
question.hans = "开标地点在哪里？"
hints = ["开标地点", "开标"]

[[items]]
id = "joint_bid"
label = "联合体投标"
kind = "yesno"
question.hans = "是否接受联合体投标？"
hints = ["联合体"]

[[items]]
id = "payment"
label = "付款方式"
kind = "text"
question.hans = "付款方式是什么？"
hints = ["付款", "支付方式"]

[[items]]
id = "bid_bond_form"
label = "投标保证金缴纳方式"
kind = "text"
question.hans = "投标保证金以什么方式缴纳？"
hints = ["投标保证金", "缴纳方式"]
"""
DATA_SHEET = (
    "# 投标人须知前附表\n\n2、开标地点：含山县公共资源交易中心开标三室\n\n7、是否接受联合体：否\n\n"
    "5、付款方式：合同签订后，采购人向中标人支付合同金额的40%作为预付款（预付款支付之前，中标人须向采购人\n"
    "提交银行、保险机构出具的预付款保函），货到现场并安装调试完成后支付至合同金额的85%，验收合\n"
    "格后支付至合同金额的97%，余款3%待质保期满后一次性支付，质保期内如出现质量问题，中标人须\n"
    "在接到通知后24小时内到达现场处理。\n\n"
    "支付方式：现金或转账\n\n"
    "投标保证金缴纳方式：本次招标是否需要交纳投标保证金，详见招标公告。\n"
)


def test_a_text_or_yes_no_item_from_a_field_with_its_own_label(tmp_path: Path, settings: Settings) -> None:
    rows = reviewed(tmp_path, settings, DATA_SHEET, "原文：无\n答案：文档中没有说明", TEXTS)
    place, joint = rows["bid_opening_place"], rows["joint_bid"]
    assert (place.verdict, place.answer) == ("found", "含山县公共资源交易中心开标三室") and place.trace_id is None
    assert (joint.verdict, [v.normal for v in joint.values]) == ("found", ["no"]) and joint.trace_id is None
    # a paragraph going on past the lines a field joins is no field's value, nor is a hint's label (支付方式 is
    # the bond's form here) or a reference elsewhere: the model is asked
    assert rows["payment"].trace_id is not None and rows["payment"].verdict == "not_stated"
    assert rows["bid_bond_form"].trace_id is not None and rows["bid_bond_form"].verdict == "not_stated"


def test_a_table_s_header_row_and_a_form_s_empty_fields_are_no_fields() -> None:
    assert pairs("| 序 号 | 项目名称 | 单 位 | 数量 | 单价 | 合计 | 备注 |") == []
    assert pairs("项目名称： 项目编号： 包号：") == []
    # a time's colon is no next field: 「10:00」 ends a date's value
    assert pairs("7. 投标截止/开标时间：2026年06月12日10:00（北京时间）") == [
        ("投标截止/开标时间", "2026年06月12日10:00（北京时间）")
    ]
    # a two-column row is a field, whatever its length
    assert pairs("| 采购方式 | 公开招标 |") == [("采购方式", "公开招标")]
    # the Beijing Bank notice's table header: 交货/服务地点 is a header's cell, so 中标人数量 is no scope
    assert pairs("| 采购内容 | 中标人数量 | 交货/服务期 | 交货/服务地点 |") == []
    # a column's unit in brackets is no text of the header (厦门国际银行's price table)
    assert pairs("| 采购内容 | 人数 | 单价（元/人*年） | 小计（元） | 备注 |") == []
    # a value ends where the next label starts after a comma (温岭's notice)
    assert pairs("采购标的： 数据中心信创基础软硬件 ，所属行业： 工业 。") == [("采购标的", "数据中心信创基础软硬件")]
    # short cells answering the cell before them are a row of fields, not a header
    assert pairs("| 联合体投标 | 否 | 分包 | 不允许 |") == [("联合体投标", "否"), ("分包", "不允许")]


def test_a_value_whose_paragraph_goes_on_is_not_closed() -> None:
    # a Word paragraph after the field's line continues it (the agent's name, then its address)
    text = "九、 开标地点：上海浦成机电设备招标有限公司\n\n上海浦东新区商城路618号良友大厦8楼会议室\n\n十、 联系方式"
    (place,) = fields(text)
    assert not place.closed
    # the next clause, or a page's running header and number before it, closes it
    header = "某某项目 招标文件"
    text = f"{header}\n1\n八、 开标地点：某某会议室\n{header}\n2\n九、 联系人：张三\n{header}\n3\n"
    assert [f.closed for f in fields(text) if f.label == "开标地点"] == [True]


def test_a_short_line_left_inside_brackets_continues_on_the_next() -> None:
    text = "开标地点：金蝉电子招标投标综合交易平台（华阳新\n材料）（http://huayang.jcebid.com/）\n9\n"
    (place,) = fields(text)
    assert place.value == "金蝉电子招标投标综合交易平台（华阳新材料）（http://huayang.jcebid.com/）"


NAMES = """name = "names"
[[items]]
id = "purchaser"
label = "采购人"
kind = "name"
question.hans = "本项目的采购人是谁？"
hints = ["采购人", "采购单位"]
"""


def test_a_name_with_glyphs_lost_is_left_to_the_model(tmp_path: Path, settings: Settings) -> None:
    notice = "# 招标公告\n\n采购单位：上      安局宝山分局\n"
    row = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", NAMES)["purchaser"]
    assert row.trace_id is not None and row.extra.get("read") != "labelled field"


WEIGHTS = """name = "weights"

[[items]]
id = "technical_weight"
label = "技术分权重 / 技術評分權重"
kind = "percentage"
question.hans = "技术分的权重是多少？"
hints = ["技术分", "技术部分"]
"""


def test_a_tolerance_is_no_weight(tmp_path: Path, settings: Settings) -> None:
    # 「技术部分得分计算」 labels a rule whose percentage is a band around the mean, not the technical part's weight
    notice = (
        "# 评标办法\n\n3、技术部分得分计算：评标小组成员的评分偏离超过全体成员的评分均值±20%，该成员的分值将被剔除。\n"
    )
    row = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", WEIGHTS)["technical_weight"]
    assert row.extra.get("read") != "labelled field" and row.verdict == "not_stated"
    weight = "# 评标办法\n\n3、技术部分权重：30%\n"
    (tmp_path / "w").mkdir()
    row = reviewed(tmp_path / "w", settings, weight, "原文：无\n答案：文档中没有说明", WEIGHTS)["technical_weight"]
    assert row.extra.get("read") == "labelled field" and [v.normal for v in row.values] == ["30%"]


def test_a_share_of_something_else_is_no_weight(tmp_path: Path, settings: Settings) -> None:
    # 厦门国际银行's quarterly assessment: 「占比」 is the share of staff with a degree, a rule's line, not a weight
    notice = (
        "# 考核办法\n\n| 考核项目 | 考核内容 | 权重 |\n|---|---|---|\n"
        "| 外包人员本科及以上人员占比 | 评估期内，所有在岗的外包人员本科及以上占比是否达到50%及以上，"
        "如果是，得权重分；如果否，按实际符合人数/全部在岗人数*权重分 | 5 |\n"
    )
    row = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", WEIGHTS)["technical_weight"]
    assert row.extra.get("read") != "labelled field" and row.verdict == "not_stated"


BOND = """name = "bond"

[[items]]
id = "bid_bond"
label = "投标保证金 / 押標金"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金"]

[[items]]
id = "tax_included"
label = "报价是否含税 / 報價是否含稅"
kind = "yesno"
question.hans = "报价是否含税？"
hints = ["含税"]
"""


def test_a_reference_to_the_rejection_clauses_is_no_answer(tmp_path: Path, settings: Settings) -> None:
    # a data sheet's 「否决条款」 column beside the bond and the tax rows: a reference, not 否 (there is none, or no)
    notice = "# 投标人须知前附表\n\n| 投标保证金 | 否决条款 |\n\n| 报价是否含税 | 否决条款 |\n"
    rows = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", BOND)
    assert rows["bid_bond"].extra.get("read") != "labelled field"
    assert rows["tax_included"].extra.get("read") != "labelled field"


def test_an_attribute_field_under_a_numbered_heading_is_the_heading_s() -> None:
    # 苏州工业园区's 2005 招标书: 「6. 开标」, then 「时间：…」 and 「地点：…」 are the opening's time and place
    text = (
        "5. 投标文件递送\n地点：同第4条中的地点 朱志伟 收\n递送截止时间：2005 年 5 月 11 日 14 时 00 分\n"
        "6. 开标\n时间： 2005 年 5月 11日 14 时 00 分\n地点：苏州工业园区苏华路 2 号国际大厦 4楼6 号会议室\n"
        "10 谈判保证金\n金额:壹万元整(¥10000.00)\n"
    )
    read = [(f.label, f.alias) for f in fields(text)]
    assert read == [
        ("地点", "投标文件递送地点"),
        ("递送截止时间", ""),  # a label of its own keeps it
        ("时间", "开标时间"),
        ("地点", "开标地点"),
        ("金额", "谈判保证金金额"),  # a flattened table's row 「10 谈判保证金」 heads its fields too
    ]


def test_registering_to_bid_is_not_the_bid_deadline(tmp_path: Path, settings: Settings) -> None:
    # 苏州工业园区's 2005 招标书: registration closes twelve days before the bids are due; only the second is asked
    notice = (
        "# 招标书\n\n4. 登记投标项目\n登记截止时间：2005 年 4 月 30 日 17 时 00 分\n"
        "5. 投标文件递送\n递送截止时间：2005 年 5 月 11 日 14 时 00 分\n"
    )
    rows = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", DATES)
    deadline = rows["bid_deadline"]
    assert (deadline.verdict, [v.normal for v in deadline.values]) == ("found", ["2005-05-11"])
    assert deadline.quotes[0].text.startswith("递送截止时间")


def test_a_flattened_table_s_row_with_no_colon_is_a_field() -> None:
    # 华润万家's 投标人须知前附表 as pypdf gives it: row number, label cell, value cell, apart by spaces
    text = "16 投标有效期 投标截止时间起 120天\n18 装订要求 无\n2.1 投标人 应具备下列条件\n第 3 页\n"
    read = [(f.label, f.value, f.colonless) for f in fields(text)]
    assert read == [("投标有效期", "投标截止时间起 120天", True), ("装订要求", "无", True)]  # 2.1 is a clause's


ROWS = """name = "rows"
[[items]]
id = "project_name"
label = "项目名称"
kind = "name"
question.hans = "项目名称是什么？"
hints = ["项目名称"]

[[items]]
id = "evaluation_method"
label = "评标方法"
kind = "text"
question.hans = "评标方法是什么？"
hints = ["评标方法", "评标办法"]

[[items]]
id = "bid_bond"
label = "投标保证金"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金", "谈判保证金"]

[[items]]
id = "bid_validity"
label = "投标有效期"
kind = "duration"
question.hans = "投标有效期是多久？"
hints = ["投标有效期"]
"""


def test_rows_with_no_colon_answer_a_figure_but_not_a_name_from_another_column_or_a_company(
    tmp_path: Path, settings: Settings
) -> None:
    # a three-column table flattened (条款号, 评审因素, 评审标准) and a 项目名称 row naming the company: the model
    # is asked for both; the validity's row is read
    sheet = (
        "# 投标人须知前附表\n\n3 项目名称 华润万家有限公司\n16 投标有效期 投标截止时间起 120天\n"
        "1 评标方法 中标候选人排序方法 按得分由高到低顺序推荐中标候选人\n"
    )
    rows = reviewed(tmp_path, settings, sheet, "原文：无\n答案：文档中没有说明", ROWS)
    validity = rows["bid_validity"]
    assert (validity.extra.get("read"), [v.normal for v in validity.values]) == ("labelled field", ["120 days"])
    assert rows["project_name"].trace_id is not None and rows["project_name"].extra.get("read") != "labelled field"
    method = rows["evaluation_method"]
    assert method.trace_id is not None and method.extra.get("read") != "labelled field"


def test_a_row_s_figure_waived_on_the_next_line_is_not_read(tmp_path: Path, settings: Settings) -> None:
    # a military academy's 谈判须知前附表: the form's sum stands, and the next line waives the bond
    waived = "# 前附表\n\n10 谈判保证金\n金额:壹万元整(¥10000.00)\n本项目免缴谈判保证金，供应商应提供承诺函。\n"
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    row = reviewed(tmp_path / "a", settings, waived, "原文：无\n答案：文档中没有说明", ROWS)["bid_bond"]
    assert row.extra.get("read") != "labelled field" and not any(v.normal.startswith("10000") for v in row.values)
    # the same row with no waiver is read
    asked = "# 前附表\n\n20 投标保证金\n金额：人民币20000 元。\n21 踏勘现场 不组织\n"
    row = reviewed(tmp_path / "b", settings, asked, "原文：无\n答案：文档中没有说明", ROWS)["bid_bond"]
    assert (row.extra.get("read"), [v.normal for v in row.values]) == ("labelled field", ["20000 CNY"])


PRICE_AND_TECH = (
    WEIGHTS
    + """
[[items]]
id = "price_weight"
label = "价格分权重 / 價格權重"
kind = "percentage"
question.hans = "价格分的权重是多少？"
hints = ["价格分", "价格权重"]
"""
)


def test_a_weight_labelled_by_what_is_evaluated_is_that_part_s(tmp_path: Path, settings: Settings) -> None:
    # 华润万家's 评标办法前附表: 「技术评标权重：40%」 stands first and is the technical part's, not the price's
    notice = "# 评标办法前附表\n\n评分权重\n技术评标权重：40%\n价格评标权重：60%\n商务评标权重：0%\n"
    rows = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", PRICE_AND_TECH)
    assert [v.normal for v in rows["price_weight"].values] == ["60%"]
    assert [v.normal for v in rows["technical_weight"].values] == ["40%"]


def test_a_label_alone_takes_the_next_line_as_its_value() -> None:
    # 华润万家's 前附表: the form's label ends its line, the value is the next one; a box or another field is none
    text = (
        "35 履约保证金\n是否要求中标人提交履约保证金：\n □不要求\n ☑要求\n履约保证金的金额：\n"
        "中标金额的5%，以万元为单位向上取整\n开标时间：\n投标截止时间：2025年1月15日9时00分\n"
        "采购人：\n（盖单位章）\n"  # a form's place to sign is no value
    )
    assert pairs(text) == [
        ("履约保证金的金额", "中标金额的5%，以万元为单位向上取整"),
        ("投标截止时间", "2025年1月15日9时00分"),
    ]


PERFORMANCE = """name = "performance"

[[items]]
id = "performance_bond"
label = "履约保证金"
kind = "amount"
question.hans = "履约保证金是多少？"
hints = ["履约保证金"]
"""


@pytest.mark.parametrize(
    ("sheet", "normal"),
    [
        ("| 12 | 履约保证金 | 合同金额的 2% |\n", "2%"),  # a sum set as a share of the price
        # a ceiling is the rule's limit, no sum: the model is asked
        ("| 12 | 履约保证金 | 履约保证金的数额不得超过政府采购合同金额的10%。 |\n", None),
    ],
)
def test_a_bond_s_field_may_set_it_as_a_share(
    tmp_path: Path, settings: Settings, sheet: str, normal: str | None
) -> None:
    row = reviewed(tmp_path, settings, "# 前附表\n\n" + sheet, "原文：无\n答案：文档中没有说明", PERFORMANCE)
    bond = row["performance_bond"]
    if normal is None:
        assert bond.extra.get("read") != "labelled field" and bond.trace_id is not None
    else:
        assert (bond.extra.get("read"), [v.normal for v in bond.values]) == ("labelled field", [normal])


def test_a_field_listing_the_parts_answers_each_part_with_its_own(tmp_path: Path, settings: Settings) -> None:
    # 东莞理工学院's 评审因素: one field lists the three parts; the first figure is the business part's, no other's
    notice = "# 评审\n\n| 分值构成 | 商务部分10.0分 技术部分60.0分 报价得分30.0分 | |\n"
    rows = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", PRICE_AND_TECH)
    assert [v.normal for v in rows["price_weight"].values] == ["30 points"]
    assert [v.normal for v in rows["technical_weight"].values] == ["60 points"]


ADVANCE = """name = "advance"

[[items]]
id = "advance_payment"
label = "预付款比例 / 預付款比例"
kind = "percentage"
question.hans = "预付款比例是多少？"
hints = ["预付款"]
"""


def test_a_field_with_two_shares_of_no_score_keeps_its_first(tmp_path: Path, settings: Settings) -> None:
    # 东莞理工学院's contract: the parts' rule is only for a score's weights; the advance is the first share
    notice = "# 付款\n\n1.预付款：合同签定后5个工作日内，甲方支付合同价款的30%工程预付款和单列费的50%。\n"
    row = reviewed(tmp_path, settings, notice, "原文：无\n答案：文档中没有说明", ADVANCE)["advance_payment"]
    assert row.extra.get("read") == "labelled field" and [v.normal for v in row.values][:1] == ["30%"]


def test_a_long_table_cell_gives_its_first_sentence_not_whole() -> None:
    # 东莞's data sheet: the bond's cell opens with its amount, then the accounts and a guarantee's how-to
    rest = (
        " 开户单位：无 开户账号：无 " + "响应保函提交方式：供应商可通过智慧云平台金融服务中心申请办理响应担保函。" * 4
    )
    cell = "采购包1：保证金人民币：0.00元整。" + rest
    (bond,) = [f for f in fields(f"| 9 | 响应保证金 | {cell} |") if f.label == "响应保证金"]
    assert bond.value == "采购包1：保证金人民币：0.00元整。" and not bond.whole
    # a long cell with no sentence end in reach gives no field
    unended = "采购包1：保证金人民币：0.00元整，" + rest.replace("。", "，") * 2
    assert not [f for f in fields(f"| 9 | 响应保证金 | {unended} |") if f.label == "响应保证金"]


def test_a_wide_header_row_above_its_rule_is_no_row_of_fields() -> None:
    # 东莞's item table: the column names are no labels and values (「采购标的」 is not 「数量（单位）」)
    head = "| 品目号 | 品目名称 | 采购标的 | 数量（单位） | 技术规格、参数及要求 | 是否允许进口产品 |"
    row = "| 1-1 | 教育用房施工 | 东莞理工学院松山湖校区智慧教室环境改造工程（二期） | 1(项) | 详见第二章 | 否 |"
    assert "采购标的" not in dict(pairs(f"{head}\n|---|---|---|---|---|---|\n{row}\n"))
    # the same cells with no rule under them are read as before, a label and the cell after it
    assert dict(pairs(f"{head}\n"))["采购标的"] == "数量（单位）"
    # a short row of fields above a rule (a Word table's first row) is still fields
    assert (
        dict(pairs("| 项目名称 | 智慧教室改造 |\n|---|---|\n| 项目编号 | 441901-2023-03715 |\n"))["项目名称"]
        == "智慧教室改造"
    )
