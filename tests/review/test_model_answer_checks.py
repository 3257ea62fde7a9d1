"""Checks on the model's answers: one that only points elsewhere (「详见合同相关条款」), a time counted from the end
of another period (「响应有效期满后28天」), and a yes or no quoted from a sentence that names none of the item's own
concepts (a consortium's rule for subcontracting), a share or sum printed only as a list's number and a page's
footer are not stated, the draft kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.domain.review import ChecklistItem, Located, ReviewQuote
from pikelocal.review.runner import (
    _PAGE_FOOTER,
    _POINTS_ELSEWHERE,
    _after_an_end,
    _another_part_s,
    _names_no_language,
    _not_printed,
)
from pikelocal.text.values import normalise
from tests.support.review_kb import reviewed


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


HERE = Located(1, "响应函", 5, 5, 5)


@pytest.mark.parametrize(
    ("quote", "answer", "after_an_end"),
    [
        ("投标保证金的有效期应为在响应有效期满后28天内继续有效。", "28天", True),
        ("合同到期后30日内办理结算。", "30日", True),
        ("投标有效期为投标截止之日起90天。", "90天", False),  # counted from the deadline: the validity itself
        ("有效期满后28天内继续有效；投标有效期28天。", "28天", False),  # printed once as the period itself
        ("服务期：自合同签订之日起一年。", "1年", False),
    ],
)
def test_a_time_counted_from_another_period_s_end_is_not_that_period(
    quote: str, answer: str, after_an_end: bool
) -> None:
    value = normalise(answer, "duration")
    assert value is not None
    assert _after_an_end(value, [ReviewQuote(quote, HERE, value)]) is after_an_end


@pytest.mark.parametrize(
    ("answer", "points"),
    [
        ("详见合同相关条款", True),
        ("见投标人须知前附表。", True),
        ("参见招标文件第二章", True),
        ("见证人须到场", False),
        ("签订合同生效后支付合同总金额的30%", False),
    ],
)
def test_an_answer_that_only_points_elsewhere_states_nothing(answer: str, points: bool) -> None:
    assert (_POINTS_ELSEWHERE.match(answer) is not None) is points


def test_a_pointer_drafted_by_the_model_is_not_stated(tmp_path: Path, settings: Settings) -> None:
    checklist = """name = "pay"
[[items]]
id = "payment"
label = "付款方式 / 付款辦法"
kind = "text"
question.hans = "付款方式是什么？"
hints = ["付款方式", "支付方式"]
"""
    notice = "# 采购说明\n\n5.合同款的支付方式、时间和条件详见合同相关条款。\n"
    reply = "原文：5.合同款的支付方式、时间和条件详见合同相关条款。\n答案：详见合同相关条款"
    rows = reviewed(tmp_path, settings, notice, reply, checklist)
    assert rows["payment"].verdict == "not_stated" and rows["payment"].values == ()


YES_NO = """name = "yesno"
[[items]]
id = "joint_bid"
label = "联合体投标 / 共同投標"
kind = "yesno"
question.hans = "是否接受联合体投标？"
hints = ["联合体", "联合体投标"]

[[items]]
id = "subcontracting"
label = "分包 / 分包及轉包"
kind = "yesno"
question.hans = "是否允许分包？"
hints = ["分包", "转包", "分包廠商"]
"""


def test_a_yes_or_no_from_a_sentence_about_another_thing_is_not_stated(tmp_path: Path, settings: Settings) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    notice = (
        "# 磋商公告\n\n（七）本项目不允许投标人组成联合体参选。\n\n（八）经采购人同意，中标人可将非主体部分分包。\n"
    )
    consortium = "原文：（七）本项目不允许投标人组成联合体参选。\n答案：否"
    rows = reviewed(tmp_path / "a", settings, notice, consortium, YES_NO)
    # the model quotes the consortium's sentence for subcontracting: it names the bidder (a hint's concept), not
    # subcontracting, the item's own
    subcontracting = rows["subcontracting"]
    assert subcontracting.extra.get("read") is None and subcontracting.extra.get("draft") == "否"
    assert subcontracting.verdict == "not_stated" and subcontracting.values == ()
    own = "原文：（八）经采购人同意，中标人可将非主体部分分包。\n答案：是"
    rows = reviewed(tmp_path / "b", settings, notice, own, YES_NO)
    assert rows["subcontracting"].verdict == "found" and [v.normal for v in rows["subcontracting"].values] == ["yes"]


NAMED = """name = "named"
[[items]]
id = "warranty_bond"
label = "质量保证金 / 保固保證金"
kind = "amount"
named = true
question.hans = "质量保证金是多少？"
hints = ["质量保证金", "质保金"]

