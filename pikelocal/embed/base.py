"""The Encoder protocol and token-level vectors for late chunking."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
    # With a window context (``encode_tokens(text, context=...)``): the window each token's vector came from,
    # and per window the sum and count of the context's own token vectors (for pooling that includes them).
    window_of: NDArray[np.int64] | None = None  # (n_tokens,)
    context_sums: NDArray[np.float32] | None = None  # (n_windows, dim)
    context_counts: NDArray[np.int64] | None = None  # (n_windows,)


WindowContext = Callable[[int], str]
"""The text put before each late window of a passage, given the character offset where the window's text starts
(a document's title and section path there, so a chunk deep in a long document still knows whose it is)."""


@runtime_checkable
class Encoder(Protocol):
    model_id: str
    dim: int
    max_tokens: int
    late_window_tokens: int  # window of encode_tokens: how much context late chunking gives a chunk

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        """L2-normalised sentence vectors, shape (len(texts), dim)."""
        ...

    def encode_tokens(self, text: str, *, context: WindowContext | None = None) -> TokenVectors:
        """Token vectors of a passage of any length (long texts go through overlapping windows), each window
        read after ``context(offset)`` when given (its tokens are not among the text's)."""
        ...

    def count_tokens(self, text: str) -> int: ...
