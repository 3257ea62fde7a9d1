"""Clauses saying a bond or an advance is not asked for (text/waivers.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text import concepts
from pikelocal.text.waivers import waiver_clause

BID_BOND = concepts.active().concepts_in("投标保证金 / 押標金")
ADVANCE = concepts.active().concepts_in("预付款比例 / 預付款比例")


@pytest.mark.parametrize(
    ("sentence", "wanted", "clause"),
    [
        ("本项目不收取投标保证金。", BID_BOND, "本项目不收取投标保证金"),
        ("八、 押標金：本採購案未收取押標金。", BID_BOND, "八、 押標金：本採購案未收取押標金"),
        ("1、投标保证金数额：/（本项目不适用于保证金）", BID_BOND, "1、投标保证金数额：/（本项目不适用于保证金）"),
        ("15 磋商保证金 无", BID_BOND, "15 磋商保证金 无"),  # a data sheet's table row
        ("■本项目无需递交投标保证金", BID_BOND, "■本项目无需递交投标保证金"),
        ("3.2.1 预付款：无", ADVANCE, "3.2.1 预付款：无"),
        ("本项目无预付款或定金，按月结算。", ADVANCE, "本项目无预付款或定金"),
    ],
)
def test_a_clause_saying_none_is_asked_for(sentence: str, wanted: frozenset[str], clause: str) -> None:
    assert waiver_clause(sentence, wanted) == clause


@pytest.mark.parametrize(
    ("sentence", "wanted"),
    [
        ("招标人可免收履约保证金或降低缴纳比例。", concepts.active().concepts_in("履约保证金")),  # may waive
        ("投标人未按规定提交投标保证金的，其投标无效。", BID_BOND),  # a condition
        ("投标保证金：人民币贰万元整，不收取现金。", BID_BOND),  # an amount; the cash is what is refused
        ("投标保证金的金额：投标报价的 1.5-2%。", BID_BOND),
        ("本项目不收取投标保证金。", ADVANCE),  # none of another thing
        ("预付款：合同签订后支付30%。", ADVANCE),
        ("招标人不支付投标保证金的利息。", BID_BOND),  # the interest is waived, not the bond
        ("仍無法提出相關證明文件者，不適用押標金減收規定。", BID_BOND),  # the bond's reduction does not apply
        ("投标保证金退还办法不适用。", BID_BOND),  # a rule about the bond, not the bond
    ],
)
def test_no_waiver_where_the_clause_sets_one_or_allows_one(sentence: str, wanted: frozenset[str]) -> None:
    assert waiver_clause(sentence, wanted) is None


def test_a_table_row_s_cells_are_clauses() -> None:
    # 四川星海视听's data sheet: the row number would read as a figure in the clause
    assert waiver_clause("| 8 | 磋商保证金 | 本项目不收取磋商保证金。 |", BID_BOND) == "本项目不收取磋商保证金"
