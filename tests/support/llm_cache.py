"""A dict-backed completion cache for LLM tests (the KB uses SQLite)."""

from __future__ import annotations

import threading

from pikelocal.domain import CachedCompletion


class DictCache:
    """The :class:`~pikelocal.llm.cached.CompletionCache` protocol over a dict (the KB uses SQLite)."""

    def __init__(self) -> None:
        self.rows: dict[str, CachedCompletion] = {}
        self.puts = 0
        self._lock = threading.Lock()

    def get_cached_completion(self, key: str) -> CachedCompletion | None:
        with self._lock:
            return self.rows.get(key)

    def put_cached_completion(self, c: CachedCompletion) -> None:
        with self._lock:
            self.rows[c.key] = c
            self.puts += 1
