"""The rejection-risk finder on the language of procurement in general: each case a sentence written by hand (in
zh-Hant, zh-Hans or English) with what a reviewer reads in it: a risk and its trigger, or none."""

from __future__ import annotations

import pytest

from pikelocal.domain.documents import PageRecord
from pikelocal.domain.obligations import Clause
from pikelocal.review.clauses import document_clauses
from pikelocal.review.risks import find_risks

DOC = 5


def clauses(*lines: str) -> list[Clause]:
    text = "".join(line + "\n" for line in lines)
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    return document_clauses(DOC, "doc", [PageRecord(DOC, 1, text, tuple(offsets))], [])


RISKS = [
    # barred from the award or the negotiation, however the tender words it
    ("審查不合格者，不得為決標對象。", "bid_disqualified"),
    ("評選結果未達合格分數者不得列為議價對象。", "bid_disqualified"),
    ("得標廠商逾期不辦理簽約時，視為拋棄得標。", "bid_disqualified"),
    ("成交供应商拒绝签订合同的，视为放弃中标。", "bid_disqualified"),
    # a step of the procedure given up, with the party named in between
    ("受評廠商未依通知時間出席者，視同該廠商放棄簡報。", "deemed_waived"),
    ("投标人未按时参加答辩的，视为该投标人放弃答辩。", "deemed_waived"),
    ("廠商未出席者，視同放棄。", "deemed_waived"),  # nothing said: the clause names a bidder
    # the purchaser (or either party) may end the contract, or the ending is a measure listed
    ("得標廠商未於期限內繳妥履約保證金者，將據以解除、終止契約。", "termination"),
    ("廠商違反不得轉包之規定時，機關得解除契約、終止契約或沒收保證金。", "termination"),
    ("機關得以書面通知廠商終止或解除全部或部分契約。", "termination"),
    ("2.終止或解除契約，並得請求損害賠償。", "termination"),
    ("逾期仍不纠正的，发包人有权解除合同。", "termination"),
    ("The Purchaser may terminate the Contract by written notice if the Supplier fails to perform.", "termination"),
]


@pytest.mark.parametrize(("sentence", "trigger"), RISKS)
def test_a_risk_and_its_trigger(sentence: str, trigger: str) -> None:
    [risk] = find_risks(clauses(sentence))
    assert trigger in risk.triggers


NO_RISKS = [
    "廠商若未即時反映者，視同放棄更換、補充或解決之權益。",  # a right given up
    "投标人未提出异议的，视为放弃提出异议的权利。",  # a right given up
    "廠商未能於規定期限內辦妥者，視同放棄說明之機會。",  # a chance given up
    "本契約終止時，自終止之日起，雙方之權利義務即消滅。",  # a termination named, not threatened
    "因不可歸責於廠商之事由，致終止或解除契約者，履約保證金得提前發還。",  # what follows a termination
    "機關不得終止契約。",  # a power denied
    "廠商得通知機關終止或解除部分或全部契約。",  # the contractor's own right
    "逾期仍不纠正的，勘察设计人有权解除合同。",  # the contractor's own right
    "請於本採購案開/決/廢/流標後至指定場所領取投標文件。",  # outcomes named in a list
    "（一）若本案流標者：",  # a bare condition heading a list
    "或本案非廢標時，惟本廠商有不合格之情形者：",  # negated
]


@pytest.mark.parametrize("sentence", NO_RISKS)
def test_no_risk(sentence: str) -> None:
    assert find_risks(clauses(sentence)) == []


def test_consequences_cut_at_semicolons_are_one_risk() -> None:
    found = find_risks(
        clauses(
            "1. 第1項勾「是」或未勾選者，不得參加投標；其投標者，不得作為決標對象；聲明書有誤者，不得作為決標對象。",
            "2. 本聲明書填妥後附於投標文件遞送。",
            "3. 第8項答「是」者，不得參加投標。",
        )
    )
    assert [(r.clause.where.line_start, r.clause.where.line_end) for r in found] == [(1, 1), (3, 3)]
    first = found[0].clause.text
    assert first.startswith("1. 第1項") and first.endswith("聲明書有誤者，不得作為決標對象。")


def test_a_risk_after_a_clause_that_is_none_stays_apart() -> None:
    found = find_risks(clauses("廠商應於開標前繳納押標金；", "未繳納者，其投標無效。"))
    assert [r.clause.text for r in found] == ["未繳納者，其投標無效。"]
