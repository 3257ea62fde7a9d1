"""Clauses naming where the contract's disputes go (text/dispute_forums.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.dispute_forums import dispute_forum


@pytest.mark.parametrize(
    "sentence",
    [
        "1.合同执行过程中发生的任何争议，如双方不能通过友好协商解决，甲、乙双方一致同意向甲方所在地人民法院提起诉讼。",
        "11、因本次招投标活动产生的一切纠纷（包括合同纠纷），有关各方应友好协商解决，协商不成，则向马鞍山仲裁委员会申请仲裁。",
        "本合同履行中发生的争议，双方应协商解决；协商不成的，任何一方均有权向甲方所在地有管辖权的人民法院提起诉讼。",
        "协商不成的，任何一方均有权向甲方所在地有管辖权的人民法院提起诉讼。",
        "因履約而生爭議，雙方同意以臺灣臺北地方法院為第一審管轄法院。",
        # the talks' failure in other words, the dispute in the clause before the semicolon
        "协商无法解决的，应向甲方所在地人民法院诉讼解决。",
    ],
)
def test_a_forum_for_the_contract_s_disputes(sentence: str) -> None:
    assert dispute_forum(sentence) == " ".join(sentence.split())


@pytest.mark.parametrize(
    "sentence",
    [
        # the procurement law's remedies for a bidder's challenge
        "投诉人对投诉处理决定不服或者财政部门逾期未作处理的，可以依法申请行政复议或者向人民法院提起行政诉讼。",
        "供应商对质疑答复不满意的，可以就争议事项向同级财政部门投诉。",
        # an option not ticked, a blank forum
        "争议解决方式：□提交上海仲裁委员会仲裁。",
        "争议提交＿＿＿＿仲裁委员会仲裁。",
        # the addresses for serving papers in a dispute
        "同时也作为双方争议发生时的各自法律文书送达地址（包括原审、二审、再审、执行阶段），法院直接邮寄送达即视为送达。",
        # litigation named in passing, no forum
        "在诉讼或仲裁期间，除争议部分外，合同其余部分应继续履行。",
        # no forum: talks only
        "发包人和勘察设计人在履行合同中发生争议的，可以友好协商解决。",
    ],
)
def test_no_forum_where_the_clause_names_another_thing(sentence: str) -> None:
    assert dispute_forum(sentence) is None
