"""What a question asks for, by patterns in simplified and traditional Chinese and English: a table of questions
and the kind each asks for (the kind of answer, an overview, an article's own words, which of two comes first)."""

from __future__ import annotations

import pytest

from pikelocal.text.question_kind import (
    Order,
    asks_article_text,
    asks_not_stated,
    asks_which_statements,
    is_overview,
    order_asked,
    question_kind,
)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("投标保证金是多少？", "factoid"),
        ("本案押標金金額是多少？", "factoid"),
        ("When did the lease end?", "factoid"),
        ("投標人是否可以聯合投標？", "yesno"),
        ("联合体投标可以吗？", "yesno"),
        ("Is the seller liable for latent defects?", "yesno"),
        ("In Andrews v ANZ the orders on costs were not set aside. True or False?", "yesno"),
        ("投标人资格要求有哪些？", "list"),
        ("評分項目有哪些？", "list"),
        ("What are the grounds of appeal?", "list"),
        ("What was the order on costs?\nA) paid by the applicants\n B) paid by the respondent\n C) reserved", "choice"),
        ("下列哪一项属于无效合同？", "choice"),
    ],
)
def test_each_kind_is_told_by_its_words(question: str, kind: str) -> None:
    assert question_kind(question) == kind


def test_a_benchmark_instruction_counts_as_part_of_the_question() -> None:
    assert question_kind("The contract was void.", "Begin the answer with True or False.") == "yesno"


@pytest.mark.parametrize(
    ("question", "overview"),
    [
        ("总结一下投标保证金的规定", True),
        ("投标人有哪些义务？", True),
        ("Summarise the tender's payment terms", True),
        ("What are all the deadlines in this contract?", True),
        ("What are the main obligations of the supplier?", True),
        ("投标保证金最多是采购预算的多少？", False),
        ("When must the deposit be returned?", False),
        ("Which committee evaluates the bids?", False),  # "which" asks for one fact
        ("合同的主要条款是什么？", True),
        ("所有权在交付时转移吗？", False),  # 所有权 (ownership) is not "all"
        ("项目的主要负责人是谁？", False),
    ],
)
def test_overview_questions_are_told_from_single_fact_questions(question: str, overview: bool) -> None:
    assert is_overview(question) is overview


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("民法商法个人独资企业法第十九条的内容是什么？", True),
        ("個人獨資企業法第19條規定了什麼？", True),
        ("刑法第二百六十四条的原文", True),
        ("What does section 54 of the Insurance Contracts Act 1984 say?", True),
        ("What is the wording of section 7?", True),
        ("个人独资企业法第十九条规定的合同应当采用什么形式？", False),  # a fact in the article
        ("个人独资企业投资人的责任是什么？", False),
    ],
)
def test_a_question_asking_for_an_articles_own_words(question: str, asks: bool) -> None:
    assert asks_article_text(question) is asks


@pytest.mark.parametrize(
    ("word", "order"),
    [("first", "earlier"), ("sooner", "earlier"), ("older", "earlier"), ("oldest", "earlier"), ("last", "later"),
     ("more recently", "later"), ("younger", "later"), ("same", None), (None, None)],
)  # fmt: skip
def test_which_of_two_a_comparison_picks(word: str | None, order: Order | None) -> None:
    assert order_asked(word) == order


@pytest.mark.parametrize(
    "question",
    [
        "The bid bond is refundable. (True/False)",
        "押標金可以退還，正確還是錯誤？",
        "投标保证金可以退还，对吗？",
        "能否分包？",
    ],
)
def test_true_or_false_and_yes_no_forms(question: str) -> None:
    assert question_kind(question) == "yesno"


@pytest.mark.parametrize(
    ("stem", "not_stated", "statements"),
    [
        ("Which of the following was NOT discussed in the judgment?", True, False),
        ("Which ground is not one of the grounds of appeal?", True, False),
        ("All of the following are remedies EXCEPT", True, False),
        ("下列不属于投标文件组成部分的是", True, False),
        ("判決中未提及下列哪一項？", True, False),
        ("Not only the buyer but also the seller was liable. Who paid?", False, False),  # "Not" opening a sentence
        ("Which of the following statements is correct?", False, True),
        ("下列说法正确的是", False, True),
        ("關於押標金，正確的有哪些？", False, True),
        ("Who recommended the appointment?", False, False),
    ],
)
def test_what_a_choice_question_asks_of_its_options(stem: str, not_stated: bool, statements: bool) -> None:
    assert (asks_not_stated(stem), asks_which_statements(stem)) == (not_stated, statements)
