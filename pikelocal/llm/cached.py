"""A caching wrapper around any LLM: every finished completion is stored the moment it arrives.

This is what makes ingestion resumable: a killed run repeats no LLM call that had finished.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Generator, Iterator, Sequence
from typing import Protocol, runtime_checkable

from pikelocal.domain import CachedCompletion
from pikelocal.llm.base import LLM, Completion, GenParams, Message, json_default, pass_through

log = logging.getLogger(__name__)


@runtime_checkable
class CompletionCache(Protocol):
    """Where completions are kept (the KB's ``llm_cache`` table). Must be safe to call from threads."""

    def get_cached_completion(self, key: str) -> CachedCompletion | None: ...

    def put_cached_completion(self, c: CachedCompletion) -> None: ...


def cache_key(model_id: str, messages: Sequence[Message], params: GenParams) -> str:
    """sha256 hex of canonical JSON of the model id, the messages and the output-changing params."""
    payload = {
        "model": model_id,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "params": params.cache_fields(),
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=json_default)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CachedLLM:
    """Implements :class:`LLM` over ``inner``, answering repeated requests from ``cache``.

    A hit returns ``Completion(cached=True)`` with the stored token counts and the stored
    ``seconds`` (what the call cost when it ran). Concurrent identical ``complete`` calls are
    collapsed: the second waits for the first and then hits the cache.
    """

    def __init__(self, inner: LLM, cache: CompletionCache) -> None:
        self.inner = inner
        self.cache = cache
        self.model_id = inner.model_id
        self.context_tokens = inner.context_tokens
        self.max_parallel = inner.max_parallel
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight] = {}

    def key(self, messages: Sequence[Message], params: GenParams) -> str:
        return cache_key(self.model_id, messages, params)

    def lookup(self, messages: Sequence[Message], params: GenParams) -> Completion | None:
        """The cached completion for this request, or ``None``; touches neither counters nor inner."""
        stored = self.cache.get_cached_completion(self.key(messages, params))
        return None if stored is None else _from_stored(stored)

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        key = self.key(messages, params)
        flight = self._enter(key)
        try:
            with flight.lock:
                stored = self.cache.get_cached_completion(key)
                if stored is not None:
                    self._count(hit=True)
                    return _from_stored(stored)
                self._count(hit=False)
                completion = self.inner.complete(messages, params)
                self.cache.put_cached_completion(_to_stored(key, params, completion))
                return completion
        finally:
            self._leave(key, flight)

    def stream(self, messages: Sequence[Message], params: GenParams) -> Generator[str, None, Completion]:
        """On a hit yield the whole text once; on a miss pass the inner deltas through.

        The result is stored only when the inner stream finished normally (not when the consumer
        stopped early or the backend failed). Backends of this package return their
        :class:`Completion` as the generator's return value; for a plain iterator the token counts
        are stored as 0 (unknown).
        """
        key = self.key(messages, params)
        stored = self.cache.get_cached_completion(key)
        if stored is not None:
            self._count(hit=True)
            if stored.text:
                yield stored.text
            return _from_stored(stored)
        self._count(hit=False)
        start = time.perf_counter()
        parts: list[str] = []
        inner: Iterator[str] = self.inner.stream(messages, params)
        result = yield from pass_through(inner, parts)
        text = "".join(parts)
        if not isinstance(result, Completion):
            log.debug("inner stream of %s returned no Completion; storing 0 token counts", self.model_id)
            result = Completion(text, self.model_id, 0, 0, time.perf_counter() - start)
        self.cache.put_cached_completion(_to_stored(key, params, result))
        return result

    def close(self) -> None:
        self.inner.close()

    def _count(self, *, hit: bool) -> None:
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1

    def _enter(self, key: str) -> _Flight:
        # One flight per key in progress, so identical parallel requests call the backend once.
        with self._lock:
            flight = self._flights.get(key)
            if flight is None:
                flight = self._flights[key] = _Flight()
            flight.users += 1
            return flight

    def _leave(self, key: str, flight: _Flight) -> None:
        with self._lock:
            flight.users -= 1
            if flight.users == 0:  # nobody waits on it: drop it so the dict stays small
                del self._flights[key]


class _Flight:
    __slots__ = ("lock", "users")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.users = 0


def _from_stored(c: CachedCompletion) -> Completion:
    return Completion(
        text=c.text,
        model_id=c.model_id,
        prompt_tokens=c.prompt_tokens,
        completion_tokens=c.completion_tokens,
        seconds=c.seconds,
        cached=True,
    )


def _to_stored(key: str, params: GenParams, c: Completion) -> CachedCompletion:
    return CachedCompletion(
        key=key,
        model_id=c.model_id,
        tag=params.tag,
        text=c.text,
        prompt_tokens=c.prompt_tokens,
        completion_tokens=c.completion_tokens,
        seconds=c.seconds,
    )
