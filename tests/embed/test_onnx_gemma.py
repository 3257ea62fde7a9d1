"""Real-model tests of OnnxEncoder on EmbeddingGemma-300M (multilingual, 768-d, 2,048-token window)."""

from __future__ import annotations

import numpy as np
import pytest

from pikelocal.embed.base import Encoder
from pikelocal.embed.late import pool_span, pool_spans
from tests.support.embed_models import assert_offsets_cover, cos
from tests.support.embed_texts import EN_PARAGRAPHS, LongDoc

pytestmark = pytest.mark.slow

TENDER_EN = "The tenderer must submit the bid bond before the deadline."
TENDER_EN_PARA = "Bidders are required to provide the bid security prior to the closing date."
TENDER_ZH = "投标人应当在截止时间前提交投标保证金。"
TENDER_ZH_PARA = "竞标方须于截止日期之前缴纳投标担保金。"
WEATHER_EN = "The weather is sunny today, perfect for a walk in the park."
WEATHER_ZH = "今天的天气非常晴朗，适合去公园散步。"
FLOUR_EN = "The recipe calls for two cups of flour and a pinch of salt."


@pytest.fixture(scope="module")
def long_tokens(gemma, mixed_long_doc: LongDoc):
    return gemma.encode_tokens(mixed_long_doc.text)


def test_describes_itself(gemma) -> None:
    assert isinstance(gemma, Encoder)
    assert (gemma.model_id, gemma.dim, gemma.max_tokens) == ("embeddinggemma-300m-int8", 768, 2048)
    assert gemma.projection is not None and gemma.projection.shape == (768, 768)
    assert gemma.query_prompt and gemma.passage_prompt


@pytest.mark.parametrize(
    ("anchor", "para", "other"),
    [
        (TENDER_EN, TENDER_EN_PARA, FLOUR_EN),  # English
        (TENDER_ZH, TENDER_ZH_PARA, WEATHER_ZH),  # Chinese
        (TENDER_ZH, TENDER_EN, WEATHER_EN),  # Chinese query, English passages
        (TENDER_EN, TENDER_ZH, WEATHER_ZH),  # English query, Chinese passages
    ],
    ids=["en", "zh", "zh-en", "en-zh"],
)
def test_paraphrase_beats_unrelated(gemma, anchor: str, para: str, other: str) -> None:
    q = gemma.encode([anchor], role="query")[0]
    p, o = gemma.encode([para, other], role="passage")
    assert q @ p > q @ o + 0.1


def test_roles_use_their_prompts(gemma) -> None:
    q = gemma.encode([TENDER_EN], role="query")[0]
    p = gemma.encode([TENDER_EN], role="passage")[0]
    np.testing.assert_allclose(np.linalg.norm([q, p], axis=1), 1.0, rtol=1e-5)
    assert 0.5 < q @ p < 0.99  # the same text, seen through different prompts


def test_batching_and_padding_change_nothing(gemma) -> None:
    texts = [TENDER_EN * 6, TENDER_ZH, "", WEATHER_EN + " " + FLOUR_EN]
    batch = gemma.encode(texts, role="passage")
    one_by_one = np.stack([gemma.encode([t], role="passage")[0] for t in texts])
    # int8 dynamic quantisation picks activation scales per batch, so allow a little drift
    assert np.min((batch * one_by_one).sum(axis=1)) > 0.995


def test_token_vectors_are_the_projected_model_states(gemma) -> None:
    # Independent of the windowing code: one plain session run on prompt + text, then the projection.
    text = "Bid bonds are due by 5 p.m.; 投标保证金应当按时提交。"
    prompt = gemma.passage_prompt
    enc = gemma.tokenizer.encode(prompt + text)
    ids = np.array([enc.ids], dtype=np.int64)
    (states,) = gemma.session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    offs = np.array(enc.offsets)
    keep = (np.array(enc.special_tokens_mask) == 0) & (offs[:, 1] > len(prompt))
    tv = gemma.encode_tokens(text)
    np.testing.assert_allclose(tv.vectors, states[0][keep] @ gemma.projection, atol=1e-3, rtol=1e-3)
    np.testing.assert_array_equal(tv.offsets, np.clip(offs[keep] - len(prompt), 0, None))


@pytest.mark.parametrize(
    "text",
    [
        "Bid bonds (2%) are due by 5 p.m., won't they? — Section 3.1",
        "投标人应当在投标截止时间前提交投标保证金，金额为合同估算价的百分之二。",
        "Mixed 中英文 text: 合同金额 is 100,000 元 (¥).",
    ],
)
def test_offsets_cover_text(gemma, text: str) -> None:
    tv = gemma.encode_tokens(text)
    assert tv.vectors.shape[1] == 768
    assert_offsets_cover(tv)


def test_long_text_windows(gemma, mixed_long_doc: LongDoc, long_tokens) -> None:
    assert len(long_tokens.vectors) > gemma.max_tokens, "the text should need two overlapping windows"
    assert_offsets_cover(long_tokens)


def test_short_text_late_pool_matches_sentence_vector(gemma) -> None:
    # Only <bos>/<eos> and the prompt tokens differ: late pooling reproduces the model's own sentence vector.
    text = EN_PARAGRAPHS[0]
    tv = gemma.encode_tokens(text)
    assert cos(pool_span(tv, 0, len(text)), gemma.encode([text], role="passage")[0]) > 0.9


def test_late_span_is_closest_to_its_own_chunk(gemma, mixed_long_doc: LongDoc, long_tokens) -> None:
    # English paragraphs appear twice (before and after the Chinese ones), in both windows.
    late = pool_spans(long_tokens, mixed_long_doc.spans)
    unique = sorted(set(mixed_long_doc.paragraphs))
    early = gemma.encode(unique, role="passage")
    best = (late @ early.T).argmax(axis=1)
    assert [unique[b] for b in best] == mixed_long_doc.paragraphs


@pytest.fixture
def gemma_512(gemma):
    """The session-wide Gemma encoder, run in 512-token windows for one test."""
    saved = gemma.window_tokens
    gemma.window_tokens = 512
    yield gemma
    gemma.window_tokens = saved


def test_every_window_starts_with_the_prompt(gemma_512) -> None:
    enc = gemma_512
    text = "\n\n".join(EN_PARAGRAPHS[:5])
    tv = enc.encode_tokens(text)
    n = len(tv.vectors)
    prompt_ids = enc.tokenizer.encode(enc.passage_prompt, add_special_tokens=False).ids
    cap = 512 - 2 - len(prompt_ids)
    assert cap < n < 2 * cap
    # The last window is <bos> + prompt + the last `cap` text tokens + <eos>; its tail tokens come from it.
    ids = enc.tokenizer.encode(enc.passage_prompt + text, add_special_tokens=False).ids[-n:]
    last = enc._prefix + prompt_ids + ids[n - cap :] + enc._suffix
    states, _ = enc._run([last])
    head = 1 + len(prompt_ids)
    ref = states[0, head + cap - 100 : head + cap] @ enc.projection
    got = tv.vectors[n - 100 :]
    # not bit-equal: int8 dynamic quantisation scales activations per batch, and the windows ran together
    per_token = (ref * got).sum(1) / (np.linalg.norm(ref, axis=1) * np.linalg.norm(got, axis=1))
    assert np.median(per_token) > 0.98 and np.quantile(per_token, 0.05) > 0.9
    assert_offsets_cover(tv)
