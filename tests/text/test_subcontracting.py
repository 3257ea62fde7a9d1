"""Sentences forbidding the work to be subcontracted (text/subcontracting.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.subcontracting import forbids_subcontracting


@pytest.mark.parametrize(
    "sentence",
    [
        "本项目不允许分包转包。",
        "5. 本项目不接受联合体投标，不允许分包、转包。",
        "在中标后非经采购单位同意，不得转包、分包服务内容和职责义务。",
        "17.★中标人不得将本合同项下服务进行转包、分包，否则采购人有权单方解除本合同。",
        "| 30 | 5 | 是否允许转包 与分包 | 转包：否 分包：否 |",
        "2.应独立完成合同约定服务，未经甲方书面同意，不得转委托。",
    ],
)
def test_subcontracting_forbidden(sentence: str) -> None:
    assert forbids_subcontracting(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "1、 本案不得轉包，但得分包，得標廠商所提出之分包計畫須列入建議書內始得為之。",  # a subcontract allowed
        "参加同一包件或者未划分包件的同一项目投标的，相关投标均无效。",  # 包件: lots
        "前附表 30 本项目是否分包别：□是；√否",  # 包别: lots
        "中标人可以将非主体、非关键性工作分包给具有相应资质的单位。",  # allowed
        "本项目不接受联合体投标。",  # a joint bid, not a subcontract
        "得標廠商不得將契約之全部或其主要部分分包。",  # the other parts may be subcontracted
        "本機關「不允許」投標廠商「以分包廠商取代部分投標廠商資格」參與本案之投標。",  # a rule for subcontractors
        # who may not be a subcontractor (a debarred firm), not whether the work may be subcontracted
        "或於投標後至決標前方屬採購法第103條第1項規定期間內不得參加投標或作為決標對象或分包之廠商。",
    ],
)
def test_no_forbidding_where_the_sentence_says_another_thing(sentence: str) -> None:
    assert not forbids_subcontracting(sentence)
