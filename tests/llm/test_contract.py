"""One contract every LLM backend passes: HTTP → canned stand-in (fast), llama.cpp and HTTP → real SmolLM2 (slow).

SmolLM2-135M's answers are useless; these tests check mechanics only. Greedy decoding
(temperature 0) makes a backend repeat itself, so a stream and a ``complete`` of the same request
give the same text (llama.cpp re-evaluates at most the last prompt token on the second call, which
has not changed a greedy choice in our runs; if that ever flakes, this is the assertion to relax).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from pikelocal.llm.base import LLM, Completion, GenParams, Message
from pikelocal.llm.cached import CachedLLM
from pikelocal.llm.openai_compat import OpenAICompatLLM
from tests.support.jsonschema_mini import errors
from tests.support.llm_cache import DictCache

MESSAGES = (
    Message("system", "You are a helpful assistant. Answer briefly."),
    Message("user", "Name three colours of the rainbow."),
)

SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "maxLength": 40},
        "keywords": {"type": "array", "items": {"type": "string", "maxLength": 12}, "maxItems": 3},
        "confident": {"type": "boolean"},
    },
    "required": ["answer", "keywords", "confident"],
    "additionalProperties": False,
}


@pytest.fixture(
    params=[
        pytest.param("http-canned"),
        pytest.param("llama-cpp", marks=pytest.mark.slow),
        pytest.param("http-llama", marks=pytest.mark.slow),
    ]
)
def backend(request: pytest.FixtureRequest) -> LLM:
    if request.param == "http-canned":
        return OpenAICompatLLM(request.getfixturevalue("standin").url, "standin", timeout_s=10)
    if request.param == "llama-cpp":
        return request.getfixturevalue("smollm2")
    server = request.getfixturevalue("smollm2_server")
    return OpenAICompatLLM(server.url, "smollm2", timeout_s=60, max_parallel=1)


class Counting:
    """Passes calls through to ``inner`` and counts them."""

    def __init__(self, inner: LLM) -> None:
        self.inner = inner
        self.model_id, self.context_tokens, self.max_parallel = inner.model_id, inner.context_tokens, 1
        self.calls = 0

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        self.calls += 1
        return self.inner.complete(messages, params)

    def stream(self, messages: Sequence[Message], params: GenParams) -> Iterator[str]:
        self.calls += 1
        return self.inner.stream(messages, params)

    def close(self) -> None:
        pass


def test_is_an_llm(backend: LLM) -> None:
    assert isinstance(backend, LLM)
    assert backend.model_id and backend.context_tokens > 0 and backend.max_parallel >= 1


def test_complete_returns_text_and_counts(backend: LLM) -> None:
    c = backend.complete(MESSAGES, GenParams(tag="contract", max_tokens=40))
    assert c.text.strip()
    assert c.prompt_tokens > 0 and c.completion_tokens > 0
    assert 0 < c.completion_tokens <= 40
    assert c.seconds >= 0 and not c.cached
    assert c.model_id == backend.model_id


def test_stream_joins_to_the_same_text_as_complete(backend: LLM) -> None:
    params = GenParams(tag="contract", max_tokens=32, temperature=0.0)
    deltas = list(backend.stream(MESSAGES, params))
    assert deltas and all(isinstance(d, str) for d in deltas)
    streamed = "".join(deltas)
    assert streamed.strip()
    assert streamed == backend.complete(MESSAGES, params).text


def test_stream_returns_its_completion(backend: LLM) -> None:
    """Our backends' stream generators return the finished Completion (CachedLLM stores it)."""
    gen = backend.stream(MESSAGES, GenParams(tag="contract", max_tokens=16))
    parts: list[str] = []
    while True:
        try:
            parts.append(next(gen))
        except StopIteration as stop:
            result = stop.value
            break
    assert isinstance(result, Completion)
    assert result.text == "".join(parts)
    assert result.model_id == backend.model_id


def test_json_schema_output_validates(backend: LLM) -> None:
    messages = (
        Message("system", "Reply in JSON."),
        Message("user", "Which colour is the sky? Give an answer, keywords and whether you are sure."),
    )
    c = backend.complete(messages, GenParams(tag="contract_json", max_tokens=200, json_schema=SCHEMA))
    value = c.json()
    assert errors(value, SCHEMA) == [], c.text


def test_max_tokens_bounds_completion(backend: LLM) -> None:
    messages = (Message("user", "Write a long story about a dragon who learns to bake bread in a small town."),)
    c = backend.complete(messages, GenParams(tag="contract", max_tokens=5))
    assert 0 < c.completion_tokens <= 5


def test_stop_string_is_not_in_the_output(backend: LLM) -> None:
    messages = (Message("user", "Count from 1 to 10, separated by commas."),)
    c = backend.complete(messages, GenParams(tag="contract", max_tokens=40, stop=("5",)))
    assert "5" not in c.text


def test_cached_wrapper_second_call_is_a_hit(backend: LLM) -> None:
    counting = Counting(backend)
    cached = CachedLLM(counting, DictCache())
    params = GenParams(tag="contract", max_tokens=24)
    first = cached.complete(MESSAGES, params)
    second = cached.complete(MESSAGES, params)
    assert not first.cached and second.cached
    assert counting.calls == 1
    assert second.text == first.text
    assert (second.prompt_tokens, second.completion_tokens) == (first.prompt_tokens, first.completion_tokens)
    assert "".join(cached.stream(MESSAGES, params)) == first.text
    assert counting.calls == 1 and (cached.hits, cached.misses) == (2, 1)
