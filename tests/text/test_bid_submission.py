"""How the bid is handed in (``text/bid_submission.py``): the sentences of real tenders that state a way, and those
that name a way only to refuse it, or are about another paper."""

from __future__ import annotations

import pytest

from pikelocal.text.bid_submission import submission_way


@pytest.mark.parametrize(
    "sentence",
    [
        # 中邮人寿, 民生银行, 苏州工业园区 (by hand), 中国移动安徽, 东莞理工 (online), 新北市 (Taiwan's words)
        "供应商须派代表当面递交纸质版响应文件并参与磋商，逾期递交的纸质版响应文件将被拒绝。",
        "6.1 所有征询响应文件通过专人递交，必须在征询响应文件递交截止时间之前送至征询方指定地点。",
        "所有投标文件，都必须按要求，派专人送达。",
        "4.2 电子应答文件通过中国移动电子采购与招投标系统递交，应答截止时间为 2025 年 07 月 10 日 09 时 00 分。",
        "请注意：供应商需在响应文件截止时间前，将加密响应文件上传至云平台项目采购系统中并取得回执。",
        "投標廠商應於截止收件期限前以郵遞或專人送達投標文件。",
    ],
)
def test_a_sentence_stating_how_the_bid_is_handed_in(sentence: str) -> None:
    assert submission_way(sentence) == " ".join(sentence.split())


@pytest.mark.parametrize(
    "sentence",
    [
        "18.4电报、电话、电传、邮寄等形式的报价文件概不接收。",  # a way refused after it
        "本次采购不接收邮寄的响应文件。",  # refused before it
        "投标截止时间前未完成上传的，视为撤回投标文件。",  # a consequence, not the way
        "2、投标保函（守正平台提供电子投标保函在线申请）。",  # the bond's way, not the bid's
        "签字或盖章要求：电子投标文件必须采用CA数字证书签章。",  # 电子投标文件 is a file, not a way
        "二十一、廠商採電子投標者，其押標金金額減收10%。",  # about the bond
        "供应商可通过电子邮件提交质疑函。",  # a complaint, not the bid
        "如采用邮寄方式，以收到日期为准。",  # a condition
    ],
)
def test_no_way_where_the_sentence_refuses_it_or_is_about_another_paper(sentence: str) -> None:
    assert submission_way(sentence) is None
