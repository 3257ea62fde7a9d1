"""An item that asks for a ceiling (``bound = "max"``: the cap on damages) keeps a drafted figure only where its
quote prints it as one: a daily rate or a penalty offered as the cap is not stated, 「累计不超过合同总价的10%」 is
found. Read from the checklist file; the tender checklists mark their caps so."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.domain.review import ChecklistItem, Located, ReviewQuote
from pikelocal.review.checklist import load_checklist
from pikelocal.review.runner import _unbound
from pikelocal.text.values import normalise
from tests.support.review_kb import reviewed

CAP = """name = "cap"

[[items]]
id = "damages_cap"
label = "违约金上限"
kind = "percentage"
question.hans = "违约金的上限是合同金额的百分之几？"
hints = ["违约金上限", "累计", "上限"]
bound = "max"
"""


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("# 违约责任\n\n逾期违约金的上限为合同金额的10%。\n", "原文：逾期违约金的上限为合同金额的10%\n答案：10%"),
        (
            "# 逾期違約金\n\n逾期違約金，以契約價金總額之20%為上限。\n",
            "原文：逾期違約金，以契約價金總額之20%為上限\n答案：20%",
        ),
    ],
)
def test_a_cap_printed_as_one_is_found(tmp_path: Path, settings: Settings, text: str, reply: str) -> None:
    assert reviewed(tmp_path, settings, text, reply, CAP)["damages_cap"].verdict == "found"


CAP_ITEM = ChecklistItem("damages_cap", "违约金上限", "percentage", {"hans": "违约金的上限是百分之几？"}, bound="max")
HERE = Located(1, "doc", 1, 1, 1)


@pytest.mark.parametrize(
    ("quote", "answer", "unbound"),
    [
        # 温岭: a termination penalty, no cap (the model drafted 5 %)
        ("乙方因逾期交货导致甲方解除合同的，乙方应向甲方支付合同总值 5%的违约金", "5%", True),
        # 阳西: 「每延误一天…万分之三（0.03%）」 is a rate per day
        ("每延误一天，误期违约金按合同总金额的万分之三（0.03%）计收", "0.03%", True),
        # 温岭: 「每日千分之六」, the rate
        ("乙方应按逾期交货总额每日千分之六向甲方支付违约金", "0.6%", True),
        # the caps of the gold sheets (太平, 华阳, 罗泾 as printed) and a Taiwanese contract's
        ("累计违约金不超过合同总金额的10%。", "10%", False),
        ("迟延交付违约金的总额不得超过合同价格的 10%。", "10%", False),
        ("但误期赔偿费的最高限额不超过合同价的百分之五（5%）。", "5%", False),
        ("逾期違約金，以契約價金總額之20%為上限。", "20%", False),
        ("The total liquidated damages shall not exceed 10% of the Contract Price.", "10%", False),
    ],
)
def test_a_figure_not_printed_as_a_ceiling_is_no_cap(quote: str, answer: str, unbound: bool) -> None:
    value = normalise(answer, "percentage")
    assert _unbound(CAP_ITEM, value, [ReviewQuote(quote, HERE, value)]) is unbound
    assert _unbound(replace(CAP_ITEM, bound=""), value, [ReviewQuote(quote, HERE, value)]) is False


def test_the_tender_checklists_mark_their_caps() -> None:
    for name in ("tender-zh", "tender-en"):
        items = {i.id: i for i in load_checklist(name).items}
        assert items["damages_cap"].bound == "max"
        assert {i.id for i in items.values() if i.bound} == {"damages_cap"}


BOND = """name = "bond"

[[items]]
id = "performance_bond"
label = "履约保证金 / 履約保證金"
kind = "percentage"
question.hant = "履約保證金為契約金額的百分之幾？"
hints = ["履约保证金", "履約保證金"]
"""


def test_a_figure_a_case_reaches_is_not_the_item_s(tmp_path: Path, settings: Settings) -> None:
    # 台灣自來水's RFP: the 20 % is when the bond is forfeited, not the bond; the model drafted it
    text = (
        "# 罰則\n\n十二、契約執行期間得標廠商受罰累計達契約含稅總價 20%者，本公司得沒入履約保證金並終止或解除契約。\n"
    )
    reply = "原文：契約執行期間得標廠商受罰累計達契約含稅總價 20%者，本公司得沒入履約保證金\n答案：20%"
    assert reviewed(tmp_path, settings, text, reply, BOND)["performance_bond"].verdict == "not_stated"
    # the bond's own share, in a sentence of the same shape, is kept (found, or to check where the test's encoder
    # cannot tell the sentence is about the item)
    (tmp_path / "own").mkdir()
    text = "# 履約保證金\n\n得標廠商應於決標後繳納契約含稅總價 5%之履約保證金。\n"
    reply = "原文：得標廠商應於決標後繳納契約含稅總價 5%之履約保證金\n答案：5%"
    row = reviewed(tmp_path / "own", settings, text, reply, BOND)["performance_bond"]
    assert row.verdict in ("found", "to_check") and [v.normal for v in row.values] == ["5%"]
