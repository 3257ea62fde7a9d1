"""Encoders for ingestion tests: the hashing fake, counting what the pipeline asks of it, or slowed down."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from pikelocal.embed.base import EncodeRole, TokenVectors, WindowContext
from pikelocal.embed.fake import HashEncoder


class CountingEncoder(HashEncoder):
    """Counts the texts it embeds (``encode``) and its top-level ``encode_tokens`` calls (one per late group)."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0
        self.token_calls = 0
        self._nested = False

    def _count(self, site: str, n: int) -> None:
        """Called before the work of a top-level call; the crashing subclass raises here."""

    def encode(self, texts: Sequence[str], *, role: EncodeRole):  # type: ignore[no-untyped-def]
        self._count("encode", len(texts))
        self._nested = True  # HashEncoder.encode goes through encode_tokens: not a late call
        try:
            out = super().encode(texts, role=role)
        finally:
            self._nested = False
        self.texts += len(texts)
        return out

    def encode_tokens(self, text: str, *, context: WindowContext | None = None) -> TokenVectors:
        if self._nested:
            return super().encode_tokens(text, context=context)
        self._count("encode_tokens", 1)
        out = super().encode_tokens(text, context=context)
        self.token_calls += 1
        return out


class SlowEncoder(HashEncoder):
    """Same vectors and model id as HashEncoder; every top-level call sleeps first (to keep work observable)."""

    def __init__(self, delay: float = 0.05) -> None:
        super().__init__()
        self.delay = delay
        self._nested = False

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        time.sleep(self.delay)
        self._nested = True  # HashEncoder.encode calls encode_tokens: sleep once per call, not per text
        try:
            return super().encode(texts, role=role)
        finally:
            self._nested = False

    def encode_tokens(self, text: str, *, context: WindowContext | None = None) -> TokenVectors:
        if not self._nested:
            time.sleep(self.delay)
        return super().encode_tokens(text, context=context)
