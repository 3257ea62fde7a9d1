"""What a chain's hop reads from a sentence without the model (query/answer/chain_reading.py): the period a clause
counts and the event it counts from, whether a sentence is about that event, the article of its own document a
clause cites, and a computed day written as a reader writes it. Tables of forms; no model."""

from __future__ import annotations

import datetime

import pytest

from pikelocal.domain.answers import Source
from pikelocal.query.answer.chain_reading import day_text, names_event, own_article, period_and_event
from pikelocal.query.verify.support import Unit, span_unit


def unit(text: str) -> Unit:
    source = Source(1, 1, "doc.md", "doc", (1,), None, None, None, None, (), text)
    return span_unit(source, 0, len(text), table_row=False)


@pytest.mark.parametrize(
    ("sentence", "period", "event"),
    [
        ("乙方应自合同签订之日起30日内完成全部材料交货。", "30日", "合同签订"),
        ("甲方应在收到乙方竣工报告之日起15日内组织验收。", "15日", "收到乙方竣工报告"),
        ("招标人应在中标通知书发出后5日内退还未中标人的投标保证金。", "5日", "中标通知书发出"),
        ("廠商應於決標次日起三十日內交貨。", "三十日", "決標"),
        ("The Contractor shall mobilise to site within 14 days after the signing of the contract.", "14 days",
         "signing of the contract"),
        ("Proof of insurance is due within 3 weeks from the date of the notice of award.", "3 weeks",
         "notice of award"),
    ],
)  # fmt: skip
def test_a_period_and_the_event_it_counts_from(sentence: str, period: str, event: str) -> None:
    found = period_and_event(unit(sentence))
    assert found is not None and (found[0].text, found[1]) == (period, event)


@pytest.mark.parametrize(
    "sentence",
    [
        "本项目工期为90日历天。",  # a period counted from nothing
        "The works shall be completed within 120 days.",
        "我公司承诺本项目工期为80日历天。",
    ],
)
def test_a_period_counted_from_no_event_is_none(sentence: str) -> None:
    assert period_and_event(unit(sentence)) is None


@pytest.mark.parametrize(
    ("event", "sentence", "about"),
    [
        ("合同签订", "本合同于2025年3月1日签订。", True),
        ("收到乙方竣工报告", "乙方于2025年6月10日提交竣工报告。", True),
        ("合同签订", "本项目验收合格日期为2025年7月1日。", False),
        ("signing of the contract", "The contract was signed on 2 June 2025.", True),
        ("signing of the contract", "The works shall be completed within 120 days.", False),
    ],
)
def test_a_sentence_about_the_event(event: str, sentence: str, about: bool) -> None:
    assert names_event(event, sentence) is about


@pytest.mark.parametrize(
    ("sentence", "article"),
    [
        ("未中标人的投标保证金按本文件第23条规定的期限退还。", "23"),
        ("依本契約第八條辦理。", "8"),
        ("Bid bonds are returned within the period set out in Clause 14.", "14"),
        ("依政府採購法第64條辦理。", None),  # another law's article: not the document's own
        ("投标保证金为人民币5万元。", None),
    ],
)
def test_the_article_of_its_own_document_a_clause_cites(sentence: str, article: str | None) -> None:
    assert own_article(unit(sentence)) == article


def test_a_computed_day_as_a_reader_writes_it() -> None:
    day = datetime.date(2025, 3, 31)
    assert day_text(day, "zh", roc=False) == "2025年3月31日"
    assert day_text(day, "zh", roc=True) == "民國114年3月31日"
    assert day_text(day, "en", roc=False) == "31 March 2025"


@pytest.mark.parametrize(
    "sentence",
    [
        "投标人要求澄清招标文件的，应在递交投标文件截止之日 10 日前以书面形式提出。",
        "Clarifications must be requested no later than 10 days before the closing date.",
    ],
)
def test_a_period_counted_back_from_its_event_is_not_counted_forward(sentence: str) -> None:
    assert period_and_event(unit(sentence)) is None
