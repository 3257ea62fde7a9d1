"""A score's composition read by the system (``review/score_table.py``): the forms tenders print it in (a data sheet's
lines, a Word table, a scoring sheet whose criteria wrap over several lines), the lines that are no criterion (a
scoring rule, the total, a sub-item), runs that do not add up, and review rows answered from it without the model:
the criteria, the price's points and the technical part's, cited at their lines."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.review.score_table import PRICE, TECHNICAL, composition, is_about
from tests.support.review_kb import reviewed

# The national template's data sheet (前附表), as the switchgear tender prints it (p. 33), with the detailed table
# that follows it: the outline is read, not the table.
DATA_SHEET = """条款号 条款内容 编列内容
2.2.1 分值构成 （总分 100 分）
商务部分： 20 分
技术部分： 40 分
投标报价： 40 分
其他评分因素： / 分（如有）
2.2.2 评标基准价计算方法
（1）各有效投标人报价（修正后）的平均值；
条款号 评分因素 评分标准
2.2.4
（1）
商务评分
标准
20 分
对投标人履约能力的评价
（7 分）
（1）注册资本在 5000 万元（含）以上得 1
分；
"""
# A total that is not 100 (the shared tender, p. 48)
ODD_TOTAL = """2.2.1 分值构成 (总分101.25分)
（1）投标报价： 26.25 分；
（2）勘察设计方案： 35 分；
（3）信誉与业绩： 25 分；
（4）项目管理机构： 15 分；
（5）其他评审因素：扣分制，不设上限。
"""
# A Word table with its 配分 column and a 合計 row (a Taiwanese requirements specification)
WORD_TABLE = """16、評選標準

