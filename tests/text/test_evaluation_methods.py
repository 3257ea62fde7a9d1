"""Sentences naming the evaluation method (text/evaluation_methods.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.evaluation_methods import evaluation_method


@pytest.mark.parametrize(
    ("sentence", "method"),
    [
        ("本项目采用“综合评分法 ”评标。", "综合评分法"),
        ("本项目拟采用综合评分法，价格分值10分，其他评审因素分值90分，具体评分标准如下：", "综合评分法"),
        ("29 评标方法：综合评分法，详见“第七章评标办法”", "综合评分法"),
        ("本次评标采用综合评估法。", "综合评估法"),
        ("6.2.5.2评分细则（综合评分法）", "综合评分法"),
        ("第四章 评标办法（综合评估法，总分100分）", "综合评估法"),
        ("本招标项目评标办法采用合理价格法（动态合理价格法 I）。", "合理价格法"),  # 肥西 (安徽's works template)
        ("並準用最有利標，辦理公開評選。", "最有利標"),
        ("四、 優勝廠商評定方式：序位法", "序位法"),
        ("■1.最低標", "最低標"),  # a form's ticked option
        ("☑ (1) 综合评分法", "综合评分法"),
    ],
)
def test_the_method_bids_are_evaluated_by(sentence: str, method: str) -> None:
    assert evaluation_method(sentence) == method


@pytest.mark.parametrize(
    "sentence",
    [
        "采用综合评分法的，评审标准中的分值设置应当与评审因素的量化指标相对应。",  # a rule of law
        "综合评分法，是指投标文件满足招标文件全部实质性要求，且按照评审因素的量化指标评审得分最高的投标人为中标候选人的评标方法。",
        "《政府采购货物和服务招标投标管理办法》规定的最低评标价法",  # a law's name
        "评标委员会应当按照招标文件规定的评标方法进行评审。",  # no method named
        "(三)適用/準用/參考最有利標決標及評分及格最低標之採購，無論是否分段開標，其企劃書裝入投標封套即可。",  # scope
        "■1.本採購非屬適用或準用最有利標、參考最有利標精神決標之採購案：",  # the procurements a rule is for
        "本项目采用综合评分法或最低评标价法，由评标委员会确定。",  # two methods named: no choice made
    ],
)
def test_no_method_where_the_sentence_says_another_thing(sentence: str) -> None:
    assert evaluation_method(sentence) is None
