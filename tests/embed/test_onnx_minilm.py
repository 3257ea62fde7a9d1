"""Real-model tests of OnnxEncoder on all-MiniLM-L6-v2 (English, 384-d, 256-token window, its trained length)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pikelocal.embed.base import Encoder
from pikelocal.embed.late import pool_span, pool_spans
from tests.support.embed_models import MINILM_DIR, assert_offsets_cover, cos, load_encoder
from tests.support.embed_texts import EN_PARAGRAPHS, LongDoc, make_doc

pytestmark = pytest.mark.slow

PARAPHRASES = [
    (
        "The tenderer must submit the bid bond before the deadline.",
        "Bidders are required to provide the bid security prior to the closing date.",
        "The recipe calls for two cups of flour and a pinch of salt.",
    ),
    (
        "How do plants turn sunlight into sugar?",
        "Photosynthesis converts light energy into chemical energy stored in glucose.",
        "The striker scored twice in the cup final.",
    ),
]


@pytest.fixture(scope="module")
def long_tokens(minilm, en_long_doc: LongDoc):
    return minilm.encode_tokens(en_long_doc.text)


def test_describes_itself(minilm) -> None:
    assert isinstance(minilm, Encoder)
    assert (minilm.model_id, minilm.dim, minilm.max_tokens) == ("all-minilm-l6-v2-int8", 384, 256)
    assert minilm.projection is None and "input_ids" in minilm.input_names


@pytest.mark.parametrize(("anchor", "para", "other"), PARAPHRASES)
def test_paraphrase_beats_unrelated(minilm, anchor: str, para: str, other: str) -> None:
    q = minilm.encode([anchor], role="query")[0]
    p, o = minilm.encode([para, other], role="passage")
    assert q @ p > q @ o + 0.2


def test_vectors_are_normalised_and_order_is_kept(minilm) -> None:
    texts = [
        "a much longer sentence about the tender and its bid bond " * 5,
        "short",
        "",
        "medium length text here",
    ]
    batch = minilm.encode(texts, role="passage")
    assert batch.shape == (4, 384) and batch.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(batch, axis=1), 1.0, rtol=1e-5)
    one_by_one = np.stack([minilm.encode([t], role="passage")[0] for t in texts])
    np.testing.assert_allclose(batch, one_by_one, atol=2e-5)  # padding and sorting change nothing


def test_roles_equal_without_prompts(minilm) -> None:
    text = ["The tenderer must submit the bid bond."]
    np.testing.assert_array_equal(minilm.encode(text, role="query"), minilm.encode(text, role="passage"))


def test_offsets_cover_english_and_chinese(minilm) -> None:
    for text in ["Bid bonds (2%) are due by 5 p.m., won't they?", "投标人应当提交投标保证金。"]:
        tv = minilm.encode_tokens(text)
        assert len(tv.vectors) == minilm.count_tokens(text)
        assert_offsets_cover(tv)


def test_long_text_windows(minilm, en_long_doc: LongDoc, long_tokens) -> None:
    n = minilm.count_tokens(en_long_doc.text)
    assert n > 2 * minilm.text_capacity(late=True), "the test text should need several overlapping windows"
    assert long_tokens.vectors.shape == (n, 384)
    assert_offsets_cover(long_tokens)


def test_token_vectors_are_the_raw_model_states(minilm, en_long_doc: LongDoc) -> None:
    # Independent of the windowing code: one plain session run on the tokenizer's own encoding.
    text = en_long_doc.text[:400]
    assert minilm.count_tokens(text) <= minilm.text_capacity(late=True), "must fit one window, as one plain run"
    enc = minilm.tokenizer.encode(text)
    ids = np.array([enc.ids], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
    (states,) = minilm.session.run(["last_hidden_state"], {k: feeds[k] for k in minilm.input_names})
    keep = np.array(enc.special_tokens_mask) == 0
    tv = minilm.encode_tokens(text)
    np.testing.assert_allclose(tv.vectors, states[0][keep], atol=1e-5)
    np.testing.assert_array_equal(tv.offsets, np.array(enc.offsets)[keep])


def test_short_text_late_pool_matches_sentence_vector(minilm) -> None:
    # Only [CLS]/[SEP] differ: late pooling a whole text reproduces the model's own sentence vector.
    text = "Every tenderer must lodge a bid bond worth two percent of the contract price."
    tv = minilm.encode_tokens(text)
    assert cos(pool_span(tv, 0, len(text)), minilm.encode([text], role="passage")[0]) > 0.95


@pytest.fixture(scope="module")
def minilm_same_windows(tmp_path_factory: pytest.TempPathFactory):
    """MiniLM whose late chunking uses encode()'s own 256-token windows (encoder.json without late_window)."""
    folder = tmp_path_factory.mktemp("minilm-same-windows")
    config = json.loads((MINILM_DIR / "encoder.json").read_text())
    config.pop("late_window", None)
    (folder / "encoder.json").write_text(json.dumps(config))
    for name in (config["onnx"], config["tokenizer"]):
        (folder / name).symlink_to(MINILM_DIR / name)
    return load_encoder(folder)