|  | 評選項目 | 評選項目 | 配分 |
|---|---|---|---|
| 1 | 企劃書之可行性及完整性 | - 對本案委辦事項規劃及設計構想。 | 30 |
| 2 | 資訊安全 | - 資安措施的妥適性。 | 10 |
| 3 | 專案管理規劃 | - 專案人力與配置。 | 20 |
| 4 | 廠商經驗與履約能力 | - 承作廠商簡介與規模。 | 10 |
| 5 | 經費合理性 | 工作項目經費概算及用途分配合理性。 | 20 |
| 6 | 簡報與答詢 |  | 10 |
| 合計 |  |  | 100 |
"""
# A 評選委員評分表 printed from a PDF: narrow columns wrap a criterion's name, its points stand alone under its
# description, a scoring rule inside a criterion ends with points too.
SCORING_SHEET = """評選項目 評選項目之內容 配分
一、廠商主要經營
項目及公司資訊
專業員工人力規
模
1.投標廠商之組織規模、經營項目及專業人力。
2.經驗：於截止投標日前 3 年內 1,000 萬以上大型軟體系統建置案實績。
10 分
二、團隊專業能力
及專案管理
1.計畫主持人及工作成員名單。
※有不良或懲處紀錄者，可酌予扣分，至多扣 10 分。
20 分
三、專案需求之建
置執行能力及相
關服務
1.服務建議書之完整性。
40 分
四、資安作為
1.資安管理規劃及執行方式。
10 分
五、簡報及答詢 1.廠商簡報 2.廠商答詢 10 分
六、價格 標價組成內容合理性 10 分
總評分
備註：總評分得分在 90 分以上者：優良；
"""


def test_a_data_sheet_s_outline_is_read_and_not_its_detailed_table() -> None:
    read = composition(DATA_SHEET)
    assert read is not None
    assert [(c.label, c.points) for c in read.criteria] == [
        ("商务部分", Decimal(20)), ("技术部分", Decimal(40)), ("投标报价", Decimal(40))
    ]  # fmt: skip
    assert read.total == 100
    assert (read.first_line, read.last_line) == (2, 4)


def test_the_stated_total_is_the_sum_to_reach_when_it_is_not_100() -> None:
    read = composition(ODD_TOTAL)
    assert read is not None
    assert read.total == Decimal("101.25")
    assert [c.label for c in read.criteria] == ["投标报价", "勘察设计方案", "信誉与业绩", "项目管理机构"]
    assert read.criteria[0].points == Decimal("26.25")


def test_a_word_table_s_points_column() -> None:
    read = composition(WORD_TABLE)
    assert read is not None
    assert [c.label for c in read.criteria] == [
        "企劃書之可行性及完整性", "資訊安全", "專案管理規劃", "廠商經驗與履約能力", "經費合理性", "簡報與答詢"
    ]  # fmt: skip
    assert [int(c.points) for c in read.criteria] == [30, 10, 20, 10, 20, 10]


def test_a_scoring_sheet_s_wrapped_criteria_and_their_points_on_a_later_line() -> None:
    read = composition(SCORING_SHEET)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("廠商主要經營項目及公司資訊專業員工人力規模", 10),
        ("團隊專業能力及專案管理", 20),
        ("專案需求之建置執行能力及相關服務", 40),
        ("資安作為", 10),
        ("簡報及答詢", 10),
        ("價格", 10),
    ]
    assert (read.criteria[0].first_line, read.criteria[0].last_line) == (1, 7)


@pytest.mark.parametrize(
    "text",
    [
        # criteria that do not add up to the total, or to 100 when none is stated
        "商务部分： 20 分\n技术部分： 40 分\n投标报价： 30 分\n",
        "2.2.1 分值构成（总分 100 分）\n商务部分：20分\n技术部分：40分\n",
        # scoring rules and thresholds are no criteria, though they end with points
        "近三年营业额在5000万元以上得 40 分\n3000万元以上得 30 分\n以下得 30 分\n",
        "得分在 90 分以上者：優良\n未達 60 分者：極差\n及格分數為 70 分\n",
        # a staffing table whose last column is no score: bare numbers need 分, brackets or a range at a line's end
        "項目經理 1\n工程師 49\n助理 50\n",
    ],
)
def test_no_composition_where_none_is_printed(text: str) -> None:
    assert composition(text) is None


def test_a_criterion_named_for_its_score_is_read_and_a_scoring_rule_is_not() -> None:
    text = "价格得分：30分\n技术得分：60分\n投标人获得省级荣誉证书的得 5 分\n商务得分：10分\n"
    read = composition(text)
    assert read is not None
    # the rule line between them is no criterion: the three scores add up to 100
    assert [(c.label, int(c.points)) for c in read.criteria] == [("价格得分", 30), ("技术得分", 60), ("商务得分", 10)]


def test_one_criterion_s_maximum_is_no_total() -> None:
    # 满分 is one criterion's maximum: its sub-items (10 + 10) are no composition of the score
    text = "主要服务方案(20分)\n价格评分满分为20分\n服务期及质量保证(10分)\n进度安排及计划(10分)\n"
    assert composition(text) is None


def test_ranges_and_bracketed_points_are_points() -> None:
    read = composition("商务报价分 0~10\n服务方案（60分）\n人员配备 0～30分\n")
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [("商务报价分", 10), ("服务方案", 60), ("人员配备", 30)]


# A scoring table as a PDF's text gives it: a header naming the columns, then rows of a serial number, the name and
# bare points, the description after them or on the lines below; a name wrapped with its points alone below it.
COLUMNS = """4.1.3评委对通过符合性审查的投标文件作进一步的评审。
序号 评分项目 分值 评分内容及标准
1 价格分 40
以通过以上评审标准的投标人的有效最低总投标价为评标基准价，得
满分 40 分，其余投标人的价格分均按照以下方式计算。本项满分 40 分。
2 荣誉、
奖项
5
投标人获得荣誉证书的得 5 分，没有不得分。
3 业绩 10 投标人提供自 2019年 1 月 1 日以来完成类似项目的业绩，每项得 5分，最多得 10分；
4 技术方案 45
方案完整详细，针对性强的得 45 分；
措施全面的 5 分，基本响应要求的得 3 分。
"""


def test_a_pdf_table_s_rows_with_bare_points_under_its_header() -> None:
    read = composition(COLUMNS)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("价格分", 40), ("荣誉、奖项", 5), ("业绩", 10), ("技术方案", 45)
    ]  # fmt: skip
    # the description's 「措施全面的 5 分」 is no row; without the header no line is read as one
    assert composition(COLUMNS.replace("序号 评分项目 分值 评分内容及标准", "")) is None


def test_a_row_numbered_out_of_turn_is_no_row() -> None:
    text = "评分项目 分值\n1 价格分 40\n3 业绩 10\n2 技术方案 50\n4 服务 10\n"
    read = composition(text)
    assert read is None or ("业绩", Decimal(10)) not in [(c.label, c.points) for c in read.criteria]


def test_the_price_and_the_technical_part_by_their_names() -> None:
    for text, price, technical in (
        (DATA_SHEET, "投标报价", "技术部分"),
        (WORD_TABLE, "經費合理性", None),
        (SCORING_SHEET, "價格", None),
    ):
        read = composition(text)
        assert read is not None
        assert [c.label for c in read.criteria if is_about(c, PRICE)] == [price]
        assert [c.label for c in read.criteria if is_about(c, TECHNICAL)] == ([technical] if technical else [])


# Three items like the built-in tender checklist's (their labels and hints name the concepts the reader answers)
CHECKLIST = """name = "mini"
title = "小清单"

