"""The last day a bidder may ask for a clarification (text/clarification_deadlines.py), as tenders print it."""

from __future__ import annotations

import pytest

from pikelocal.text.clarification_deadlines import clarification_deadline


@pytest.mark.parametrize(
    ("sentence", "printed", "date"),
    [
        ("廠商請求釋疑之期限至 115年1月16日止。", "115年1月16日止", "2026-01-16"),
        ("（1）投标人疑问：2026年06月10日17:00前书面提交；", "2026年06月10日17:00前", "2026-06-10"),
        ("投标人提出澄清截止时间 | 2025年11月6日12时00分（北京时间）", "2025年11月6日", "2025-11-06"),
        (
            "投标人如对招标文件有疑问，须在2026年3月12日15:00前以书面形式通知到招标代理机构。",
            "2026年3月12日15:00前",
            "2026-03-12",
        ),
    ],
)
def test_a_date(sentence: str, printed: str, date: str) -> None:
    found = clarification_deadline(sentence)
    assert found is not None and found.date is not None
    assert (found.text, found.date.normal) == (printed, date)


@pytest.mark.parametrize(
    ("sentence", "printed"),
    [
        (
            "任何要求对招标文件进行澄清的投标人，均应在投标截止期15  天前，按《招标公告》中的地址以书面形式通知。",
            "投标截止期15天前",
        ),
        ("2.2.1 投标人要求澄清招标文件的截止时间 递交投标文件截止之日 10 日前", "递交投标文件截止之日10日前"),
        (
            "投标人对招标文件有疑问的，应在投标文件提交截止时间2日前提出，向招标人、招标代理机构提出。",
            "投标文件提交截止时间2日前",
        ),
    ],
)
def test_days_before_the_bids_deadline(sentence: str, printed: str) -> None:
    found = clarification_deadline(sentence)
    assert found is not None and found.date is None
    assert found.text == printed


@pytest.mark.parametrize(
    "sentence",
    [
        # the purchaser's own clarification or amendment
        "招标人对已发出的招标文件进行必要的澄清或者修改的，应当在投标截止时间至少15日前以书面形式通知所有投标人。",
        # a challenge runs on its own days
        "供应商认为采购文件使其权益受到损害的，可以在2025年6月1日前以书面形式提出质疑。",
        # no question asked: the bids' deadline
        "投标截止时间：2025年6月20日9:00前。",
        # a question, no deadline
        "如有疑问，请与采购代理机构联系，电话：021-51225880。",
        # a month, no day
        "投标人如有疑问，应于2026年6月前提出。",
    ],
)
def test_no_deadline_where_the_sentence_gives_another(sentence: str) -> None:
    assert clarification_deadline(sentence) is None


@pytest.mark.parametrize(
    ("label", "sentence", "printed"),
    [
        ("2.2.1投标人要求澄清招标文件的截止时间", "递交投标文件截止之日 10 日前", "递交投标文件截止之日10日前"),
        ("2.2.1投标人要求澄清招标文件", "时间：投标截止日10日前", "投标截止日10日前"),
    ],
)
def test_a_data_sheet_s_label_above_its_value(label: str, sentence: str, printed: str) -> None:
    found = clarification_deadline(sentence, label)
    assert found is not None and found.text == printed
    assert clarification_deadline(sentence) is None  # the value alone asks nothing


def test_a_label_naming_the_purchaser_s_amendment_is_another_deadline() -> None:
    assert clarification_deadline("投标截止时间15日前", "招标人对招标文件进行澄清或修改的时间") is None


@pytest.mark.parametrize(
    ("sentence", "printed"),
    [
        # 民生银行's 征询 and 四川's 磋商: by the bids' deadline itself, no days before it
        (
            "征询响应方对本次征询文件的内容有疑问时，可要求澄清，但应在征询响应文件递交截止时间前，按征询邀请中注明的联系方法"
            "以书面形式通知征询方。",
            "征询响应文件递交截止时间前",
        ),
        (
            "3.供应商发现采购文件中不合理或者有误的，须在响应文件递交截止日前、以书面形式要求采购人澄清。",
            "响应文件递交截止日前",
        ),
    ],
)
def test_the_bids_deadline_itself(sentence: str, printed: str) -> None:
    found = clarification_deadline(sentence)
    assert found is not None and (found.text, found.date) == (printed, None)


def test_a_heading_naming_the_amendment_does_not_hide_the_request_its_sentence_states() -> None:
    # a military template: the section 「10.谈判文件的澄清与修改」 opens with the bidder's own deadline
    sentence = (
        "10.1供应商对谈判文件如有疑问要求澄清，应当在【报价供应商须知前附表】明确的提交首次报价文件截止之日3个工作日前"
        "以书面形式通知采购机构，采购机构视情以适当方式予以澄清。"
    )
    found = clarification_deadline(sentence, "10.谈判文件的澄清与修改")
    assert found is not None and found.text == "明确的提交首次报价文件截止之日3个工作日前"
    # a sentence asking nothing itself still takes the label's amendment as another deadline
    assert clarification_deadline("投标截止时间15日前", "10.谈判文件的澄清与修改") is None
    # the bid's own deadline is no clarification's
    assert clarification_deadline("投标人应在投标截止时间前递交投标文件。") is None
