"""ask() with quote-then-answer on a real KB and a scripted model, one test per kind of question: the prompt's rule for
the kind, the answer kept with the quote's own page and lines, an invented quote dropped."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.answers import QueryTrace
from pikelocal.domain.events import AnswerDelta, Event
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.store.store import Store
from pikelocal.text.question_kind import question_kind
from tests.support.answer_kb import ENC, build, chunk_with

OPTIONS = AskOptions.from_settings(
    Settings(), mode="naive", k=3, context="neighbours", neighbours=0, compress_tokens=0, quote=True
)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("quoted"))


def answer(kb: Path, question: str, reply: str, options: AskOptions = OPTIONS) -> tuple[FakeLLM, QueryTrace, str]:
    llm = FakeLLM({"answer-quote": reply})
    events: list[Event] = []
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(store, ENC, llm, question, options, events.append, save=False)
    streamed = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    return llm, trace, streamed


def test_a_factoid_is_answered_with_the_quotes_own_line(kb: Path) -> None:
    llm, trace, streamed = answer(kb, "投标保证金是多少？", "原文：投标保证金的金额为人民币五万元。\n答案：五万元")
    (call,) = llm.calls_for("answer-quote")
    assert "原文" in call.messages[-1].content and "是”或“否" not in call.messages[-1].content
    assert trace.answer.text.startswith("五万元 [") and streamed == trace.answer.text
    (check,) = trace.answer.claims
    assert check.method == "quote" and check.evidence.text == "投标保证金的金额为人民币五万元"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        bond = chunk_with(store, "五万元")
    cited = [s for s in trace.answer.sources if s.number in trace.answer.cited]
    assert [bond.id in s.chunk_ids for s in cited] == [True]


def test_an_invented_quote_is_dropped_and_the_answer_is_not_stated(kb: Path) -> None:
    _, trace, _ = answer(kb, "投标保证金是多少？", "原文：投标保证金的金额为人民币八万元。\n答案：八万元")
    assert trace.answer.unsupported and trace.answer.text == "文档中没有说明这一点。"
    assert "八万元" not in trace.answer.text and trace.answer.cited == ()


def test_a_yes_no_question_gets_its_rule_and_is_decided_on_its_quote(kb: Path) -> None:
    question = "投标保证金是否可以采用银行保函形式？"
    assert question_kind(question) == "yesno"
    llm, trace, _ = answer(kb, question, "原文：投标保证金可以采用银行保函形式。\n答案：是")
    assert "答案先写“是”或“否”" in llm.calls_for("answer-quote")[0].messages[-1].content
    assert trace.answer.text.startswith("是 [") and not trace.answer.unsupported
    # "no" on a quote about something else is not kept
    _, other, _ = answer(kb, question, "原文：Termination takes effect thirty days after the notice.\n答案：否")
    assert other.answer.unsupported


def test_a_list_question_keeps_every_item_with_its_own_quote(kb: Path) -> None:
    question = "投标保证金有哪些要求？"
    assert question_kind(question) == "list"
    reply = (
        "原文：投标人应当在投标截止时间前提交投标保证金。\n原文：投标保证金可以采用银行保函形式。\n"
        "答案：投标截止时间前提交、可以采用银行保函形式"
    )
    llm, trace, _ = answer(kb, question, reply)
    assert "每一项抄一句原文" in llm.calls_for("answer-quote")[0].messages[-1].content
    first, second = trace.answer.claims
    assert first.evidence is not None and first.evidence.text == "投标人应当在投标截止时间前提交投标保证金"
    assert second.evidence is not None and second.evidence.text == "投标保证金可以采用银行保函形式"
    # an item that stands in no quote and in no sentence: the list is not kept
    _, wrong, _ = answer(kb, question, reply.replace("可以采用银行保函形式", "可以用现金支付"))
    assert wrong.answer.unsupported


def test_a_choice_is_kept_without_checks_when_the_task_turns_them_off(kb: Path) -> None:
    question = "What is the warranty period?\nA) six months\nB) twelve months\nC) two years"
    assert question_kind(question) == "choice"
    options = replace(OPTIONS, check=False)
    reply = "Quote: the goods are free from defects for twelve months.\nAnswer: B"
    llm, trace, _ = answer(kb, question, reply, options)
    assert "letter(s) of the correct option" in llm.calls_for("answer-quote")[0].messages[-1].content
    assert trace.answer.text.startswith("B") and not trace.answer.unsupported
