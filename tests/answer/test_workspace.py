"""Decompose on one growing prompt: every call extends the previous one's prefix, and rounds that add nothing
are not run (scripted fake LLM on a real KB file)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.answer import answer_rules, answer_system
from pikelocal.prompts.decompose import shared_system
from pikelocal.query.answer.decompose import STOP_BUDGET, STOP_ENOUGH, DecomposeOptions, decompose
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.query.context.expand import Budget
from pikelocal.query.context.workspace import Workspace
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build, chunk_with

DECOMPOSE = DecomposeOptions.from_settings(Settings(), threshold=0.4)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("workspace"))


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


def script(*proposals: object, pick: int = 1, answer: str = "履约保证金为合同价款的百分之十 [1]。") -> FakeLLM:
    calls = iter(range(10_000))

    def propose(_m: Sequence[Message], _p: GenParams) -> str:
        n = next(calls)
        return json.dumps(proposals[min(n, len(proposals) - 1)], ensure_ascii=False)

    return FakeLLM({
        "propose_subquestions": propose,
        "select_atom": json.dumps({"pick": pick}),
        "answer": answer,
    })  # fmt: skip


def rendered(messages: Sequence[Message]) -> str:
    return "".join(f"<{m.role}>{m.content}</{m.role}>" for m in messages)


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def test_every_call_extends_the_sources_the_call_before_read(store: Store) -> None:
    llm = script(
        {"sub_questions": ["投标保证金的金额是多少？"]}, {"sub_questions": ["交货期限是多久？"]}, {"sub_questions": []}
    )
    # neighbours: segments of the first search would read most of this 17-chunk KB and leave the rounds nothing
    options = AskOptions.from_settings(Settings(), mode="decompose", k=1, decompose=DECOMPOSE, context="neighbours")
    trace = ask(store, ENC, llm, "履约保证金和投标保证金分别是多少？", options, save=False)
    assert [c.tag for c in llm.calls][-1] == "answer" and len(llm.calls) >= 4
    assert sum(r.chunk_added is not None for r in trace.rounds) >= 1
    texts = [rendered(c.messages) for c in llm.calls]
    for before, after in zip(texts, texts[1:], strict=False):
        # the system text and every source the earlier call read are the start of the later call's prompt
        sources_end = before.index("\n\n问题: ")
        assert common_prefix(before, after) >= sources_end
    # one system text for all of them, and the answer reads the same numbered sources the rounds built
    assert len({c.messages[0].content for c in llm.calls}) == 1
    answer_prompt = llm.calls[-1].messages[-1].content
    for s in trace.answer.sources:
        assert f"[{s.number}] " in answer_prompt and s.text[:20] in answer_prompt
    assert answer_prompt.endswith("回答:")


def test_round_one_may_stop_at_once_when_the_search_hits_answer(store: Store) -> None:
    llm = script({"sub_questions": []})
    trace = ask(
        store,
        ENC,
        llm,
        "履约保证金是多少？",
        AskOptions.from_settings(Settings(), mode="decompose", decompose=DECOMPOSE),
        save=False,
    )
    assert [c.tag for c in llm.calls] == ["propose_subquestions", "answer"]
    assert len(trace.rounds) == 1 and trace.rounds[0].stop == STOP_ENOUGH
    performance = chunk_with(store, "百分之十")
    assert any(performance.id in s.chunk_ids for s in trace.answer.sources)  # the search hit, read from the start
    assert "百分之十" in llm.calls[0].messages[-1].content  # and the planner saw it


def test_a_single_candidate_with_no_none_to_choose_needs_no_call(store: Store) -> None:
    llm = script({"sub_questions": ["zzqx wvvy kkpl?"]}, {"sub_questions": []})
    result = decompose(
        "qqxz vvwy?",
        "en",
        store,
        ENC,
        llm,
        DecomposeOptions.from_settings(Settings(), threshold=0.99, max_candidates=1),
    )
    assert len(result.rounds[0].candidates) == 1 and result.rounds[0].picked == 0
    assert result.rounds[0].chunk_added is not None
    assert llm.calls_for("select_atom") == []


def test_a_full_budget_ends_the_rounds(store: Store) -> None:
    system = shared_system(answer_system("zh"), answer_rules("zh"), "zh")
    hits = [chunk_with(store, "百分之十").id, chunk_with(store, "五万元").id]
    workspace = Workspace.start(store, "zh", system, Budget(tokens=200, neighbours=0), hits)
    assert workspace.sources and workspace.used <= 100  # the search hits take at most half the budget
    asks = ["交货期限是多久？", "保修期多长？", "不可抗力包括什么？", "终止合同要提前多久通知？", "维修手册写了什么？"]
    llm = script(*({"sub_questions": [q]} for q in asks))
    result = decompose(
        "保证金？",
        "zh",
        store,
        ENC,
        llm,
        DecomposeOptions.from_settings(Settings(), rounds=5, threshold=0.0),
        workspace=workspace,
    )
    assert result.rounds[-1].stop == STOP_BUDGET
    assert workspace.used <= 200
    numbers = [s.number for s in workspace.sources]
    assert numbers == list(range(1, len(numbers) + 1))  # appended sources are numbered on
    ids = [cid for s in workspace.sources for cid in s.chunk_ids]
    assert len(ids) == len(set(ids))  # no chunk twice
