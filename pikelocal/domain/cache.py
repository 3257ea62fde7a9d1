"""A completion as the knowledge base caches it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CachedCompletion:
    """One LLM completion as stored in the knowledge base's ``llm_cache`` table.

    ``key`` is a sha256 over model id, messages and generation parameters (see ``llm/cached.py``).
    """

    key: str
    model_id: str
    tag: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