[[items]]
id = "criteria"
label = "评分因素 / 評選項目"
section = "评分"
kind = "list"
question.hans = "评分因素有哪些？"
hints = ["评分因素", "评分标准", "評選項目", "配分"]

[[items]]
id = "price_weight"
label = "价格分权重 / 價格權重"
section = "评分"
kind = "percentage"
question.hans = "价格分占总分的比例是多少？"
hints = ["价格分", "投标报价", "價格", "權重"]

[[items]]
id = "technical_weight"
label = "技术分权重 / 技術評分權重"
section = "评分"
kind = "percentage"
question.hans = "技术分占总分的比例是多少？"
hints = ["技术分", "技术部分", "技術", "權重"]
"""


def test_review_rows_read_from_the_composition_without_the_model(tmp_path: Path) -> None:
    # the scripted model would answer every item wrongly: the rows come from the document's lines
    text = "# 评标办法\n\n" + ODD_TOTAL.replace("勘察设计方案", "技术部分")
    rows = reviewed(tmp_path, load_settings(), text, "原文：无\n答案：99%", CHECKLIST)
    assert rows["criteria"].verdict == "found"
    assert rows["criteria"].answer == "投标报价（26.25分）；技术部分（35分）；信誉与业绩（25分）；项目管理机构（15分）"
    assert rows["price_weight"].answer == "26.25分（总分101.25分）"
    assert rows["price_weight"].values[0].normal == "26.25 points"
    assert rows["technical_weight"].answer == "35分（总分101.25分）"
    quote = rows["technical_weight"].quotes[0]
    assert quote.text == "（2）技术部分： 35 分；"
    assert quote.where.line_start == quote.where.line_end  # the one line it stands on
    assert all(r.extra.get("read") == "score composition" for r in rows.values())


PARTS = """评标办法附表 评审因素表

