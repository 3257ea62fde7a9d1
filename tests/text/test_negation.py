"""Negation, one list per language: a table of sentences, each with whether it says no and the Chinese negation
words it holds (whole words: 不得, not 不 then 得)."""

from __future__ import annotations

import pytest

from pikelocal.text.negation import EN_NEGATIONS, NEGATION, ZH_NEGATION, ZH_NEGATIONS

# text (Chinese simplified, as callers hand it), whether it says no
SAYS_NO: list[tuple[str, bool]] = [
    ("投标人不得分包", True),
    ("投标人可以分包", False),
    ("请勿超过十五分钟", True),
    ("不须提交原件", True),
    ("未提交的投标无效", True),
    ("The ANZ has not sought to appeal", True),
    ("Mr Elisha showed no remorse", True),
    ("The bidder can't subcontract", True),
    ("It cannot be assigned", True),
    ("Neither party may assign", True),
    ("without the consent of the purchaser", True),
    ("unless the court orders otherwise", True),
    ("NOT applicable", True),
    ("The ANZ appealed against the finding", False),
    ("a nothing of note; another note", False),  # "no" and "not" only as whole words
]


@pytest.mark.parametrize(("text", "says_no"), SAYS_NO)
def test_whether_a_sentence_says_no(text: str, says_no: bool) -> None:
    assert (NEGATION.search(text) is not None) == says_no


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("投标人不得分包，不需要盖章", ["不得", "不需"]),
        ("严禁转包；没有资质的不予受理", ["严禁", "没有", "不予"]),
        ("非本项目人员勿入", ["非", "勿"]),
        ("应当提交", []),
    ],
)
def test_a_chinese_negation_is_read_whole(text: str, words: list[str]) -> None:
    assert [m.group(0) for m in ZH_NEGATION.finditer(text)] == words


def test_each_word_is_listed_once() -> None:
    assert len(set(ZH_NEGATIONS)) == len(ZH_NEGATIONS) and len(set(EN_NEGATIONS)) == len(EN_NEGATIONS)