def test_long_text_is_pooled_whole_not_truncated(minilm_same_windows, en_long_doc: LongDoc) -> None:
    # encode() of a text longer than the window pools the same windows as encode_tokens (plus [CLS]/[SEP]),
    # so a document vector is the late-pooled vector of all its text; a truncating encoder would drift away.
    enc = minilm_same_windows
    tokens = enc.encode_tokens(en_long_doc.text)
    whole = pool_span(tokens, 0, len(en_long_doc.text))
    assert cos(whole, enc.encode([en_long_doc.text], role="passage")[0]) > 0.99
    cut = int(tokens.offsets[enc.text_capacity() - 1][1])  # end of what one window holds
    assert cos(whole, enc.encode([en_long_doc.text[:cut]], role="passage")[0]) < 0.95


def test_late_chunking_uses_the_shorter_late_window(minilm) -> None:
    assert (minilm.window_tokens, minilm.late_window_tokens) == (256, 128)
    assert minilm.text_capacity(late=True) < minilm.text_capacity()


def test_late_span_is_closest_to_its_own_chunk(minilm, en_long_doc: LongDoc, long_tokens) -> None:
    late = pool_spans(long_tokens, en_long_doc.spans)
    early = minilm.encode(en_long_doc.paragraphs, role="passage")
    sims = late @ early.T
    assert sims.argmax(axis=1).tolist() == list(range(len(en_long_doc.paragraphs)))


@pytest.fixture(scope="module")
def small_window():
    """MiniLM run in 128-token windows, so a 500-token text needs several."""
    return load_encoder(MINILM_DIR, window=128)


def test_small_windows_take_each_token_from_its_most_central_window(small_window) -> None:
    doc = make_doc(EN_PARAGRAPHS[:4])
    enc = small_window
    tv = enc.encode_tokens(doc.text)
    ids = enc.tokenizer.encode(doc.text, add_special_tokens=False).ids
    cap, n = enc.text_capacity(), len(ids)
    assert (enc.window_tokens, cap) == (128, 126) and n > 3 * cap
    # the first window is ids[:cap], the last ids[n-cap:]; tokens far from their cut come from them
    for window, keep, start in [(ids[:cap], slice(0, 100), 0), (ids[n - cap :], slice(n - 100, n), n - cap)]:
        states, _ = enc._run([enc._prefix + window + enc._suffix])
        rows = np.arange(keep.start, keep.stop) - start + 1  # +1 for [CLS]
        np.testing.assert_allclose(tv.vectors[keep], states[0, rows], atol=1e-5)
    # and the meaning survives: each paragraph's late vector is still closest to its own chunk
    late = pool_spans(tv, doc.spans)
    early = enc.encode(doc.paragraphs, role="passage")
    assert (late @ early.T).argmax(axis=1).tolist() == list(range(len(doc.paragraphs)))


def test_empty_inputs(minilm) -> None:
    assert minilm.encode([], role="query").shape == (0, 384)
    tv = minilm.encode_tokens("  ")
    assert tv.vectors.shape == (0, 384) and tv.offsets.shape == (0, 2)
    assert minilm.count_tokens("") == 0


