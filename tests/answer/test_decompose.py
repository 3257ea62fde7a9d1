"""Algorithm 1 with a scripted fake LLM on a real KB file: rounds, stops, backups, and what each prompt sees."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.answer.decompose import (
    STOP_ENOUGH,
    STOP_NO_CANDIDATE,
    STOP_NONE_PICKED,
    STOP_ROUNDS,
    DecomposeOptions,
    decompose,
)
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build, chunk_with

OPTIONS = DecomposeOptions.from_settings(Settings(), rounds=5, threshold=0.4)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("decompose"))


@pytest.fixture(scope="module")
def kb_without_questions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("no-questions"), questions=False)


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


def replies(*texts: object) -> object:
    """A script entry answering the n-th call with the n-th reply (the last one repeats)."""
    calls = iter(range(10_000))

    def answer(_messages: Sequence[Message], _params: GenParams) -> str:
        n = next(calls)
        reply = texts[min(n, len(texts) - 1)]
        return reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)

    return answer


def fake(propose: object, select: object) -> FakeLLM:
    return FakeLLM({"propose_subquestions": propose, "select_atom": select})  # type: ignore[dict-item]


def test_round_two_proposes_with_the_chunk_round_one_picked(store: Store) -> None:
    llm = fake(
        replies({"sub_questions": ["投标保证金的金额是多少？"]}, {"sub_questions": ["履约保证金是多少？"]},
                {"sub_questions": []}),
        replies({"pick": 1}),
    )  # fmt: skip
    result = decompose("投标保证金和履约保证金分别是多少？", "zh", store, ENC, llm, OPTIONS)
    bid = chunk_with(store, "五万元")
    performance = chunk_with(store, "百分之十")
    assert result.chunk_ids == (bid.id, performance.id)
    assert [r.chunk_added for r in result.rounds] == [bid.id, performance.id, None]
    assert result.rounds[-1].stop == STOP_ENOUGH
    proposals = llm.calls_for("propose_subquestions")
    assert "五万元" not in proposals[0].messages[-1].content
    assert "五万元" in proposals[1].messages[-1].content  # round 1's chunk is round 2's evidence
    assert "投标保证金的金额是多少？" in proposals[1].messages[-1].content  # and its sub-question is "asked"
    selects = llm.calls_for("select_atom")
    assert "五万元" in selects[1].messages[-1].content
    # every candidate passed the similarity threshold, and none is a chunk already gathered
    assert all(c.score >= OPTIONS.threshold for r in result.rounds for c in r.candidates)
    assert bid.id not in [c.chunk_id for c in result.rounds[1].candidates]
    assert result.rounds[0].chunk_location == "bid_bond.md, p. 1, lines 1–3"


def test_the_loop_stops_when_the_selector_picks_none(store: Store) -> None:
    llm = fake(
        replies({"sub_questions": ["投标保证金的金额是多少？"]}, {"sub_questions": ["履约保证金是多少？"]}),
        replies({"pick": 1}, {"pick": 0}),
    )
    result = decompose("投标保证金和履约保证金分别是多少？", "zh", store, ENC, llm, OPTIONS)
    assert len(result.rounds) == 2 and result.rounds[1].stop == STOP_NONE_PICKED
    assert result.rounds[1].picked is None and result.rounds[1].chunk_added is None
    assert result.chunk_ids == (chunk_with(store, "五万元").id,)
    assert len(llm.calls_for("propose_subquestions")) == 2  # no third round
    first, second = (c.params.json_schema for c in llm.calls_for("select_atom"))
    assert first is not None and second is not None
    assert 0 not in first["properties"]["pick"]["enum"]  # nothing gathered yet: "none" is not offered
    assert 0 in second["properties"]["pick"]["enum"]


def test_the_loop_stops_at_the_round_limit(store: Store) -> None:
    asked = iter(["投标保证金的金额是多少？", "履约保证金是多少？", "Termination notice?", "Delivery schedule?"])
    llm = fake(lambda _m, _p: json.dumps({"sub_questions": [next(asked)]}, ensure_ascii=False), replies({"pick": 1}))
    result = decompose(
        "保证金？", "zh", store, ENC, llm, DecomposeOptions.from_settings(Settings(), rounds=2, threshold=0.4)
    )
    assert len(result.rounds) == 2 and len(result.chunk_ids) == 2
    assert result.rounds[-1].stop == STOP_ROUNDS


def test_no_candidate_stops_the_loop(store: Store) -> None:
    llm = fake(replies({"sub_questions": ["zzqx wvvy kkpl?"]}), replies({"pick": 1}))
    options = DecomposeOptions.from_settings(
        Settings(), threshold=0.99
    )  # nothing is that similar; the chunk backup still finds chunks
    result = decompose("qqxz vvwy?", "en", store, ENC, llm, options)
    assert result.rounds[0].backup == "sub-questions → chunks"
    assert {c.source for c in result.rounds[0].candidates} == {"chunks"}
    # once the chunks the search finds are all gathered, nothing is left to offer
    numbers = iter(range(1, 1000))
    llm = fake(lambda _m, _p: json.dumps({"sub_questions": [f"pump step {next(numbers)}?"]}), replies({"pick": 1}))
    result = decompose(
        "pump maintenance?",
        "en",
        store,
        ENC,
        llm,
        DecomposeOptions.from_settings(Settings(), rounds=40, threshold=0.99),
    )
    assert result.rounds[-1].stop == STOP_NO_CANDIDATE and not result.rounds[-1].candidates
    assert len(result.rounds) < 40 and len(set(result.chunk_ids)) == len(result.chunk_ids) == len(result.rounds) - 1


def test_the_question_itself_is_the_first_backup(store: Store) -> None:
    llm = fake(replies({"sub_questions": ["zzqx wvvy kkpl?"]}, {"sub_questions": []}), replies({"pick": 1}))
    result = decompose("投标保证金的金额是多少？", "zh", store, ENC, llm, OPTIONS)
    first = result.rounds[0]
    assert first.backup == "question → atomic questions"
    assert first.candidates and {c.source for c in first.candidates} == {"question"}
    assert result.chunk_ids == (chunk_with(store, "五万元").id,)


def test_backups_search_the_chunks_of_a_kb_without_atomic_questions(kb_without_questions: Path) -> None:
    llm = fake(replies({"sub_questions": ["How long is the warranty?"]}, {"sub_questions": []}), replies({"pick": 1}))
    with Store.open(kb_without_questions, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        result = decompose("What does the warranty cover?", "en", store, ENC, llm, OPTIONS)
        first = result.rounds[0]
        assert first.backup == "sub-questions → chunks"
        assert first.candidates and {c.source for c in first.candidates} == {"chunks"}
        assert first.chunk_added == first.candidates[0].chunk_id
        assert "warrant" in store.chunks.get_chunks([first.chunk_added])[0].text.lower()
    assert any("no atomic questions" in n for n in result.notes)


def test_round_one_without_proposals_searches_for_the_question(store: Store) -> None:
    llm = fake(replies({"sub_questions": []}), replies({"pick": 1}))
    result = decompose("投标保证金的金额是多少？", "zh", store, ENC, llm, OPTIONS)
    assert result.rounds[0].proposals == ("投标保证金的金额是多少？",)
    assert result.rounds[0].chunk_added == chunk_with(store, "五万元").id
    assert result.rounds[1].stop == STOP_ENOUGH


def test_an_unusable_selection_takes_the_top_candidate_and_says_so(store: Store) -> None:
    llm = fake(replies({"sub_questions": ["投标保证金的金额是多少？"]}, {"sub_questions": []}), replies("no json"))
    result = decompose("投标保证金是多少？", "zh", store, ENC, llm, OPTIONS)
    assert result.rounds[0].picked == 0
    assert any("selection reply was unusable" in n for n in result.notes)
    assert len(llm.calls_for("select_atom")) == 2  # asked once more with the reason before giving up
