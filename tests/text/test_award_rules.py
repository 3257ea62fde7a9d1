"""Sentences stating how the winner is picked (text/award_rules.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.award_rules import states_award_rule


@pytest.mark.parametrize(
    "sentence",
    [
        "评标委员会对满足招标文件实质性要求的投标文件进行打分，并按得分由高到低顺序推荐中标候选人。",
        "采购人将根据评标委员会推荐的排名第一的中标候选单位为中标单位。",
        "2.评标委员会按总分从高到低排序，推荐第一名为中标候选人。",
        "29.1 合同将授予其投标符合招标文件要求，并能圆满地履行合同的、对买方最为有利的综合评估最佳的投标方。",
        "投标文件满足招标文件全部实质性要求，且按照评审因素的量化指标评审得分最高的投标人为排名第一的中标候选人。",
        "从评审报告提出的成交候选供应商中，按照排序由高到低的原则确定成交供应商。",
        "十四、 本採購案決標原則：最有利標－依政府採購法第 22 條第 1 項第 9 款準用最有利標。",
        "本案採最低標決標。",
    ],
)
def test_a_sentence_naming_the_winner_and_an_order_of_ranking(sentence: str) -> None:
    assert states_award_rule(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "得分相同的，按投标报价由低到高顺序排列；得分且投标报价相同的，并列排名第一。",  # a tie's rule
        "如果同一投标人在多个标段中均排序第一，推荐中标候选人顺序为：",  # a condition
        "综合评分法，是指投标文件满足招标文件全部实质性要求，且按照评审因素的量化指标评审得分最高的投标人为中标候选人的评标方法。",  # noqa: E501  a definition
        "本项目采用综合评分法。",  # the evaluation method, no winner and no ranking
        "价格分采用低价优先法计算，即满足招标文件要求且投标价格最低的投标报价为评标基准价。",  # no winner
        "中标人应在收到中标通知书后30日内签订合同。",  # the winner, no ranking
        "得分相同的，按技术得分由高到低顺序推荐中标候选人。",  # a tie's rule, though it ranks
        # 肥西: what happens when the first candidate drops out
        "排名第一的中标候选人放弃中标、因不可抗力不能履行合同等情形，不符合中标条件的，招标人可以按照评标委员会"
        "提出的中标候选人名单排序依次确定其他中标候选人为中标人，也可以重新招标。",
        # bids of one brand count as one bidder
        "不同投标人参加同一合同项下投标的，按一家投标人计算，评审后得分最高的同品牌投标人获得中标人推荐资格。",
    ],
)
def test_no_award_rule_where_the_sentence_states_another_thing(sentence: str) -> None:
    assert not states_award_rule(sentence)
