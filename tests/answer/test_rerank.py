"""Listwise reranking by the LLM: the reply's parsing, the reordering, and ask() reading the reranked top hit."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.documents import ChunkRecord
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.base import ReplyError
from pikelocal.prompts.rerank import parse_ranking, rerank_prompt
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.query.retrieve.rerank import PASSAGE_CHARS, passage, reorder, rerank
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build


def chunk(i: int, text: str) -> ChunkRecord:
    return ChunkRecord(i, 1, i, text, 0, len(text), None, None, None, None, (), f"Doc › Part {i}\nsummary", None)


CHUNKS = [chunk(i, f"Passage number {i} about topic {i}.") for i in range(1, 6)]


def test_parse_keeps_valid_unique_numbers_in_order() -> None:
    assert parse_ranking({"ranking": [3, 1, 3, 9, 0, True, "2", 2]}, "en", {"n": 4}) == (3, 1, 2)
    for bad in ({"ranking": []}, {"ranking": [7]}, {"order": [1]}, [1, 2]):
        with pytest.raises(ReplyError):
            parse_ranking(bad, "en", {"n": 4})
    schema = rerank_prompt(5).schema["properties"]["ranking"]  # type: ignore[index]
    assert schema["items"]["maximum"] == 5 and schema["maxItems"] == 5


def test_reorder_puts_the_named_first_and_keeps_the_rest_in_order() -> None:
    assert reorder(["a", "b", "c", "d"], [3, 1]) == ["c", "a", "b", "d"]
    assert reorder(["a", "b"], []) == ["a", "b"]
    assert reorder(["a", "b"], [5, 2]) == ["b", "a"]


def test_a_passage_is_its_header_line_and_the_start_of_its_text() -> None:
    long = chunk(9, "word " * 200)
    shown = passage(long)
    assert shown.startswith("Doc › Part 9\nword word") and "summary" not in shown
    assert shown.endswith(" …") and len(shown.split("\n", 1)[1]) == PASSAGE_CHARS + 2


def reply(ranking: object) -> object:
    return lambda _m, _p: json.dumps({"ranking": ranking})


def test_rerank_reorders_the_top_n_only_and_survives_a_bad_reply() -> None:
    llm = FakeLLM({"rerank": reply([3, 1])})  # type: ignore[dict-item]
    assert rerank(llm, "Which passage is about topic 3?", CHUNKS, 4) == [3, 1, 2, 4, 5]
    (call,) = llm.calls_for("rerank")
    prompt = call.messages[-1].content
    assert prompt.rstrip().endswith("Question: Which passage is about topic 3?")
    assert "[4] Doc › Part 4" in prompt and "[5]" not in prompt  # only the top n are shown
    bad = FakeLLM({"rerank": lambda _m, _p: '{"ranking": []}'})  # type: ignore[dict-item]
    assert rerank(bad, "q", CHUNKS, 4) == [1, 2, 3, 4, 5] and len(bad.calls_for("rerank")) == 2
    none = FakeLLM({})
    assert rerank(none, "q", CHUNKS, 1) == [1, 2, 3, 4, 5] and none.calls == []


def test_naive_ask_reads_the_hit_the_llm_ranked_first(tmp_path: Path) -> None:
    kb = build(tmp_path, questions=False)
    question = "Do floods, fire, war and strikes count?"
    shown: list[int] = []

    def last_first(messages: Sequence[Message], _params: GenParams) -> str:
        """Rank the last passage shown first (the search's weakest of those reranked)."""
        numbers = [int(n) for n in re.findall(r"^\[(\d+)\] ", messages[-1].content, flags=re.M)]
        shown.append(len(numbers))
        return json.dumps({"ranking": [numbers[-1]]})

    script = {"rerank": last_first, "answer": lambda _m, _p: "The documents do not state it."}
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        hits = search(store, ENC, question, k=8)
        assert len(hits) >= 3
        base = AskOptions.from_settings(
            Settings(), mode="naive", k=1, context="neighbours", neighbours=0, check=False, quote=False
        )
        plain = ask(store, ENC, FakeLLM(script), question, base, save=False)  # type: ignore[arg-type]
        reranked = ask(store, ENC, FakeLLM(script), question, replace(base, rerank=8), save=False)  # type: ignore[arg-type]
    assert plain.answer.sources[0].chunk_ids == (hits[0].chunk.id,)
    last = hits[min(8, len(hits)) - 1].chunk.id
    assert shown == [min(8, len(hits))] and reranked.answer.sources[0].chunk_ids == (last,)
    assert [c.tag for c in reranked.calls] == ["rerank", "answer"]
    assert [c.tag for c in plain.calls] == ["answer"]
