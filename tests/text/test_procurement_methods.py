"""Sentences naming the procurement method a tender is run by (text/procurement_methods.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.procurement_methods import method_named


@pytest.mark.parametrize(
    ("sentence", "method"),
    [
        ("本项目已具备招标条件，现对该项目进行国内公开招标。", "公开招标"),
        ("4.1本次招标采取公开招标方式，", "公开招标"),
        (
            "现拟对国家税务总局阳江高新技术产业开发区税务局2024-2025年度食堂配送服务采购项目采用公开招标方式进行采购。",
            "公开招标",
        ),
        ("现就下列项 目进行公开招标采购", "公开招标"),
        ("现就下列项目进行竞争性磋商采购，欢迎提供本国货物、服务的生产制造厂商或其合格代理商参加：", "竞争性磋商"),
        ("现招标方式为竞争性磋商。", "竞争性磋商"),
        ("5. 招标方式：邀约招标", "邀约招标"),
        ("（一） 招標方式為限制性招標（公開評選）。", "限制性招標"),
        ("依「政府採購法」第22條第1項第9款辦理，並準用最有利標，辦理公開評選。", "公開評選"),
        ("本项目采购方式：单一来源采购", "单一来源采购"),
        # 北京银行's notice: 「…委托，对“…（项目编号：…）”以公开招标方式进行。」
        ("中金招标有限责任公司受北京银行股份有限公司委托，对“某项目”以公开招标方式进行。", "公开招标"),
        # 中国电信's 询比 notice, and 昆山农商银行's scope clause (进行的 …)
        ("项目资金已落实，具备采购条件，现进行公开询比，特邀请有意向的潜在供应商参加询比响应。", "公开询比"),
        ("本招标文件仅适用于江苏昆山农村商业银行股份有限公司采购而进行的公开招标。", "公开招标"),
        ("本项目因响应供应商不足采购失败，现进行第二次公开询比，具有服务能力的供应商均可前来报名。", "公开询比"),
        # 中邮人寿's notice: the method after 公开 (「国内公开竞争性磋商」)
        (
            "中邮人寿保险股份有限公司（以下简称“采购人”）组织“中邮保险购买手机号实名认证服务项目”进行国内公开竞争性磋商。",
            "竞争性磋商",
        ),
        ("现对本项目进行公开竞争性谈判。", "竞争性谈判"),
        ("■2.公開取得書面報價或企劃書。", "公開取得書面報價"),  # a Taiwanese form's ticked option
        ("☑（二）公開招標", "公開招標"),
    ],
)
def test_the_method_this_procurement_is_run_by(sentence: str, method: str) -> None:
    assert method_named(sentence) == method


@pytest.mark.parametrize(
    "sentence",
    [
        "采购人采用公开招标方式以外的采购方式的，应当在采购活动开始前获得批准。",  # a rule of law
        "依法必须进行公开招标的项目，应当依照本法规定进行招标。",  # a rule of law
        "如采用竞争性谈判方式采购的，按照谈判文件的规定执行。",  # a condition
        "本项目不采用邀请招标。",  # a negation
        "公开招标文件",  # a title names a method alone
        "五、 投標廠商應提出服務建議書1 式8 份，併同其他投標文件投標及評選，",  # 評選 is no method
        "《政府采购竞争性磋商采购方式管理暂行办法》（财库〔2014〕214号）",  # a law's name
        "□(一)公開招標。",  # an option not ticked
        "本採購■不允許□允許 公開招標以外之方式。",  # the tick is not before the method
    ],
)
def test_no_method_where_the_sentence_says_another_thing(sentence: str) -> None:
    assert method_named(sentence) is None
