"""What a value in a sentence is a value of (text/subjects.py): one row per form, the subject read off each sentence
by hand. Two figures in one sentence are about the words nearest before each; a start point, a base and a score's
pass line are not the subject."""

from __future__ import annotations

import pytest

from pikelocal.text.subjects import concepts_of, is_threshold, subject_in
from pikelocal.text.values import SPAN_KINDS, values_in


def subjects(sentence: str) -> list[tuple[str, str]]:
    """(normal form, subject) of every value of ``sentence``."""
    found = values_in(sentence, SPAN_KINDS)
    spans = [(s, e) for s, e, _v in found]
    return [
        (v.normal, subject_in(sentence, 0, s, e, len(sentence), v, [x for x in spans if x != (s, e)]))
        for s, e, v in found
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # two figures in one sentence: each is about its own clause
        ("簡報時間不得超過15分鐘，答詢時間不得超過10分鐘", [
            ("15 minutes", "簡報時間不得超過"), ("10 minutes", "答詢時間不得超過"),
        ]),
        ("投标文件正本1份、副本3份", [("1", "投标文件正本"), ("3", "副本")]),
        ("正本1份副本3份", [("1", "正本"), ("3", "副本")]),
        ("总分100分，其中：投标报价40分，施工组织设计30分", [
            ("100 points", "总分"), ("40 points", "投标报价"), ("30 points", "施工组织设计"),
        ]),
        ("评标委员会构成：5人，其中招标人代表0人，专家5人", [
            ("5", "评标委员会构成"), ("0", "其中招标人代表"), ("5", "专家"),
        ]),
        # printed forms: spaced numerals, ROC dates
        ("合同價款新臺幣35 萬 900 元", [("350900 TWD", "合同價款")]),
        ("截止收件日期：民國114年12月15日", [("2025-12-15", "截止收件日期")]),
        ("截止收件日期：114/12/15", [("2025-12-15", "截止收件日期")]),
        # the clause before names what a value after a colon is of
        ("投标保证金：人民币5万元", [("50000 CNY", "投标保证金")]),
        ("计划服务期1095天，自2025年11月10日至2027年11月10日", [
            ("1095 days", "计划服务期"), ("2025-11-10", "计划服务期"), ("2027-11-10", "计划服务期"),
        ]),
        # a start point is not the subject
        ("投标有效期为自投标截止时间起90日", [("90 days", "投标有效期")]),
        ("投标有效期为投标截止之日起90日历天", [("90 days", "投标有效期")]),
        ("招标人应当自收到异议之日起3日内作出答复", [("3 days", "招标人 … 作出答复")]),
        ("合同签订后30日历天内提交可行性研究报告", [("30 days", "提交可行性研究报告")]),
        ("基准日：指投标截止时间前28天的日期", [("28 days", "基准日 … 日期")]),
        ("自決標日起至115年12月31日止完成履約", [("2026-12-31", "完成履約")]),
        # a base is not the subject
        ("履约保证金为中标合同金额的10%", [("10%", "履约保证金")]),
        ("履约保证金不超过合同总价的10%", [("10%", "履约保证金不超过")]),
        ("付款：合同签订后支付合同价款的30%作为预付款", [("30%", "合同签订后支付 … 作为预付款")]),
        # a count's thing follows it
        ("将生成一份加密的电子投标文件和一份不加密的电子投标文件", [
            ("1", "将生成 加密的电子投标文件"), ("1", "不加密的电子投标文件"),
        ]),
        ("CA锁、标证通、电子营业执照3种任选其一", [("3", "CA锁、标证通、电子营业执照 任选其一")]),
        # English
        ("The Buyer shall pay A$5,000 to Dr. Smith within 14 days.", [
            ("5000 AUD", "The Buyer shall pay"), ("14 days", "The Buyer shall pay A$5,000 to Dr. Smith within"),
        ]),
        ("The warranty period for each Pump is 36 months from the date of Acceptance", [
            ("36 months", "The warranty period for each Pump"),
        ]),
        ("The Supplier shall pay liquidated damages of AUD 2,000 per day, capped at 10% of the Contract Price", [
            ("2000 AUD", "The Supplier shall pay liquidated damages"),
            ("10%", "The Supplier shall pay liquidated damages … capped"),
        ]),
        ("The Supplier must give the Buyer at least 5 Business Days' notice of each delivery.", [
            ("5 working days", "The Supplier must give the Buyer at least … notice of each delivery"),
        ]),
        ("The Supplier must install them so that at least eight pumps remain available.", [
            ("8", "The Supplier must install them so that … pumps"),
        ]),
        # words after a value that name nothing: those after the next value ("…连续6个月社会保险证明")
        ("注：近一年内连续6个月社会保险证明作为证明材料", [
            ("1 year", "社会保险证明作为证明材料"), ("6 months", "社会保险证明作为证明材料"),
        ]),
        # a list item's number and mark are no subject
        ("（3）投标人须提交2份证明", [("2", "投标人须提交 证明")]),
        ("①准确、合理的得 3～5 分", [("5 points", "准确、合理的")]),
        ("正高级技术职称的，得 2 分", [("2 points", "正高级技术职称的")]),  # points have no base
    ],
)  # fmt: skip
def test_subjects(sentence: str, expected: list[tuple[str, str]]) -> None:
    assert subjects(sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # what must be done within a period follows it: who, and what is due
        ("项目负责人2天内不能履行职责的，应事先征得发包人同意", [("2 days", "项目负责人 … 不能履行职责的")]),
        ("承辦人員3日內未完成審查者，得展延", [("3 days", "承辦人員 … 未完成審查者")]),
        # the point counted from ends in 后的 / 後之: left out, and what is due is in the next clause
        ("12.4.2 发包人应在收到费用结算申请后的28 天内，将应付款项支付给勘察设计人；", [
            ("28 days", "发包人 … 将应付款项支付给勘察设计人"),
        ]),
        ("發包人應於收到申請後之7日內，將款項支付予廠商", [("7 days", "發包人 … 將款項支付予廠商")]),
        # what the period is of stands in the clause after it, a list joined by 、 included
        ("发包人应在开始勘察前7日内，向勘察设计人提供测量基准点、水准点和书面资料等", [
            ("7 days", "发包人 … 向勘察设计人提供测量基准点、水准点和书面资料等"),
        ]),
        ("（12）在近三年内投标人或其法定代表人、拟任项目负责人被人民法院判决为行贿罪；", [
            ("3 years", "投标人或其法定代表人、拟任项目负责人被人民法院判决为行贿罪"),
        ]),
        # a run of years is of what follows it
        ("提供连续三年的财务审计报告", [("3 years", "提供 … 财务审计报告")]),
        ("投標廠商應提供連續3年之納稅證明", [("3 years", "投標廠商應提供 … 納稅證明")]),
        # a count's thing after an alternative ("或者多家", "或两个以上")
        ("允许大中型企业向一家或者多家小微企业分包", [("1", "允许大中型企业向 小微企业分包")]),
        ("发包人代表可以授权其他人员负责执行其指派的一项或多项工作", [
            ("1", "发包人代表可以授权其他人员负责执行其指派的 工作"),
        ]),
        ("投标人提供两个或两个以上投标报价", [("2", "投标人提供 投标报价"), ("2", "投标人提供两个 投标报价")]),
        # a bound with a modal names nothing: the clause before does
        ("发包人对于勘察设计文件的审查期限，自文件接收之日起不应超过14 天。", [
            ("14 days", "发包人对于勘察设计文件的审查期限"),
        ]),
        # a share's clause after is the next instalment's, not this one's; a bare 支付 is read with the clause before
        ("初步设计报告完成批复后支付至合同签订额的50%，施工图设计完成后支付至合同签订额的75%", [
            ("50%", "初步设计报告完成批复后支付"), ("75%", "施工图设计完成后支付"),
        ]),
        ("至工程竣工验收前，支付至合同签订额的 90%，剩余尾款至项目评价结束后结清。", [
            ("90%", "至工程竣工验收前 … 支付"),
        ]),
        # English: the object a verb takes after the aside holding the value
        ("11.1 The Supplier must keep available, or be able to procure within 10 Business Days, the spare parts"
         " listed in the Specification.", [("10 working days", "or be able to procure within … the spare parts")]),
        ("4.3 The Supplier must give the Buyer, at least 20 Business Days before the Pumps are shipped, the factory"
         " test certificates for each Pump.", [
            ("20 working days", "The Supplier must give the Buyer … the factory test certificates"),
        ]),
        # no aside: the clause after the comma is another (", by repairing it")
        ("If a Defect appears, the Supplier must remedy it within 10 Business Days after being notified, by"
         " repairing it.", [("10 working days", "the Supplier must remedy it within")]),
    ],
)  # fmt: skip
def test_what_a_value_is_of_follows_it(sentence: str, expected: list[tuple[str, str]]) -> None:
    assert subjects(sentence) == expected


@pytest.mark.parametrize(
    ("sentence", "threshold"),
    [("總分達80分以上者為及格", True), ("未達70分者不得列為優勝廠商", True), ("投標報價26.25分", False)],
)
def test_a_score_line_is_a_threshold(sentence: str, threshold: bool) -> None:
    [(s, e, _value)] = values_in(sentence, ("percentage",))
    assert is_threshold(sentence, s, e) is threshold


def test_concepts_nearest_the_value_first() -> None:
    assert concepts_of("押標金及履約保證金") == ("performance_bond", "bid_bond")
    assert concepts_of("投标保证金") == concepts_of("押標金") == ("bid_bond",)
    assert concepts_of("本项内容") == ()
