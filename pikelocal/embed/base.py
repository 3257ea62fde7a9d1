"""The Encoder protocol and token-level vectors for late chunking."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

EncodeRole = Literal["query", "passage"]


@dataclass(frozen=True)
class TokenVectors:
    """Token vectors of one text, in the encoder's output space (not normalised).

    ``offsets[i] = (start, end)`` are character offsets of token ``i`` in the *original* text
    (prompt prefix and special tokens are excluded), so any character span can be pooled.
    """

    text: str
    vectors: NDArray[np.float32]  # (n_tokens, dim)
    offsets: NDArray[np.int64]  # (n_tokens, 2)


@runtime_checkable
class Encoder(Protocol):
    model_id: str
    dim: int
    max_tokens: int
    late_window_tokens: int  # window of encode_tokens: how much context late chunking gives a chunk

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        """L2-normalised sentence vectors, shape (len(texts), dim)."""
        ...

    def encode_tokens(self, text: str) -> TokenVectors:
        """Token vectors of a passage of any length (long texts go through overlapping windows)."""
        ...

    def count_tokens(self, text: str) -> int: ...
