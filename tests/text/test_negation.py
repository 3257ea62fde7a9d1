"""Negation and polarity, one list per language: a table of sentences, each with whether it says no and the Chinese
negation words it holds (whole words: 不得, not 不 then 得); a table of answers, each with the yes or no it opens
with."""

from __future__ import annotations

import pytest

from pikelocal.text.negation import EN_NEGATIONS, NEGATION, NO_ANSWER, YES_ANSWER, ZH_NEGATION, ZH_NEGATIONS

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


# an answer (or a form's ticked option), the yes or no it opens with (a no is tried first), and the words that say it
ANSWERS: list[tuple[str, str | None, str]] = [
    ("是", "yes", "是"),
    ("否", "no", "否"),
    ("不正确", "no", "不正确"),  # not 正确
    ("不允许", "no", "不"),
    ("允許", "yes", "允許"),
    ("沒有", "no", "沒有"),
    ("需要提交", "yes", "需要"),
    ("No, it is not.", "no", "No"),
    ("Incorrect", "no", "Incorrect"),
    ("True", "yes", "True"),
    ("nobody", None, ""),  # "no" only as a whole word
    ("B", None, ""),
]


@pytest.mark.parametrize(("answer", "polarity", "words"), ANSWERS)
def test_the_yes_or_no_an_answer_opens_with(answer: str, polarity: str | None, words: str) -> None:
    no, yes = NO_ANSWER.match(answer), YES_ANSWER.match(answer)
    found = ("no", no) if no else ("yes", yes) if yes else (None, None)
    assert (found[0], found[1].group(0) if found[1] else "") == (polarity, words)
