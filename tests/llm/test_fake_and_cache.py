"""FakeLLM, cache_key and CachedLLM (on the fake, so these run in the fast tier)."""

from __future__ import annotations

import threading
from types import MappingProxyType

import pytest

from pikelocal.llm.base import LLM, GenParams, Message
from pikelocal.llm.cached import CachedLLM, CompletionCache, cache_key
from pikelocal.llm.fake import FakeLLM
from tests.support.llm_cache import DictCache

MESSAGES = (Message("system", "Be brief."), Message("user", "What is PIKE-RAG?"))


# -- FakeLLM -------------------------------------------------------------------------------------


def test_fake_answers_by_tag_and_records_calls() -> None:
    fake = FakeLLM({"summary": "A short summary.", "echo": lambda m, p: f"{p.max_tokens}:{m[-1].content}"})
    assert isinstance(fake, LLM)
    c = fake.complete(MESSAGES, GenParams(tag="summary"))
    assert (c.text, c.model_id, c.prompt_tokens, c.completion_tokens) == ("A short summary.", "fake", 5, 3)
    assert fake.complete(MESSAGES, GenParams(tag="echo", max_tokens=7)).text == "7:What is PIKE-RAG?"
    assert [call.tag for call in fake.calls] == ["summary", "echo"]
    assert fake.calls[1].messages == MESSAGES and fake.calls[1].params.max_tokens == 7
    assert len(fake.calls_for("echo")) == 1


def test_fake_raises_on_an_unscripted_tag() -> None:
    fake = FakeLLM({"summary": "x"})
    with pytest.raises(AssertionError, match="'atomize'.*summary"):
        fake.complete(MESSAGES, GenParams(tag="atomize"))
    assert fake.calls[-1].tag == "atomize"  # recorded even so


def test_fake_stream_joins_to_the_answer() -> None:
    text = "  Two  spaces,\nnew line and a tail "
    fake = FakeLLM({"t": text})
    deltas = list(fake.stream(MESSAGES, GenParams(tag="t")))
    assert len(deltas) > 1 and "".join(deltas) == text
    assert fake.calls[-1].streamed


# -- cache_key -----------------------------------------------------------------------------------


def test_cache_key_is_stable_and_hex() -> None:
    params = GenParams(tag="a", json_schema={"type": "object", "properties": {"x": {"type": "string"}}})
    key = cache_key("m", MESSAGES, params)
    assert len(key) == 64 and int(key, 16) >= 0
    same_schema_other_order = {"properties": {"x": {"type": "string"}}, "type": "object"}
    assert cache_key("m", list(MESSAGES), GenParams(tag="a", json_schema=same_schema_other_order)) == key
    assert cache_key("m", MESSAGES, GenParams(tag="a", json_schema=MappingProxyType(params.json_schema))) == key


def test_cache_key_ignores_the_tag() -> None:
    assert cache_key("m", MESSAGES, GenParams(tag="a")) == cache_key("m", MESSAGES, GenParams(tag="b"))


@pytest.mark.parametrize(
    "other",
    [
        ("m2", MESSAGES, GenParams()),
        ("m", MESSAGES[1:], GenParams()),
        ("m", (Message("user", "Be brief."), MESSAGES[1]), GenParams()),  # same text, other role
        ("m", (MESSAGES[0], Message("user", "What is PIKE-RAG ?")), GenParams()),
        ("m", MESSAGES, GenParams(max_tokens=513)),
        ("m", MESSAGES, GenParams(temperature=0.7)),
        ("m", MESSAGES, GenParams(seed=1)),
        ("m", MESSAGES, GenParams(stop=("\n",))),
        ("m", MESSAGES, GenParams(json_schema={"type": "object"})),
    ],
    ids=["model", "messages", "role", "content", "max_tokens", "temperature", "seed", "stop", "schema"],
)
def test_cache_key_changes_with_what_changes_the_output(other: tuple) -> None:
    assert cache_key("m", MESSAGES, GenParams()) != cache_key(*other)


def test_cache_key_keeps_non_ascii() -> None:
    zh = (Message("user", "合同金额是多少？"),)
    assert cache_key("m", zh, GenParams()) != cache_key("m", (Message("user", "合同金额是多少?"),), GenParams())


# -- CachedLLM -----------------------------------------------------------------------------------


def test_cached_miss_then_hit(dict_cache: DictCache) -> None:
    assert isinstance(dict_cache, CompletionCache)
    fake = FakeLLM({"s": "one two three"}, model_id="fake-1")
    llm = CachedLLM(fake, dict_cache)
    assert isinstance(llm, LLM) and llm.model_id == "fake-1"
    first = llm.complete(MESSAGES, GenParams(tag="s"))
    assert not first.cached and dict_cache.puts == 1
    row = next(iter(dict_cache.rows.values()))
    assert (row.tag, row.model_id, row.text, row.completion_tokens) == ("s", "fake-1", "one two three", 3)
    second = llm.complete(MESSAGES, GenParams(tag="s"))
    assert second.cached and second.text == first.text and second.completion_tokens == 3
    assert len(fake.calls) == 1 and (llm.hits, llm.misses) == (1, 1)
    assert llm.lookup(MESSAGES, GenParams(tag="s")) == second


def test_cached_stream_stores_only_a_finished_stream(dict_cache: DictCache) -> None:
    fake = FakeLLM({"s": "alpha beta gamma delta"})
    llm = CachedLLM(fake, dict_cache)
    stream = llm.stream(MESSAGES, GenParams(tag="s"))
    assert next(stream) == "alpha "
    stream.close()  # the reader stopped early (e.g. the user pressed Esc)
    assert dict_cache.rows == {}

    assert "".join(llm.stream(MESSAGES, GenParams(tag="s"))) == "alpha beta gamma delta"
    assert dict_cache.puts == 1
    assert next(iter(dict_cache.rows.values())).completion_tokens == 4
    assert list(llm.stream(MESSAGES, GenParams(tag="s"))) == ["alpha beta gamma delta"]  # a hit: one piece
    assert len(fake.calls) == 2


def test_cached_error_is_not_stored(dict_cache: DictCache) -> None:
    def fail(messages, params) -> str:  # noqa: ANN001
        raise RuntimeError("backend fell over")

    llm = CachedLLM(FakeLLM({"s": fail}), dict_cache)
    with pytest.raises(RuntimeError):
        llm.complete(MESSAGES, GenParams(tag="s"))
    with pytest.raises(RuntimeError):
        list(llm.stream(MESSAGES, GenParams(tag="s")))
    assert dict_cache.rows == {}


def test_cached_collapses_identical_parallel_requests(dict_cache: DictCache) -> None:
    fake = FakeLLM({"s": "same answer", "t": "other"}, latency_s=0.2, max_parallel=8)
    llm = CachedLLM(fake, dict_cache)
    results = []

    def ask(tag: str) -> None:
        results.append(llm.complete(MESSAGES, GenParams(tag=tag, seed=0 if tag == "s" else 1)))

    threads = [threading.Thread(target=ask, args=("s",)) for _ in range(4)]
    threads.append(threading.Thread(target=ask, args=("t",)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(results) == 5
    assert [c.tag for c in fake.calls].count("s") == 1  # one backend call for four identical requests
    assert sum(c.cached for c in results) == 3
    assert llm._flights == {}  # nothing left behind
