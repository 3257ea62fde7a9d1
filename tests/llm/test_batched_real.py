"""Batched in-process calls on a real model (SmolLM2-135M): the engine against llama-cpp-python's own path."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from pikelocal.domain.errors import BackendError
from pikelocal.llm.base import Completion, GenParams, Message
from pikelocal.llm.llama_cpp import LlamaCppLLM
from pikelocal.llm.parallel import complete_many
from pikelocal.prompts.atomize import atomize_prompt

SCHEMA = atomize_prompt(3).schema
SYSTEM = Message("system", "You are a careful assistant for tender documents. Answer briefly. " * 4)
QUESTIONS = [
    "What is a bid bond?",
    "投标保证金是什么？",
    "Name one duty of a tenderer.",
    "What does a performance bond secure?",
    "什么是履约保证金？",
    "Who opens the bids?",
]


def requests(json_every: int = 2) -> list[tuple[list[Message], GenParams]]:
    return [
        (
            [SYSTEM, Message("user", q)],
            GenParams(tag="t", max_tokens=48, json_schema=SCHEMA if i % json_every == 0 else None),
        )
        for i, q in enumerate(QUESTIONS)
    ]


# One fixed thread for both: another thread count may sum in another order and flip a near tie.
@pytest.fixture(scope="module")
def single(smollm2_path) -> Iterator[LlamaCppLLM]:  # type: ignore[no-untyped-def]
    llm = LlamaCppLLM(smollm2_path, n_ctx=2048, n_threads=1, adapt_threads=False)
    yield llm
    llm.close()


@pytest.fixture(scope="module")
def batched(smollm2_path) -> Iterator[LlamaCppLLM]:  # type: ignore[no-untyped-def]
    llm = LlamaCppLLM(smollm2_path, n_ctx=2048, n_threads=1, adapt_threads=False, batch_width=3)
    yield llm
    llm.close()


def test_a_width_above_one_runs_calls_side_by_side(batched: LlamaCppLLM) -> None:
    assert batched.max_parallel == 3
    done = complete_many(batched, requests())
    engine = batched._engine
    assert engine is not None and engine.peak_running == 3
    assert all(c.completion_tokens > 0 and c.text for c in done)
    for c, (_, params) in zip(done, requests(), strict=True):
        if params.json_schema is not None and c.text.rstrip().endswith("}"):  # not cut at max_tokens
            assert isinstance(json.loads(c.text)["questions"], list)


def test_the_prompt_is_the_one_llama_cpp_python_builds(single: LlamaCppLLM, batched: LlamaCppLLM) -> None:
    for messages, params in requests():
        one = single.complete(messages, params)
        assert batched.prompt_tokens(messages) == list(single.raw._input_ids[: one.prompt_tokens])


def submitted_together(llm: LlamaCppLLM) -> list[Completion]:
    """The requests decoded in the engine, all submitted before it may admit one (holding its condition), in order.

    Through threads (``complete_many``) which calls share a step depends on timing; submitted at once, the
    engine admits the first three together and each next one when a running one ends, which depends only on the
    tokens: the same schedule on every run."""
    engine = llm._engine_now()
    with engine._cond:  # a re-entrant lock: submit takes it again in this thread; the engine's loop cannot
        pending = [(llm._submit(m, p, stream=False), p) for m, p in requests()]
    for (request, _), _ in pending:
        assert request.done.wait(120)
    return [llm._finished(request, constraint, params) for (request, constraint), params in pending]


def test_greedy_replies_match_the_one_sequence_path(single: LlamaCppLLM, batched: LlamaCppLLM) -> None:
    """Decoded side by side, a sequence's logits are summed in another order than alone, so a near tie may flip:
    half the replies at least must be the same text, and every prompt the same length. The schedule is fixed
    (:func:`submitted_together`), so the count does not vary with the machine's load (SmolLM2-135M is full of
    near ties). A wrong KV reuse or copy garbles nearly every reply; the scripted engine tests
    (test_batch_engine.py) check the positions exactly."""
    alone = [single.complete(m, p) for m, p in requests()]
    together = submitted_together(batched)
    assert batched._engine is not None and batched._engine.peak_running == 3
    same = sum(a.text == b.text for a, b in zip(alone, together, strict=True))
    assert same >= len(QUESTIONS) // 2, [(a.text, b.text) for a, b in zip(alone, together, strict=True)]
    assert [a.prompt_tokens for a in alone] == [b.prompt_tokens for b in together]


def test_a_shared_prefix_is_read_once(batched: LlamaCppLLM) -> None:
    first = batched.complete([SYSTEM, Message("user", "What is a tender?")], GenParams(tag="t", max_tokens=4))
    second = batched.complete([SYSTEM, Message("user", "What is a bid?")], GenParams(tag="t", max_tokens=4))
    assert first.prompt_evaluated is not None and second.prompt_evaluated is not None
    system_tokens = len(batched.prompt_tokens([SYSTEM]))
    assert second.prompt_evaluated <= second.prompt_tokens - system_tokens + 4


def test_a_stream_gives_the_text_in_pieces_and_exact_counts(batched: LlamaCppLLM) -> None:
    messages, params = [SYSTEM, Message("user", "Describe a bid bond in two sentences.")], GenParams(max_tokens=32)
    gen = batched.stream(messages, params)
    parts: list[str] = []
    while True:
        try:
            parts.append(next(gen))
        except StopIteration as stop:
            result: Completion = stop.value
            break
    assert len(parts) > 1 and "".join(parts) == result.text
    assert result.completion_tokens == batched.count_tokens(result.text) or result.completion_tokens == 32
    assert result.prompt_tokens == len(batched.prompt_tokens(messages))


def test_a_stream_closed_early_frees_its_sequence(batched: LlamaCppLLM) -> None:
    messages = [SYSTEM, Message("user", "Count from one to fifty in words.")]
    gen = batched.stream(messages, GenParams(max_tokens=200))
    next(gen)
    gen.close()
    engine = batched._engine
    assert engine is not None and all(owner is None for owner in engine.owner)
    again = batched.complete([SYSTEM, Message("user", "Say yes.")], GenParams(max_tokens=4))
    assert again.text


def test_a_prompt_longer_than_the_context_is_a_backend_error(batched: LlamaCppLLM) -> None:
    with pytest.raises(BackendError, match=r"cannot run prompt 'long'.*exceed context window of 2048"):
        batched.complete([Message("user", "bond " * 3000)], GenParams(tag="long", max_tokens=4))