| 序号 | 评审因素 | 评分标准 | 满分值 |
|---|---|---|---|
| 一、价格部分（50分） |  |  |  |
| 1 | 价格 | 报价得分=45-（｜Bn-A｜÷A）×45×Q 。 | 45 |
| 1 | 价格 | 岗位明细报价合理性：对投标人给出的各岗位明细报价的合理性进行评分，最高得5分。 | 5 |
| 二、商务部分（18分） |  |  |  |
| 2 | 业绩经验 | 具有金融机构人员外包服务业绩经验的，每有1家银行得2分，本项最高到6分。 | 6 |
| 3 | 企业实力与荣誉 | 综合进行评分,最高得3分。 | 3 |
| 4 | 企业认证情况 | 每提供一项得1分，满分3分 | 3 |
| 5 | 企业人力规模 | 此外每增加50人加1分，最高得5分。 | 6 |
| 三、技术部分（32分） |  |  |  |
| 6 | 服务方案 | 优23-28分，良17-23分。 | 28 |
| 6 | 服务方案 | 优4分，良3分。 | 4 |
| 合计 |  | 综合得分 | 100 |
"""


def test_a_part_scored_in_rows_standing_together_weighs_their_sum(tmp_path: Path) -> None:
    # 厦门国际银行: the price part is two rows, 45 and 5 points, under 「一、价格部分（50分）」
    rows = reviewed(tmp_path, load_settings(), "# 评标办法\n\n" + PARTS, "原文：无\n答案：文档中没有说明", CHECKLIST)
    price = rows["price_weight"]
    assert (price.answer, price.extra.get("read")) == ("50分", "score composition")
    assert price.quotes[0].where.line_end - price.quotes[0].where.line_start == 1  # both rows cited


def test_a_document_without_a_composition_leaves_the_items_to_the_model(tmp_path: Path) -> None:
    text = "# 评标办法\n\n本项目采用综合评分法，价格分占总分的30%。\n"
    reply = "原文：本项目采用综合评分法，价格分占总分的30%。\n答案：30%"
    rows = reviewed(tmp_path, load_settings(), text, reply, CHECKLIST)
    assert rows["price_weight"].extra.get("read") != "score composition"  # its one statement may answer it
    assert rows["criteria"].extra.get("read") is None


DATA = Path(__file__).parent.parent / "data" / "review"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "criteria"),
    [
        # the switchgear tender's data sheet, p. 33 (its gold sheet: business 20, technical 40, price 40)
        ("cn-tender-huayang-switchgear.pdf", [("商务部分", 20), ("技术部分", 40), ("投标报价", 40)]),
        # the NTPC tender's scoring sheet, p. 65-66 (its gold sheet's note on evaluation_criteria)
        (
            "tw-tender-ntpc-dispatch.pdf",
            [
                ("廠商主要經營項目及公司資訊專業員工人力規模", 10),
                ("團隊專業能力及專案管理", 20),
                ("專案需求之建置執行能力及相關服務", 40),
                ("資安作為", 10),
                ("簡報及答詢", 10),
                ("價格", 10),
            ],
        ),  # fmt: skip
        # an RFP whose scoring items are in another document (its gold sheet: no scoring table here)
        ("tw-rfp-moea-warehouse.pdf", []),
        # a PDF table's rows with bare points under 「序号 评分项目 分值 评分内容及标准」, p. 61-63 (its gold note)
        (
            "cn-tender-hanshan-pumps.pdf",
            [
                ("价格分", 40),
                ("荣誉、奖项", 5),
                ("业绩", 10),
                ("技术指标 响应情况", 30),
                ("实施方案", 5),
                ("售后服务", 5),
                ("培训方案", 5),
            ],
        ),  # fmt: skip
        # ranges under 「评分项目 分值区间 评分办法」, p. 16-18 (its gold note: 11 factors, 100 points)
        (
            "cn-tender-luodian-canteen.pdf",
            [
                ("商务报价分", 10),
                ("服务方案", 15),
                ("需求分析", 8),
                ("服务质量保证", 10),
                ("人员配备", 12),
                ("企业业绩", 10),
                ("管理制度", 10),
                ("卫生安全保障措施", 10),
                ("安全措施", 5),
                ("应急措施", 5),
                ("服务建议", 5),
            ],
        ),  # fmt: skip
    ],
)
def test_real_tenders_compositions_as_their_pdfs_print_them(name: str, criteria: list[tuple[str, int]]) -> None:
    from pikelocal.ingest.read.parse import parse_document

    parsed = parse_document(DATA / name)
    read = composition("\n".join(p.text for p in parsed.pages))
    found = [(c.label, int(c.points)) for c in read.criteria] if read is not None else []
    assert found == criteria


def test_a_weight_read_from_the_composition_is_still_set_against_the_documents_other_statements(
    tmp_path: Path,
) -> None:
    # the shared tender's two statements of the price's points: 26.25 in the outline, 25 in the detailed table
    text = "# 评标办法\n\n" + ODD_TOTAL + "\n## 评分标准\n\n投标报价：25分，以评标基准价为满分。\n"
    row = reviewed(tmp_path, load_settings(), text, "原文：无\n答案：无", CHECKLIST)["price_weight"]
    assert row.verdict == "conflicting"
    assert [v.normal for v in row.values] == ["26.25 points", "25 points"]


# 成都's scoring table: the points in the column its header names, the scoring rule after them
POINTS_COLUMN = """| 序号 | 评分因素 | 分值 | 评分标准 |
|---|---|---|---|
| 1 | 服务方案 | 32分 | 1.根据供应商针对本项目提供的项目总体服务方案进行评审，该方案内容齐全且无缺陷得16分。 |
| 2 | 服务团队 | 30分 | 供应商针对本项目拟派的服务团队成员：每有1名成员具有本科及以上学历的得2分。 |
| 3 | 应急处置预案 | 18分 | 根据供应商针对本项目提供的应急处置预案进行评审，每有一项内容缺失的扣3分。 |
| 4 | 业绩 | 20分 | 每提供一个类似项目业绩得2分，最多得20分。 |
"""
# 东莞's platform table: each criterion's name with its points in brackets, under the part it belongs to
BRACKETED = """| 评审因素 | 评审标准 | 评审标准 |
|---|---|---|
| 分值构成 | 商务部分10.0分 技术部分60.0分 报价得分30.0分 |  |
| 技术部分 | 技术响应情况 (36.0分)，（等次分值选择：0.0;3.0;6.0;） | 根据供应商对采购需求的响应情况评审 |
| 技术部分 | 项目实施方案 (7.0分)，（等次分值选择：0.0;1.0;3.0;5.0;7.0;） | 根据供应商的项目实施方案评审 |
| 技术部分 | 安全、文明施工，环保措施 (7.0分)，（等次分值选择：0.0;1.0;4.0;7.0;） | 根据所提供的措施评审 |
| 商务部分 | 业绩情况 (20.0分)，（等次分值选择：0.0;2.0;） | 每提供一个得1分 |
| 投标报价 | 投标报价得分 (30.0分) | 投标报价得分＝（评标基准价/投标报价）×价格分值 |
"""


def test_a_table_s_points_in_the_column_its_header_names() -> None:
    # the criteria's column may name their weight too (四川's 「评审因素及权重」): the points' column is after it
    weighted = (
        "| 序号 | 评审因素及权重 | 分值 | 评分标准 |\n|---|---|---|---|\n"
        "| 1 | 报价 （30%） | 30分 | 报价最低的为基准价 |\n| 2 | 服务方案（50%） | 50分 | 根据服务方案综合评分 |\n"
        "| 3 | 履约经验（20%） | 20分 | 每提供一个有效案例得2分 |\n"
    )
    read = composition(weighted)
    assert read is not None and [int(c.points) for c in read.criteria] == [30, 50, 20]
    read = composition(POINTS_COLUMN)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("服务方案", 32), ("服务团队", 30), ("应急处置预案", 18), ("业绩", 20)
    ]  # fmt: skip
    # without its header, the third cell is no known points column: the rows are no composition
    assert composition(POINTS_COLUMN.split("\n", 2)[2]) is None


def test_a_criterion_s_name_with_its_points_in_brackets_in_a_cell() -> None:
    read = composition(BRACKETED)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("技术响应情况", 36), ("项目实施方案", 7), ("安全、文明施工，环保措施", 7), ("业绩情况", 20),
        ("投标报价得分", 30),
    ]  # fmt: skip
    # a part's cell merged over its rows, then the criterion's (北京银行)
    parts_first = (
        "| 评分类别 | 评分内容 | 评分细则 |\n|---|---|---|\n"
        "| 价格部分 （30分） | 项目报价 （30分） | 综合评分法中的价格分统一采用低价优先法计算 |\n"
        "| 商务部分 （25分） | 综合实力 （12分） | 根据投标人的财务经营状况综合评分 |\n"
        "| 商务部分 （25分） | 业绩 （13分） | 同类业绩每个得1分 |\n"
        "| 技术部分 （45分） | 项目服务方案（45分） | 投标人提供项目服务方案 |\n"
    )
    read = composition(parts_first)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("项目报价", 30), ("综合实力", 12), ("业绩", 13), ("项目服务方案", 45)
    ]  # fmt: skip
    # parts' heading rows (厦门银行) and a group's cell merged over rows with points of their own (黄埔海关's
    # assessment sheet) are no criteria, though their points add up to 100
    parts = "| 一、价格部分（40分） |  |  |\n| 二、商务部分（30分） |  |  |\n| 三、技术部分（30分） |  |  |\n"
    assert composition(parts) is None
    groups = (
        "| 企业管理 （30分） | 管理制度 | 15 | 根据制度落实情况。 |\n"
        "| 企业管理 （30分） | 培训教育 | 15 | 根据培训情况。 |\n"
        "| 驾驶服务 （40分） | 交通安全 | 40 | 发生事故的，扣10分。 |\n"
    )
    assert composition(groups) is None


def test_a_text_table_s_rows_with_points_in_brackets_and_long_descriptions() -> None:
    # 北京大学's PDF: each numbered row's name and bracketed points on one line, its rules on many lines below
    rule = "投标人提供的方案内容全面、计划合理可行，针对性强得 12 分；\n" * 22
    text = (
        "序号 评分因素 评分说明 分值\n1 价格 （30分）\n" + rule + "0-30\n2 技术部分 （55分）\n" + rule
        + "0-55\n3 相关业绩 （10 分）\n每提供一个得2分。\n4 综合商务 （5 分）\n根据投标人综合情况评分。\n"
    )  # fmt: skip
    read = composition(text)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("价格", 30), ("技术部分", 55), ("相关业绩", 10), ("综合商务", 5)
    ]  # fmt: skip


def test_a_sentence_stating_the_total_then_each_part_s_points() -> None:
    # 中邮人寿's 磋商 rules (23.2): the composition in one sentence, each part's detail on later lines
    text = (
        "23.2本项目将采用综合评分法，按商务、技术（服务）、价格三部分评分，总分设置100分，其中商务部分30分、"
        "技术（服务）部分30分、价格部分40分。\n"
        "技术（服务）部分（满分30分）：主要从技术方案、实施方案等方面进行评审。\n"
    )
    read = composition(text)
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [
        ("商务部分", 30),
        ("技术（服务）部分", 30),
        ("价格部分", 40),
    ]
    assert {c.first_line for c in read.criteria} == {0}
    # a part's aside in brackets does not hide what it is
    assert [c.label for c in read.criteria if is_about(c, TECHNICAL)] == ["技术（服务）部分"]
    assert [c.label for c in read.criteria if is_about(c, PRICE)] == ["价格部分"]
    # the parts weigh, but name no criteria: asked for the criteria, the reader leaves the sentence out
    assert composition(text, sentences=False) is None


def test_a_sentence_s_parts_named_alone_or_wrapped_onto_the_next_line() -> None:
    # 中国电信江苏's data sheet: the parts named alone, an ASCII comma before the last
    read = composition("本项目采用综合评估法，总分共100分，其中商务12分，技术28分,价格60分。\n")
    assert read is not None
    assert [(c.label, int(c.points)) for c in read.criteria] == [("商务", 12), ("技术", 28), ("价格", 60)]
    assert [c.label for c in read.criteria if is_about(c, TECHNICAL)] == ["技术"]
    assert [c.label for c in read.criteria if is_about(c, PRICE)] == ["价格"]
    # 清华's PDF wraps the sentence after 「占」: read on both lines, the next line not read again
    text = (
        "按服务、商务和价格三部分分别打分的方式进行评分。本项目三项总分为 100分，其中技术得分占\n"
        "60 分，商务得分占 30 分，价格得分占 10 分。以综合总得分最高的投标人作为中标候选人。\n"
    )
    read = composition(text)
    assert read is not None
    assert [(c.label, int(c.points), c.first_line, c.last_line) for c in read.criteria] == [
        ("技术得分", 60, 0, 1),
        ("商务得分", 30, 0, 1),
        ("价格得分", 10, 0, 1),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "总分100分，其中商务部分30分、技术部分30分。",  # the parts do not add up to the total
        "总分10分，其中每项得2分、最多得10分。",  # scoring rules, not parts
        "商务部分30分、技术部分30分、价格部分30分。",  # no total stated in the sentence, and not 100
    ],
)
def test_no_sentence_composition_where_the_parts_do_not_make_the_total(text: str) -> None:
    assert composition(text) is None
