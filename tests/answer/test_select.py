"""The selection reader over a real KB (the hashing encoder, a scripted model): a question asking for a figure is shown
the KB's statements of that kind as lettered lines and answered with the one the model picks, cited at its page and
lines; "none of these", or a pick that names none of the question's concepts, is read again by quote-then-answer; the
prompt is short."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.answers import QueryTrace
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.select import LETTERS, MAX_OPTIONS, parse_choice, select_messages, select_params
from pikelocal.text.question_kind import asked_value
from tests.support.text_kb import one_text_kb

RULES = """臺中市某局「智慧路燈維運服務委託案」評選須知

一、本案採購預算金額為新臺幣35萬900元（含稅）。
二、廠商簡報時間不得超過15分鐘，答詢時間不得超過10分鐘。
三、評選委員會由委員7人組成，服務建議書一式8份。
四、履約期限：自決標次日起至115年12月31日止。
"""


def options_of(prompt: str) -> list[tuple[str, str]]:
    """The prompt's lettered lines as (letter, text), "none of these" last."""
    return [(ln[0], ln[3:]) for ln in prompt.splitlines() if ln[:1] in LETTERS and ln[1:3] == ". "]


def pick(letter_for: dict[str, str]) -> object:
    """A model that picks the option whose line holds the given words ("none of these" when none does)."""

    def reply(messages: Sequence[Message], params: GenParams) -> str:
        prompt = messages[-1].content
        asked = prompt.split("：", 1)[1].split("\n", 1)[0]
        words = next((w for q, w in letter_for.items() if q in asked), None)
        lines = options_of(prompt)
        return next((letter for letter, text in lines if words and words in text), lines[-1][0])

    return reply


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return one_text_kb(tmp_path_factory.mktemp("select"), "評選須知.txt", RULES, encoder=HashEncoder())


def ask(kb: Path, question: str, words: str | None, select: bool = True) -> tuple[QueryTrace, FakeLLM]:
    llm = FakeLLM({"answer-select": pick({question: words} if words else {}), "answer-quote": "答案：文件中沒有說明"})
    settings = load_settings(environ={}, overrides={"answer.select": select})
    with api.open_kb(kb, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode="naive")), llm


def test_two_figures_in_one_sentence_are_two_options_and_the_pick_is_the_answer(kb: Path) -> None:
    # a question naming neither figure's own word (時間 is in both) is shown both, each on its own line
    trace, llm = ask(kb, "時間最長為多久？", "答詢時間")
    options = [text for _, text in options_of(llm.calls_for("answer-select")[0].messages[-1].content)]
    assert any(t.startswith("答詢時間") for t in options) and any("簡報時間" in t.split("：")[0] for t in options)
    answer = trace.answer
    assert answer.text.startswith("10分鐘") and not answer.unsupported, answer
    (claim,) = answer.claims
    assert claim.method == "select" and claim.evidence is not None and claim.evidence.line_start == 4
    assert llm.calls_for("answer-quote") == []  # the model only picked


def test_none_of_these_is_read_again_by_quote_then_answer(kb: Path) -> None:
    trace, llm = ask(kb, "本案押標金金額是多少？", None)  # the rules state no bid bond: the model picks none
    assert llm.calls_for("answer-select") and llm.calls_for("answer-quote")
    assert trace.answer.unsupported and trace.answer.text == "文件中沒有說明這一點。"  # the quote path's reply


def test_a_pick_of_another_concept_is_not_the_answer(kb: Path) -> None:
    # the model takes the budget for the bid bond (another wording than above: the KB's cache keeps that reply)
    trace, llm = ask(kb, "本案押標金的金額為何？", "預算金額")
    assert llm.calls_for("answer-select") and llm.calls_for("answer-quote")  # read again, quote-then-answer
    assert "35萬900" not in trace.answer.text and all(c.method != "select" for c in trace.answer.claims)


def test_the_prompt_is_a_few_short_lines(kb: Path) -> None:
    trace, llm = ask(kb, "評選委員會由幾人組成？", "委員")
    prompt = llm.calls_for("answer-select")[0].messages[-1].content
    options = options_of(prompt)
    assert 1 < len(options) <= MAX_OPTIONS + 1 and all(len(text) <= 80 for _, text in options)
    assert trace.answer.text.startswith("7人")


def test_off_by_default_a_figure_question_is_answered_by_quote_then_answer(kb: Path) -> None:
    _, llm = ask(kb, "答詢時間為多久？", "答詢時間", select=False)
    assert llm.calls_for("answer-select") == [] and llm.calls_for("answer-quote")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("本案押標金金額是多少？", "amount"), ("投标截止时间是什么时候？", "date"), ("评标委员会由几人组成？", "count"),
        ("履约期限为多久？", "duration"), ("价格分权重是多少？", "percentage"),
        ("预付款占合同金额的比例是多少？", "percentage"), ("本案的履約期限到何時？", "date"),
        ("How many copies must be submitted?", "count"), ("What is the bid security amount?", "amount"),
        ("本案採用何種評選方式？", None), ("是否接受联合体投标？", None),
    ],
)  # fmt: skip
def test_the_figure_a_question_asks_for(question: str, kind: str | None) -> None:
    assert asked_value(question) == kind


def test_the_reply_is_one_letter_under_a_grammar() -> None:
    params = select_params(3)  # A, B, C: the statements; D: none of these
    assert params.grammar == "root ::= [A-D]" and params.max_tokens <= 2
    assert [parse_choice(r, 3) for r in ("B", " D\n", "答案：c", "E", "none")] == [2, 0, 3, None, None]
    with pytest.raises(ValueError):
        select_messages("?", "hans", [])


def test_the_option_whose_subject_holds_the_question_s_own_words_comes_first(kb: Path) -> None:
    # 簡報時間 and 答詢時間 share 時間; 答詢 is the word that tells them apart
    trace, llm = ask(kb, "廠商答詢時間最長為幾分鐘？", "答詢時間")
    first = options_of(llm.calls_for("answer-select")[0].messages[-1].content)[0][1]
    assert first.startswith("答詢時間") and trace.answer.text.startswith("10分鐘")


def test_an_option_whose_subject_lacks_the_question_s_own_words_is_not_shown(kb: Path) -> None:
    # the 1.5B model picks the presentation's line whatever the question asks; the system reads the subjects
    _, llm = ask(kb, "廠商的答詢時間最多幾分鐘？", "答詢時間")  # (a question of its own: answers are cached)
    heads = [text.split("：")[0] for _, text in options_of(llm.calls_for("answer-select")[0].messages[-1].content)]
    assert not any("簡報" in h for h in heads), heads
