"""Hybrid's weights tuned per KB on its own atomic questions (``query.retrieve.fusion_tuning``): the one-standard-error
choice, and whole tunings on a real SQLite KB where one ranking is known to be right and the other wrong."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from pikelocal.api import open_kb as open_knowledge_base
from pikelocal.config import load_settings
from pikelocal.domain.documents import NewQuestion
from pikelocal.domain.search import FusionTuning
from pikelocal.embed.base import EncodeRole
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb.options import search_weights
from pikelocal.query.retrieve.fusion_tuning import (
    META_KEY,
    MIN_QUERIES,
    Grid,
    choose,
    ndcg_at_10,
    needs_tuning,
    save_tuning,
    stored_tuning,
    tune_fusion,
    tuned_weights,
)
from pikelocal.store.store import Store
from tests.support.enrich_corpus import build_kb, open_kb, scripted_llm, write_corpus

WEIGHTS = {"bm25": 0.5, "dense": 1.0, "late": 0.1, "questions": 0.1, "graph": 0.0}
TOPICS = 35  # one chunk each, two questions each: 70 >= MIN_QUERIES
CODES = [f"kx{n:02d}v" for n in range(TOPICS)]  # a word only topic n's passage has
SHADES = ["amber", "cobalt", "jade", "ochre", "scarlet"]


def corpus() -> dict[str, str]:
    return {
        f"topic{n:02d}.md": f"# Ledger {n}\n\nEntry {CODES[n]} lists {SHADES[n % 5]} crates shipped to dock {n}.\n"
        for n in range(TOPICS)
    }


def test_ndcg_at_10_counts_the_one_relevant_id_by_its_rank() -> None:
    assert ndcg_at_10([7, 1, 2], 7) == 1.0
    assert ndcg_at_10([1, 2, 7], 7) == pytest.approx(0.5)
    assert ndcg_at_10(list(range(20)), 10) == 0.0  # 11th: not in the first 10
    assert ndcg_at_10([], 3) == 0.0


def test_choose_keeps_a_gain_beyond_the_noise() -> None:
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.6, 200)
    scores: dict[Grid, list[float]] = {
        (0.0, None): base.tolist(), (0.5, None): (base + 0.1).tolist(), (2.0, None): (base + 0.3).tolist()
    }  # fmt: skip
    assert choose(scores) == (2.0, None)


def test_choose_prefers_the_simplest_weights_within_one_standard_error() -> None:
    rng = np.random.default_rng(1)
    base = rng.uniform(0.0, 1.0, 200)
    noise, other = rng.normal(0.0, 0.2, (2, 200))
    noise, other = noise - noise.mean(), other - other.mean()
    # (2.0, 0.1) is best on average, by far less than the noise of the paired differences: the simplest is kept
    scores: dict[Grid, list[float]] = {
        (2.0, 0.1): (base + 0.005 + noise).tolist(),
        (0.0, 0.1): base.tolist(),
        (0.0, 0.0): (base - 0.002 + other).tolist(),
    }
    assert choose(scores) == (0.0, 0.0)
    # a difference without noise is no noise: one point worse everywhere is worse
    steady: dict[Grid, list[float]] = {(0.0, 0.0): (base - 0.01).tolist(), (0.5, 0.0): base.tolist()}
    assert choose(steady) == (0.5, 0.0)
    # equal totals: less late first, then less BM25
    same = base.tolist()
    ties: dict[Grid, list[float]] = {(0.2, 0.1): same, (0.3, 0.0): same, (0.1, 0.2): same}
    assert choose(ties) == (0.3, 0.0)


def test_choose_refuses_ragged_or_empty_scores() -> None:
    with pytest.raises(ValueError):
        choose({})
    with pytest.raises(ValueError):
        ragged: dict[Grid, list[float]] = {(0.0, None): [1.0, 0.0], (1.0, None): [1.0]}
        choose(ragged)


class NoiseEncoder(HashEncoder):
    """The hashing encoder for passages, but queries get a random direction: dense search is blind."""

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        if role != "query":
            return super().encode(texts, role=role)
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha1(t.encode()).digest()[:4], "little")
            v = np.random.default_rng(seed).normal(size=self.dim).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)


class OracleEncoder(HashEncoder):
    """Queries it knows get their right chunk's stored vector: dense search is never wrong about them."""

    def __init__(self, known: dict[str, NDArray[np.float32]]) -> None:
        super().__init__()
        self.known = known

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        if role != "query" or not all(t in self.known for t in texts):
            return super().encode(texts, role=role)
        return np.stack([self.known[t] for t in texts])


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return build_kb(tmp_path / "tuning.kb", write_corpus(tmp_path / "docs", corpus()))


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with open_kb(kb, create=False) as s:
        yield s


def chunk_ids(store: Store) -> list[int]:
    """Topic n's chunk id at index n."""
    docs = sorted(store.docs.documents(), key=lambda d: d.path)
    return [store.chunks.chunks_of(d.id)[0].id for d in docs]


def ask_about(store: Store, code_of: Sequence[int], per_chunk: int = 2) -> dict[str, int]:
    """Questions about topic ``code_of[n]``'s code word, stored as topic n's chunk's: question text -> chunk id."""
    ids = chunk_ids(store)
    asked = {}
    for n, cid in enumerate(ids):
        for k in range(per_chunk):
            asked[f"Which crates does entry {CODES[code_of[n]]} list, part {k}?"] = cid
    store.chunks.add_questions([NewQuestion(cid, text, "en") for text, cid in asked.items()])
    return asked


