"""The store's LLM completion cache (``llm_cache``): what makes a killed ingestion repeat no finished LLM call.

A part of :class:`~pikelocal.store.store.Store` (``store.cache``); it is the
:class:`~pikelocal.llm.cached.CompletionCache` that :class:`~pikelocal.llm.cached.CachedLLM` writes through.
Safe to call from several threads: every access goes through the store's lock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pikelocal.domain import CachedCompletion
from pikelocal.domain.reports import LLMUsage

if TYPE_CHECKING:
    from pikelocal.store.handle import Db


class LLMCache:
    """The stored completions of one open store, and what they cost."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def get_cached_completion(self, key: str) -> CachedCompletion | None:
        rows = self._db.rows(
            "SELECT key, model_id, tag, text, prompt_tokens, completion_tokens, seconds FROM llm_cache WHERE key = ?",
            (key,),
        )
        return CachedCompletion(*rows[0]) if rows else None

    def put_cached_completion(self, c: CachedCompletion) -> None:
        """Store (or replace) a completion; committed at once unless inside this thread's transaction."""
        with self._db.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO llm_cache(key, model_id, tag, text, prompt_tokens, completion_tokens,"
                " seconds) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (c.key, c.model_id, c.tag, c.text, c.prompt_tokens, c.completion_tokens, c.seconds),
            )

    def llm_usage(self) -> list[LLMUsage]:
        """Per prompt: calls, tokens and seconds of every completion the KB has stored (its LLM cache)."""
        rows = self._db.rows(
            "SELECT tag, count(*), sum(prompt_tokens), sum(completion_tokens), sum(seconds) FROM llm_cache"
            " GROUP BY tag ORDER BY tag"
        )
        return [LLMUsage(str(t), int(n), int(p or 0), int(c or 0), float(s or 0.0)) for t, n, p, c, s in rows]