def test_window_context_is_read_before_each_window(small_window) -> None:
    from pikelocal.embed.onnx import CONTEXT_TOKENS

    doc = make_doc(EN_PARAGRAPHS[:4])
    enc = small_window
    heading = "Field notes on lakes › Chapter 2 › Pike"
    asked: list[int] = []

    def context(offset: int) -> str:
        asked.append(offset)
        return heading

    tv = enc.encode_tokens(doc.text, context=context)
    plain = enc.encode_tokens(doc.text)
    np.testing.assert_array_equal(tv.offsets, plain.offsets)
    assert tv.window_of is not None and tv.context_sums is not None and tv.context_counts is not None
    ctx_ids = enc.tokenizer.encode(heading + "\n\n", add_special_tokens=False).ids
    assert 0 < len(ctx_ids) < CONTEXT_TOKENS
    windows = len(asked)
    assert windows > 3 and tv.context_counts.tolist() == [len(ctx_ids)] * windows
    # each window is asked for the context at its first character, and owns a run of the text's tokens
    assert asked[0] == 0 and asked == sorted(set(asked))
    assert set(asked) <= set(plain.offsets[:, 0].tolist())
    assert tv.window_of.tolist() == sorted(tv.window_of.tolist()) and set(tv.window_of.tolist()) == set(range(windows))
    # window 0 is [CLS] + context + the text's first tokens + [SEP]: its rows are the text's vectors and the sum
    ids = enc.tokenizer.encode(doc.text, add_special_tokens=False).ids
    cap = enc.window_tokens - 2 - CONTEXT_TOKENS
    states, _ = enc._run([enc._prefix + ctx_ids + ids[:cap] + enc._suffix])
    m = len(ctx_ids)
    np.testing.assert_allclose(tv.context_sums[0], states[0, 1 : 1 + m].sum(axis=0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tv.vectors[:40], states[0, 1 + m : 41 + m], atol=1e-5)
    # reading the context changes what the text's tokens say (attention), so the vectors differ from plain ones
    assert float(np.abs(tv.vectors[:40] - plain.vectors[:40]).max()) > 1e-3


def test_an_empty_window_context_changes_nothing(minilm) -> None:
    text = "Pike favour shallow bays with submerged vegetation."
    tv = minilm.encode_tokens(text, context=lambda _offset: "  ")
    np.testing.assert_allclose(tv.vectors, minilm.encode_tokens(text).vectors, atol=1e-6)
    assert tv.context_counts is not None and tv.context_counts.tolist() == [0]
    np.testing.assert_allclose(pool_span(tv, 0, 4, with_context=True), pool_span(tv, 0, 4), atol=1e-6)


def test_a_text_encoded_before_is_taken_from_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    # a fresh encoder (the session's is shared), its session's runs counted
    encoder = load_encoder(MINILM_DIR)
    texts = ["The bid bond is 5,000 dollars.", "投标保证金为人民币伍仟元整。", "Bids close at noon."]
    first = encoder.encode(texts, role="passage")
    runs: list[int] = []
    real_run = encoder._run
    monkeypatch.setattr(encoder, "_run", lambda seqs: runs.append(len(seqs)) or real_run(seqs))
    again = encoder.encode([texts[2], texts[0], "A new sentence.", texts[0]], role="passage")
    assert runs == [1]  # only the new sentence went through the model
    assert np.allclose(again[[0, 1, 3]], first[[2, 0, 0]], atol=1e-6)
    fresh = load_encoder(MINILM_DIR).encode(["A new sentence."], role="passage")
    assert np.allclose(again[2], fresh[0], atol=1e-5)
    # the same text in the other role is another vector, encoded apart
    encoder.encode([texts[0]], role="query")
    assert runs == [1, 1]
    # what a caller does to the array it got does not change the memo
    again[:] = 0
    assert np.allclose(encoder.encode([texts[0]], role="passage")[0], first[0], atol=1e-6)