def test_a_kb_whose_dense_search_is_blind_turns_bm25_up(store: Store) -> None:
    ask_about(store, range(TOPICS))  # each question names its own chunk's code word: BM25 finds it first
    tuning = tune_fusion(store, NoiseEncoder(), WEIGHTS, fusion="zscore", candidates=50)
    assert tuning is not None
    assert tuning.queries == 2 * TOPICS and tuning.kb_questions == 2 * TOPICS
    assert tuning.late_weight is None  # the KB has no late vectors: the configured late weight stays
    assert tuning.bm25_weight >= 1.0
    assert tuning.ndcg > tuning.configured_ndcg  # 0.5 is not enough against a blind dense ranking
    assert tuning.ndcg >= tuning.best_ndcg - 0.05
    assert (tuning.encoder_id, tuning.fusion) == (HashEncoder().model_id, "zscore")


def test_a_kb_whose_bm25_misleads_keeps_dense_alone(store: Store) -> None:
    # each question names the *next* topic's code word, but dense search knows its right chunk
    asked = ask_about(store, [(n + 1) % TOPICS for n in range(TOPICS)])
    vectors = {text: store.index.vector("chunk", cid) for text, cid in asked.items()}
    oracle = OracleEncoder({t: v for t, v in vectors.items() if v is not None})
    tuning = tune_fusion(store, oracle, WEIGHTS, fusion="zscore", candidates=50)
    assert tuning is not None
    assert tuning.bm25_weight == 0.0
    assert tuning.ndcg == pytest.approx(1.0)
    assert tuning.configured_ndcg < 1.0  # BM25 at 0.5 pulls the wrong topic up


def test_too_few_questions_or_no_dense_weight_leave_the_weights_alone(store: Store) -> None:
    ids = chunk_ids(store)
    store.chunks.add_questions(
        [NewQuestion(ids[n % TOPICS], f"Which entry is {CODES[n % TOPICS]}?") for n in range(MIN_QUERIES - 1)]
    )
    assert tune_fusion(store, HashEncoder(), WEIGHTS, fusion="zscore", candidates=50) is None
    store.chunks.add_questions([NewQuestion(ids[0], "Which crates are amber?")])
    assert tune_fusion(store, HashEncoder(), {**WEIGHTS, "dense": 0.0}, fusion="zscore", candidates=50) is None
    assert tune_fusion(store, HashEncoder(), WEIGHTS, fusion="rrf", candidates=50, sample=MIN_QUERIES) is not None


def tuning(**changes: object) -> FusionTuning:
    base = FusionTuning(2.0, 0.0, 300, 0.8, 0.81, 0.7, HashEncoder().model_id, "zscore", 1000)
    return replace(base, **changes)  # type: ignore[arg-type]


def test_the_tuning_is_kept_in_the_kb_and_applies_only_to_its_encoder_and_method(store: Store) -> None:
    assert stored_tuning(store) is None
    save_tuning(store, tuning())
    assert stored_tuning(store) == tuning()
    enc = HashEncoder().model_id
    assert tuned_weights(WEIGHTS, stored_tuning(store), enc, "zscore") == {**WEIGHTS, "bm25": 2.0, "late": 0.0}
    assert tuned_weights(WEIGHTS, tuning(late_weight=None), enc, "zscore") == {**WEIGHTS, "bm25": 2.0}
    assert tuned_weights(WEIGHTS, stored_tuning(store), "another-encoder", "zscore") == WEIGHTS
    assert tuned_weights(WEIGHTS, stored_tuning(store), enc, "rrf") == WEIGHTS
    store.set_meta(META_KEY, {"bm25_weight": 1.0})  # a record of another shape is ignored, never an error
    assert stored_tuning(store) is None


def test_enrich_tunes_again_only_for_a_new_encoder_or_method_or_10_percent_more_questions() -> None:
    enc = HashEncoder().model_id
    assert not needs_tuning(None, enc, "zscore", MIN_QUERIES - 1)
    assert needs_tuning(None, enc, "zscore", MIN_QUERIES)
    assert not needs_tuning(tuning(), enc, "zscore", 1099)
    assert needs_tuning(tuning(), enc, "zscore", 1100)
    assert needs_tuning(tuning(), "another-encoder", "zscore", 1000)
    assert needs_tuning(tuning(), enc, "minmax", 1000)


def test_enrich_stores_a_tuning_that_search_then_uses(tmp_path: Path) -> None:
    kb = tmp_path / "kb.kb"
    settings = load_settings(environ={})
    folder = write_corpus(tmp_path / "docs", corpus())
    with open_knowledge_base(kb, settings, encoder=HashEncoder(), llm=scripted_llm()) as knowledge_base:
        from pikelocal.domain.requests import AddRequest

        knowledge_base.add([folder], AddRequest(enrich=False))
        report = knowledge_base.enrich()
        assert report.questions >= MIN_QUERIES
        assert report.fusion is not None and report.fusion.queries == report.questions
        assert knowledge_base.enrich().fusion is None  # nothing new: the stored tuning stands
        assert knowledge_base.stats().fusion == report.fusion
    with open_kb(kb, create=False) as store:
        kept = stored_tuning(store)
        assert kept == report.fusion
        enc = HashEncoder().model_id
        tuned = search_weights(settings, store, enc)
        assert tuned["bm25"] == kept.bm25_weight and tuned["dense"] == settings.search.dense_weight
        off = replace(settings, search=replace(settings.search, tuned=False))
        assert search_weights(off, store, enc) == settings.search.weights()
    # search.tuned = false: enrich does not tune either
    other = tmp_path / "other.kb"
    off = replace(settings, search=replace(settings.search, tuned=False))
    with open_knowledge_base(other, off, encoder=HashEncoder(), llm=scripted_llm()) as knowledge_base:
        knowledge_base.add([folder], AddRequest(enrich=False))
        assert knowledge_base.enrich().fusion is None
    with open_kb(other, create=False) as store:
        assert stored_tuning(store) is None
