"""ask() in each mode with a scripted fake LLM on a real KB: sources, citations, streaming, the stored trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.domain.answers import QueryTrace
from pikelocal.domain.errors import InputError
from pikelocal.domain.events import AnswerDelta, Event, ReasoningStep
from pikelocal.domain.kinds import answer_mode
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.answer.decompose import DecomposeOptions
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build, chunk_with
from tests.support.answer_scripts import cite_source_with
from tests.support.cli import assert_one_line_error, run_cli

DECOMPOSE = DecomposeOptions.from_settings(Settings(), threshold=0.4)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return build(tmp_path)


def scripted(answer: object, picks: object = '{"pick": 1}') -> FakeLLM:
    proposals = iter(
        ['{"sub_questions": ["Which events include flood, fire, war and strikes?"]}', '{"sub_questions": []}']
    )
    return FakeLLM(
        {
            "propose_subquestions": lambda _m, _p: next(proposals, '{"sub_questions": []}'),
            "select_atom": picks,
            "answer": answer,
        }  # type: ignore[dict-item]
    )


@pytest.mark.parametrize("mode", ["naive", "hier", "decompose"])
def test_each_mode_answers_with_a_citation_to_the_right_page_and_lines(kb: Path, mode: str) -> None:
    llm = scripted(cite_source_with("flood, fire", "Flood, fire, war and strikes"))
    events: list[Event] = []
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        flood = chunk_with(store, "flood, fire")
        # the one chunk alone (segments would join its neighbours: this KB is so small that all of it is ranked)
        options = AskOptions.from_settings(
            Settings(), mode=mode, k=1, decompose=DECOMPOSE, context="neighbours", neighbours=0, quote=False
        )
        trace = ask(store, ENC, llm, "Do floods, fire, war and strikes count?", options, events.append)
        (cited,) = [s for s in trace.answer.sources if s.number in trace.answer.cited]
        assert cited.chunk_ids == (flood.id,)
        assert cited.location() == "contract.pdf, p. 2, lines 2–3"
        assert trace.answer.removed_citations == 0 and not trace.answer.unsupported
        streamed = "".join(e.text for e in events if isinstance(e, AnswerDelta))
        assert streamed.strip() == trace.answer.text
        assert trace.first_token_s is not None and trace.first_token_s <= trace.total_s
        assert trace.id is not None
        tags = [c.tag for c in trace.calls]
        assert tags[-1] == "answer" and tags.count("answer") == 1
        if mode == "decompose":
            # the search hit is read from the start, so the rounds never offer it again; they add another chunk
            assert trace.answer.sources[0].chunk_ids == (flood.id,)
            assert trace.rounds and trace.rounds[0].chunk_added not in (None, flood.id)
            assert all(c.chunk_id != flood.id for r in trace.rounds for c in r.candidates)
            assert "propose_subquestions" in tags
            assert any(isinstance(e, ReasoningStep) and e.kind == "pick" for e in events)
        else:
            assert trace.rounds == () and set(tags) == {"answer"}


def test_citation_numbers_that_name_no_source_are_removed_and_counted(kb: Path) -> None:
    llm = scripted("Notice takes thirty days [1][12]; a bond applies [0].")
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        options = AskOptions.from_settings(Settings(), mode="naive", quote=False, k=2, neighbours=0, check=False)
        trace = ask(store, ENC, llm, "termination notice period", options)
    assert trace.answer.text == "Notice takes thirty days [1]; a bond applies."
    assert trace.answer.removed_citations == 2 and trace.answer.cited == (1,)


def test_checking_keeps_the_supported_clause_and_drops_the_one_no_source_holds(kb: Path) -> None:
    llm = scripted("Notice takes thirty days [1][12]; a bond applies [0].")
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(
            store,
            ENC,
            llm,
            "termination notice period",
            AskOptions.from_settings(Settings(), mode="naive", quote=False, k=2, neighbours=0),
        )
    a = trace.answer
    assert a.text == "Notice takes thirty days [1];"
    assert [c.verdict for c in a.claims] == ["supported", "unsupported"]
    assert a.claims[0].evidence is not None and "thirty days" in a.claims[0].evidence.text
    assert a.draft == "Notice takes thirty days [1]; a bond applies." and a.removed_citations == 2


def test_hier_adds_chunks_reached_through_atomic_questions(kb: Path) -> None:
    llm = scripted("x")
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        naive = ask(
            store,
            ENC,
            llm,
            "履约保证金退还",
            AskOptions.from_settings(Settings(), mode="naive", quote=False, k=1, neighbours=0),
            save=False,
        )
        hier = ask(
            store,
            ENC,
            llm,
            "履约保证金退还",
            AskOptions.from_settings(Settings(), mode="hier", quote=False, k=1, neighbours=0),
            save=False,
        )
    assert len(naive.context_chunks) == 1
    assert len(hier.context_chunks) == 2 and hier.context_chunks[0] == naive.context_chunks[0]


def test_the_trace_is_stored_and_read_back_whole(kb: Path) -> None:
    llm = scripted(cite_source_with("flood, fire", "Flood and fire"))
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        options = AskOptions.from_settings(Settings(), mode="decompose", decompose=DECOMPOSE)
        asked = ask(store, ENC, llm, "Which events are force majeure?", options)
    facade = api.open_kb(kb, Settings(), encoder=ENC, llm=llm)
    stored = facade.trace(asked.id)
    assert stored.id == asked.id and stored.created_at
    assert stored.to_dict() == asked.to_dict()
    assert facade.trace().id == asked.id  # the newest
    (row,) = facade.history()
    assert row.question == "Which events are force majeure?" and row.mode == "decompose"
    with pytest.raises(InputError, match="no trace 999"):
        facade.trace(999)


def test_trace_and_history_at_the_command_line(kb: Path) -> None:
    llm = scripted(cite_source_with("flood, fire", "Flood and fire"))
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        # k=1: the search reads one chunk first, so the round has another to add (and the trace to show)
        options = AskOptions.from_settings(Settings(), mode="decompose", k=1, decompose=DECOMPOSE)
        first = ask(store, ENC, llm, "Which events are force majeure?", options)
        ask(
            store,
            ENC,
            scripted("投标保证金为五万元 [1]。"),
            "投标保证金是多少？",
            AskOptions.from_settings(Settings(), mode="naive", quote=False),
        )
    proc = run_cli("trace", str(kb), str(first.id))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Round 1" in out and "sub-question: Which events include flood, fire, war and strikes?" in out
    # the search hit and its neighbours (the whole force-majeure passage) are read first; the round adds another
    assert "→" in out and "added chunk" in out and "delivery.md, p. 1, lines 1–5" in out
    assert "Answer:\nFlood and fire [1]." in out and "propose_subquestions" in out
    data = json.loads(run_cli("trace", str(kb), str(first.id), "--json").stdout)
    assert QueryTrace.from_dict(data).to_dict() == first.to_dict()
    history = run_cli("history", str(kb)).stdout.splitlines()
    assert "投标保证金是多少？" in history[0] and "Which events are force majeure?" in history[2]
    assert_one_line_error(run_cli("trace", str(kb), "42"), InputError.exit_code, "no trace 42")


def test_nothing_found_says_the_documents_do_not_state_it(tmp_path: Path) -> None:
    kb = tmp_path / "empty.kb"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        llm = scripted("should not be asked")
        trace = ask(
            store, ENC, llm, "投标保证金是多少？", AskOptions.from_settings(Settings(), mode="naive", quote=False)
        )
    assert trace.answer.unsupported and trace.answer.text == "文档中没有说明这一点。"
    assert llm.calls_for("answer") == []


def test_an_answer_that_declares_silence_is_marked_unsupported(kb: Path) -> None:
    llm = scripted("The documents do not state the price of the spaceship.")
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(
            store,
            ENC,
            llm,
            "What does the spaceship cost?",
            AskOptions.from_settings(Settings(), mode="naive", quote=False),
        )
    assert trace.answer.unsupported and trace.answer.cited == ()


def test_the_answer_prompt_is_in_the_question_language(kb: Path) -> None:
    llm = scripted("x")
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        ask(
            store,
            ENC,
            llm,
            "投标保证金是多少？",
            AskOptions.from_settings(Settings(), mode="naive", quote=False),
            save=False,
        )
        ask(
            store,
            ENC,
            llm,
            "How long is the warranty?",
            AskOptions.from_settings(Settings(), mode="naive", quote=False),
            save=False,
        )
    zh, en = (c.messages for c in llm.calls_for("answer"))
    assert "用中文" in zh[-1].content and "问题: 投标保证金是多少？" in zh[-1].content
    assert "in English" in en[-1].content and "Question: How long is the warranty?" in en[-1].content


def test_ask_refuses_an_empty_question_and_a_missing_kb(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="empty"):
        api.open_kb(tmp_path / "x.kb", Settings(), encoder=ENC, llm=scripted("x")).ask("  ")
    with pytest.raises(InputError, match="no such knowledge base"):
        api.open_kb(tmp_path / "x.kb", Settings(), encoder=ENC, llm=scripted("x")).ask("why?")
    with pytest.raises(InputError, match="unknown answer mode"):
        answer_mode("magic")
