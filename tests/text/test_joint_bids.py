"""Sentences refusing joint bids (text/joint_bids.py), as tenders print them: the gold sheets' quotes, and what is
no refusal."""

from __future__ import annotations

import pytest

from pikelocal.text.joint_bids import refuses_joint_bids


@pytest.mark.parametrize(
    "sentence",
    [
        "4、本项目不接受联合体投标。",
        "2）本项目不接受联合体；",
        "3.2 本次招标（不接受）联合体投标。",
        "9、本项目是否接受联合体投标：不允许联合体。",
        "3.5是否接受联合体投标：不接受联合体类报价",
        "| 联合体投标 | 不接受 |",
        "7、是否接受联合体：否",
        "5. 本项目不接受联合体投标，不允许分包、转包。",
        "（四） 本機關「不允許」投標廠商以「共同投標」方式參與本案之投標。",
        "Joint ventures will not be accepted.",
    ],
)
def test_joint_bids_refused(sentence: str) -> None:
    assert refuses_joint_bids(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "本项目接受联合体投标。",
        "联合体各方不得再以自己名义单独投标。",  # a rule for the members of an allowed consortium
        "允许联合体投标的，联合体各方应签订联合体协议。",
        "1.4.2 是否接受 联合体投标 ☑不接受 □接受",  # a form's boxes: the ticked-box reader's
        "本项目不接受分包。",  # a subcontract, not a joint bid
        "联合体投标的，应提交联合体协议书。",
    ],
)
def test_no_refusal_where_the_sentence_says_another_thing(sentence: str) -> None:
    assert not refuses_joint_bids(sentence)
