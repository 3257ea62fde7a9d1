"""Sentences saying the price is fixed (text/fixed_price.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.fixed_price import says_fixed_price


@pytest.mark.parametrize(
    "sentence",
    [
        "19. 3 投标报价应是固定不变的，不得以任何理由予以变更。",
        "3.1.2 除专用合同条款另有约定外，签约合同价为固定价格。",
        "一、合同价款：固定总价包干，含税（税率13%）。",
        "货物报价一览表中标明的单价应为履行合同的固定单价，不得以任何理由予以变更。",
        "在合同实施期间，本项目合同价不随国家政策或法规、标准及市场因素的变化而进行调整。",
        "2.本合同为固定单价合同，甲方不再向乙方支付任何其他费用，且合同期内费用不作调整。",
        # 中国电信's 询比 rules: 「不作任何调整」
        "供应商所报报价，应自行将成本及利润、税费等需要完成本项目的所有费用考虑计入，成交后不作任何调整。",
        "本契約價金不隨物價指數調整。",
        # a long sentence that goes on to list what the price covers, with 如 in the list (东莞)
        "2.本合同实行固定总价，合同总价包括但不限于：发生于工程实体项目所需的人工费、材料费、机械使用费、管理费、利润"
        "和风险费用等全部费用，发生于合同工程施工准备和施工过程中如技术、生活、安全、环境保护等方面的非工程实体措施的"
        "全部项目费和其他项目费（预算包干费），以及合同实施过程中如不可预见费用等为完成合同规定责任和义务的一切费用。",
        # the amount unchanged whatever the costs, then a case of its own (成都)
        "2.本项目服务期内，因原材料或其他费用上涨导致乙方服务成本上涨或者乙方提出涨价要求的，本项目约定的服务费用金额"
        "不变，乙方应继续按照合同约定为甲方提供服务，若乙方不提供服务的，应承担违约责任。",
    ],
)
def test_a_fixed_price(sentence: str) -> None:
    assert says_fixed_price(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "（一） 本採購案係以「固定價格」決標，上開之固定價格額度為「新臺幣 1,300 萬元」。",  # an award at a set price
        "5.2.1如果投标人没有列明表格中的详细内容，一旦中标，招标人有权进行指定且价格不作调整。",  # a condition
        "人工成本上涨超过5%时，合同价格可以调整。",  # adjusted
        "食品结算单价每月按市场指导价格核定。",  # a price that moves, no fixed words
        "本项目采用固定总价合同的评标方式进行评比。",  # evaluation, not the price
        # a rule by which prices are adjusted, and a case of it
        "工程採購之安全衛生費用之競標調整原則：廠商報價低於機關所訂底價者，各項單價依比例調整之，不隨得標廠商標價調整；",
        "無底價者，依本機關原列預算單價編列，不隨得標廠商標價調整。",
        # a condition before the clause that says it
        "如投标人漏报某项费用，视为该费用已包含在其他报价中，合同价格不变。",
        "若发生设计变更，按实结算；其余部分合同单价不变。",
    ],
)
def test_no_fixed_price_where_the_sentence_says_another_thing(sentence: str) -> None:
    assert not says_fixed_price(sentence)
