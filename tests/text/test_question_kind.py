"""The kind of answer a question asks for, by patterns in simplified and traditional Chinese and English."""

from __future__ import annotations

import pytest

from pikelocal.text.question_kind import question_kind


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
