"""HashEncoder: a deterministic, model-free encoder for fast tests (character-bigram feature hashing)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from pikelocal.embed.base import EncodeRole, TokenVectors, WindowContext
from pikelocal.embed.late import normalise

# CJK ideographs (incl. ext. A and compatibility), kana and Hangul syllables: one token per character.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_TOKEN_RE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")
_CJK_RE = re.compile(rf"[{_CJK}]")


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """Words, single CJK characters and single punctuation marks, with their character offsets."""
    return [(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]


@lru_cache(maxsize=65536)
def _slot(feature: str, dim: int) -> tuple[int, float]:
    # A stable hash (Python's hash() is salted per process): bucket index and a sign against collision bias.
    h = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
    return h % dim, (1.0 if (h >> 63) & 1 else -1.0)


def _features(token: str, next_token: str | None) -> list[str]:
    if _CJK_RE.fullmatch(token):
        # A CJK character, and the bigram it starts (so 合同 is close to 合同金额, as in the FTS index).
        feats = [f"c:{token}"]
        if next_token is not None and _CJK_RE.fullmatch(next_token):
            feats.append(f"b:{token}{next_token}")
        return feats
    word = token.lower()
    padded = f"^{word}$"
    return [f"w:{word}"] + [f"b:{padded[k : k + 2]}" for k in range(len(padded) - 1)]


class HashEncoder:
    """Deterministic stand-in for an ONNX encoder: no model files, same API, similar texts are close.

    Token vectors are hashed features (the word and its character bigrams; a CJK character and the bigram it
    starts). A sentence vector is the L2-normalised mean of its token vectors, so late pooling the whole text
    gives exactly ``encode([text])``. Roles are ignored. An empty text encodes to the zero vector.
    """

    def __init__(self, dim: int = 256, model_id: str = "hash-bigram", *, max_tokens: int = 512) -> None:
        self.dim = dim
        self.model_id = model_id
        self.max_tokens = max_tokens
        self.late_window_tokens = max_tokens

    def _token_vector(self, token: str, next_token: str | None) -> NDArray[np.float32]:
        v = np.zeros(self.dim, dtype=np.float32)
        for feat in _features(token, next_token):
            idx, sign = _slot(feat, self.dim)
            v[idx] += sign
        return v

    def _token_vectors(self, text: str) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
        toks = tokenize(text)
        vectors = np.zeros((len(toks), self.dim), dtype=np.float32)
        for i, (tok, _, _) in enumerate(toks):
            nxt = toks[i + 1][0] if i + 1 < len(toks) and toks[i + 1][1] == toks[i][2] else None
            vectors[i] = self._token_vector(tok, nxt)
        return vectors, np.array([(s, e) for _, s, e in toks], dtype=np.int64).reshape(-1, 2)

    def encode_tokens(self, text: str, *, context: WindowContext | None = None) -> TokenVectors:
        """Context-free token vectors; the text is one window, so ``context(0)`` is its context (its tokens
        change no text token's vector here, only a pooling that counts them)."""
        vectors, offsets = self._token_vectors(text)
        if context is None:
            return TokenVectors(text=text, vectors=vectors, offsets=offsets)
        ctx, _ = self._token_vectors(context(0))
        window_of = np.zeros(len(vectors), dtype=np.int64)
        return TokenVectors(text, vectors, offsets, window_of, ctx.sum(axis=0, keepdims=True), np.array([len(ctx)]))

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            tv = self.encode_tokens(text)
            if len(tv.vectors):
                out[row] = normalise(tv.vectors.astype(np.float64).mean(axis=0))
        return out

    def count_tokens(self, text: str) -> int:
        return len(tokenize(text))
