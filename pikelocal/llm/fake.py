"""A scripted LLM for unit and component tests: answers by ``params.tag`` and records every call."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass

from pikelocal.llm.base import Completion, GenParams, Message

Script = Mapping[str, str | Callable[[Sequence[Message], GenParams], str]]


@dataclass(frozen=True)
class FakeCall:
    """One recorded call: what the code under test asked for."""

    tag: str
    messages: tuple[Message, ...]
    params: GenParams
    streamed: bool = False


def word_count(text: str) -> int:
    """The fake's token count: whitespace-separated words."""
    return len(text.split())


class FakeLLM:
    """Answers each call from ``script[params.tag]`` (a string, or a function of the request).

    An unscripted tag raises ``AssertionError`` naming the tag and the scripted ones, so a test
    fails loudly when the code under test sends a prompt nobody expected. Token counts are word
    counts. Thread-safe; ``latency_s`` sleeps per call so parallel fan-out can be observed.
    """

    def __init__(
        self,
        script: Script,
        *,
        model_id: str = "fake",
        latency_s: float = 0.0,
        max_parallel: int = 1,
        context_tokens: int = 8192,
    ) -> None:
        self.script = dict(script)
        self.model_id = model_id
        self.latency_s = latency_s
        self.max_parallel = max_parallel
        self.context_tokens = context_tokens
        self.calls: list[FakeCall] = []
        self._lock = threading.Lock()

    def _answer(self, messages: Sequence[Message], params: GenParams, streamed: bool) -> str:
        with self._lock:
            self.calls.append(FakeCall(params.tag, tuple(messages), params, streamed))
        if params.tag not in self.script:
            raise AssertionError(f"FakeLLM: no script for tag {params.tag!r} (scripted: {sorted(self.script)})")
        if self.latency_s:
            time.sleep(self.latency_s)
        answer = self.script[params.tag]
        return answer if isinstance(answer, str) else answer(messages, params)

    def calls_for(self, tag: str) -> list[FakeCall]:
        """The recorded calls with this tag, in order."""
        with self._lock:
            return [c for c in self.calls if c.tag == tag]

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        start = time.perf_counter()
        text = self._answer(messages, params, streamed=False)
        return self._completion(messages, text, time.perf_counter() - start)

    def stream(self, messages: Sequence[Message], params: GenParams) -> Generator[str, None, Completion]:
        """Yield the scripted answer word by word (whitespace kept, so the deltas join to it)."""
        start = time.perf_counter()
        text = self._answer(messages, params, streamed=True)
        yield from re.findall(r"\s*\S+\s*|\s+", text)
        return self._completion(messages, text, time.perf_counter() - start)

    def count_tokens(self, text: str) -> int:
        return word_count(text)

    def close(self) -> None:
        pass

    def _completion(self, messages: Sequence[Message], text: str, seconds: float) -> Completion:
        return Completion(
            text=text,
            model_id=self.model_id,
            prompt_tokens=sum(word_count(m.content) for m in messages),
            completion_tokens=word_count(text),
            seconds=seconds,
        )