[[items]]
id = "performance_bond"
label = "履约保证金 / 履約保證金"
kind = "amount"
question.hans = "履约保证金是多少？"
hints = ["履约保证金"]
"""


def test_an_item_stated_only_by_name_is_not_asked_where_nothing_names_it(tmp_path: Path, settings: Settings) -> None:
    from pikelocal.review.checklist import load_checklist

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    notice = "# 招标公告\n\n四、合同价款的5%在验收后支付。\n"
    invented = "原文：四、合同价款的5%在验收后支付。\n答案：5%"
    rows = reviewed(tmp_path / "a", settings, notice, invented, NAMED)
    bond = rows["warranty_bond"]
    # no sentence names a warranty bond (质量保证金, 质保金, 保固保證金 …): not stated, and no draft, as no one asked
    assert (bond.verdict, bond.extra.get("read"), bond.extra.get("draft")) == ("not_stated", "not named", None)
    # the same document asks the model for an item not so marked
    assert rows["performance_bond"].extra.get("read") is None and "draft" in rows["performance_bond"].extra
    # where a sentence names it, in Taiwan's words too, the model is asked
    named = "# 投標須知\n\n四、得標廠商應繳納保固保證金新臺幣5萬元。\n"
    said = "原文：四、得標廠商應繳納保固保證金新臺幣5萬元。\n答案：新臺幣5萬元"
    rows = reviewed(tmp_path / "b", settings, named, said, NAMED)
    assert rows["warranty_bond"].extra.get("read") != "not named" and rows["warranty_bond"].verdict == "found"
    items = {i.id: i.named for i in load_checklist(tmp_path / "b" / "mini.toml").items}
    assert items == {"warranty_bond": True, "performance_bond": False}


ADVANCE = ChecklistItem("advance_payment", "预付款比例 / 預付款比例", "percentage", {"hant": "預付款比例為多少？"})
WEIGHT = ChecklistItem("price_weight", "价格分权重 / 價格權重", "percentage", {"hans": "价格分的权重是多少？"})


@pytest.mark.parametrize(
    ("item", "quote", "answer", "unprinted"),
    [
        # 台灣自來水: 「(1)」 is a list's number, no 1 %
        (ADVANCE, "(1) 實支實付項目經費共計27 個月，於各階段付款金額詳陸、驗收、保", "1%", True),
        (ADVANCE, "契約簽訂後支付契約總價百分之三十之預付款。", "30%", False),  # printed in words: a share
        (ADVANCE, "合同签订后支付合同价款的 40%作为预付款。", "40%", False),
        (ADVANCE, "预付款为合同价款的 1.5-2%。", "1.5%", False),  # a range's first figure
        (ADVANCE, "（1）预付款为合同价款的 1%。", "1%", False),  # printed as the share too
        # a weight printed as points (「50分」 of 100) answered as a share is the weight
        (WEIGHT, "价格分 50分", "50%", False),
    ],
)
def test_a_share_printed_only_as_a_list_s_number_stands_on_nothing(
    item: ChecklistItem, quote: str, answer: str, unprinted: bool
) -> None:
    value = normalise(answer, "percentage")
    assert value is not None
    assert _not_printed(item, value, [ReviewQuote(quote, HERE, None)]) is unprinted


@pytest.mark.parametrize(
    ("line", "footer"),
    [("第 48 頁，共 51 頁", True), ("第 24 页 共 78 页", True), ("服務建議書頁數不得超過 51 頁", False)],
)
def test_a_page_s_footer_is_no_answer(line: str, footer: bool) -> None:
    assert (_PAGE_FOOTER.match(line) is not None) is footer


TECHNICAL = ChecklistItem(
    "technical_weight", "技术分权重 / 技術評分權重", "percentage", {"hans": "技术分的权重是多少？"}
)
PARTS = "本项目三项总分为 100分，其中技术得分占 60 分，商务得分占 30 分，价格得分占 10 分。"


@pytest.mark.parametrize(
    ("item", "answer", "another"),
    [
        (WEIGHT, "30", True),  # 清华深圳: the business part's 30 offered as the price's weight
        (WEIGHT, "10", False),
        (TECHNICAL, "60", False),
        (TECHNICAL, "10", True),
        (ADVANCE, "30", False),  # no part's weight: not judged
    ],
)
def test_a_weight_beside_another_part_s_name_is_that_part_s(item: ChecklistItem, answer: str, another: bool) -> None:
    value = normalise(answer, "percentage")
    assert value is not None
    assert _another_part_s(item, value, [ReviewQuote(PARTS, HERE, None)]) is another


LANGUAGE = ChecklistItem(
    id="language", label="文字语言 / 使用文字", kind="text", questions={"hans": "投标文件应使用什么语言？"},
    hints=("语言", "文字"),
)  # fmt: skip


@pytest.mark.parametrize(
    ("answer", "names_none"),
    [
        ("打印或用不褪色墨水笔书写", True),  # 前滩's draft: how the bid is written, not its language
        ("A4纸", True),
        ("中文", False),
        ("简体中文", False),
        ("正體中文", False),
        ("中英文对照", False),
        ("English", False),
    ],
)
def test_a_language_answer_naming_no_language_states_none(answer: str, names_none: bool) -> None:
    assert _names_no_language(LANGUAGE, answer) is names_none
