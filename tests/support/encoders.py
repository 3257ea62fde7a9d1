"""Encoders for ingestion tests: the hashing fake, counting what the pipeline asks of it."""

from __future__ import annotations

from collections.abc import Sequence

from pikelocal.embed.base import EncodeRole, TokenVectors
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

    def encode_tokens(self, text: str) -> TokenVectors:
        if self._nested:
            return super().encode_tokens(text)
        self._count("encode_tokens", 1)
        out = super().encode_tokens(text)
        self.token_calls += 1
        return out
