"""Checks on the model's answers: one that only points elsewhere (「详见合同相关条款」), a time counted from the end
of another period (「响应有效期满后28天」), and a yes or no quoted from a sentence that names none of the item's own
concepts (a consortium's rule for subcontracting) are not stated, the draft kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.domain.review import Located, ReviewQuote
from pikelocal.review.runner import _POINTS_ELSEWHERE, _after_an_end
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
