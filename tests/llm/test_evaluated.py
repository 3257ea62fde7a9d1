"""Prompt tokens evaluated: what the model actually ran after the prefix it reused from the call before."""

from __future__ import annotations

from pikelocal.llm.base import Completion, GenParams, Message

SYSTEM = Message("system", "You answer questions about the Qingsong tender. " * 8)
PARAMS = GenParams(max_tokens=4)


def test_a_shared_prefix_is_not_evaluated_again(smollm2) -> None:  # type: ignore[no-untyped-def]
    smollm2.raw.reset()  # nothing reusable: the first call runs its whole prompt
    first = smollm2.complete([SYSTEM, Message("user", "What is the bid bond?")], PARAMS)
    assert first.prompt_evaluated == first.prompt_tokens > 60
    second = smollm2.complete([SYSTEM, Message("user", "What is the performance bond?")], PARAMS)
    tail = smollm2.count_tokens("What is the performance bond?")
    # only the user turn after the shared system turn ran (plus the chat template's few tokens around it)
    assert second.prompt_evaluated is not None and tail <= second.prompt_evaluated <= tail + 8
    again = smollm2.complete([SYSTEM, Message("user", "What is the performance bond?")], PARAMS)
    assert again.prompt_evaluated == 1  # all cached: llama-cpp-python re-runs the last token for its logits
    streamed = smollm2.stream([SYSTEM, Message("user", "Who is the buyer?")], PARAMS)
    try:
        while True:
            next(streamed)
    except StopIteration as stop:
        result = stop.value
    assert isinstance(result, Completion) and result.prompt_evaluated is not None
    assert 0 < result.prompt_evaluated < result.prompt_tokens - 60


def test_evaluated_counts_nothing_for_a_cached_completion() -> None:
    c = Completion("x", "m", prompt_tokens=500, completion_tokens=3, seconds=1.0, prompt_evaluated=120)
    assert c.evaluated == 120
    assert Completion("x", "m", 500, 3, 1.0, cached=True, prompt_evaluated=120).evaluated == 0
    assert Completion("x", "m", 500, 3, 1.0).evaluated == 500  # a server that does not say: all of it


def test_servers_that_say_what_they_ran_are_read() -> None:
    from pikelocal.llm.openai_compat import _evaluated

    # llama.cpp's server: timings.prompt_n counts the prompt tokens after its cached prefix
    assert _evaluated({"usage": {"prompt_tokens": 900}, "timings": {"prompt_n": 37, "cache_n": 863}}) == 37
    # vLLM / OpenAI: the cached part of the prompt
    vllm = {"usage": {"prompt_tokens": 900, "prompt_tokens_details": {"cached_tokens": 768}}}
    assert _evaluated(vllm) == 132
    assert _evaluated({"usage": {"prompt_tokens": 900}}) is None  # not said: unknown, counted as all sent
