"""Unit tests for the HashEncoder test double."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from pikelocal.embed.base import Encoder
from pikelocal.embed.fake import HashEncoder, tokenize
from pikelocal.embed.late import pool_span


def test_is_an_encoder() -> None:
    enc = HashEncoder()
    assert isinstance(enc, Encoder)
    assert (enc.model_id, enc.dim) == ("hash-bigram", 256)


def test_deterministic_and_normalised() -> None:
    texts = ["The tenderer submits a bid bond.", "投标人提交投标保证金。", ""]
    a = HashEncoder().encode(texts, role="passage")
    b = HashEncoder().encode(texts, role="query")
    assert a.shape == (3, 256) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(np.linalg.norm(a[:2], axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(a[2], 0.0)  # nothing to hash


FIXED_TEXT = "ab Bid bond 投标保证金"
VECTORS_IN_A_CHILD = f"""
import json
from pikelocal.embed.fake import HashEncoder
print(json.dumps(HashEncoder(dim=16).encode_tokens({FIXED_TEXT!r}).vectors.tolist()))
"""


@pytest.mark.parametrize("hash_seed", ["1", "2"])
def test_fixed_vectors_across_processes(hash_seed: str) -> None:
    # blake2b, not Python's salted hash(): the same bucket in every process, whatever its PYTHONHASHSEED
    here = HashEncoder(dim=16).encode_tokens(FIXED_TEXT).vectors
    assert here.shape[0] >= 8 and np.count_nonzero(here) >= 8
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    child = subprocess.run(
        [sys.executable, "-c", VECTORS_IN_A_CHILD], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    there = np.array(json.loads(child.stdout), dtype=np.float32)
    np.testing.assert_array_equal(there, here)


@pytest.mark.parametrize(
    ("query", "near", "far"),
    [
        (
            "bid bond deadline",
            "The bid bond is due before the deadline.",
            "Bake the bread for thirty minutes.",
        ),
        ("tenderers", "Every tenderer must lodge a bond.", "The striker scored twice."),
        ("合同金额", "本合同金额为十万元。", "今天天气晴朗。"),
    ],
)
def test_shared_words_and_characters_are_close(query: str, near: str, far: str) -> None:
    q, n, f = HashEncoder().encode([query, near, far], role="passage")
    assert q @ n > q @ f + 0.1


def test_tokenize_words_cjk_chars_and_punctuation() -> None:
    text = "Bid bond: 投标 (2%)"
    toks = tokenize(text)
    assert [t for t, _, _ in toks] == ["Bid", "bond", ":", "投", "标", "(", "2", "%", ")"]
    assert all(text[s:e] == t for t, s, e in toks)


def test_encode_tokens_supports_late_pooling() -> None:
    enc = HashEncoder()
    text = "Bid bond due. 投标保证金"
    tv = enc.encode_tokens(text)
    assert tv.vectors.shape == (len(tv.offsets), 256) == (enc.count_tokens(text), 256)
    assert all(not text[k].strip() or any(s <= k < e for s, e in tv.offsets) for k in range(len(text)))
    # pooling the whole text is exactly the sentence vector
    np.testing.assert_allclose(pool_span(tv, 0, len(text)), enc.encode([text], role="passage")[0], atol=1e-6)
    # a span is closer to the sentence it came from than to an unrelated one
    span = pool_span(tv, 14, len(text))
    zh, other = enc.encode(["投标保证金", "football match"], role="passage")
    assert span @ zh > 0.99 and span @ other < 0.5


def test_empty_text_has_no_tokens() -> None:
    tv = HashEncoder().encode_tokens("   ")
    assert tv.vectors.shape == (0, 256) and tv.offsets.shape == (0, 2)
