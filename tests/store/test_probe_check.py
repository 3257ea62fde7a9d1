"""A KB records its encoder's probe vectors and refuses an encoder whose numbers differ.

The hashing encoder stands in for a model; ``Perturbed`` adds a fixed random direction to every vector it
returns, as an encoder build whose integer kernels compute other sums would.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.domain.documents import NewQuestion
from pikelocal.domain.errors import EncoderNumericsError
from pikelocal.embed.base import EncodeRole, TokenVectors, WindowContext
from pikelocal.embed.fake import HashEncoder
from pikelocal.embed.late import normalise
from pikelocal.embed.probes import MIN_PROBE_COSINE, probe_vectors, rowwise_cosine
from pikelocal.ingest.enrich.embed import early_text
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.kb import knowledge_base as kb_module
from pikelocal.store import probe_check
from pikelocal.store.store import Store


class Perturbed(HashEncoder):
    """The hashing encoder with noise of relative size ``scale`` added to every vector (same id and dim)."""

    def __init__(self, scale: float, seed: int = 3) -> None:
        super().__init__()
        self.noise = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        self.scale = scale
        self.build = f"perturbed by {scale}"

    def encode_tokens(self, text: str, *, context: WindowContext | None = None) -> TokenVectors:
        tv = super().encode_tokens(text, context=context)
        norms = np.linalg.norm(tv.vectors, axis=1, keepdims=True)
        noisy = tv.vectors + self.scale * norms * self.noise / np.linalg.norm(self.noise)
        return TokenVectors(
            tv.text, noisy.astype(np.float32), tv.offsets, tv.window_of, tv.context_sums, tv.context_counts
        )

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        vecs = super().encode(texts, role=role)
        return normalise(vecs + self.scale * self.noise / np.linalg.norm(self.noise))


def make_kb(tmp_path: Path, encoder: HashEncoder) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tender.md").write_text("# 招标公告\n\n投标保证金为人民币伍万元。\n\n履约保证金为合同金额的百分之十。\n")
    (docs / "supply.txt").write_text("The Supplier shall deliver the pumps within thirty days.\n")
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder) as store:
        Ingestor(store, encoder, IngestOptions.from_settings(Settings(), late=True)).ingest_paths([docs])
    return kb


def test_perturbed_encoder_is_far_enough_to_test_the_threshold() -> None:
    clean, noisy, tiny = HashEncoder(), Perturbed(0.2), Perturbed(0.002)
    far = rowwise_cosine(probe_vectors(clean), probe_vectors(noisy)).min()
    near = rowwise_cosine(probe_vectors(clean), probe_vectors(tiny)).min()
    assert far < MIN_PROBE_COSINE < near


def test_new_kb_records_probes_and_the_same_encoder_opens_it(tmp_path: Path) -> None:
    kb = make_kb(tmp_path, HashEncoder())
    with Store.open_existing(kb) as store:
        record = store.meta()["encoder_probes"]
    stored = probe_check.unpack(record)
    assert stored is not None and stored.shape == probe_vectors(HashEncoder()).shape
    assert record["build"] == "hash-bigram"
    with Store.open(kb, encoder_id="hash-bigram", dim=256, probe=HashEncoder()) as store:
        assert probe_check.check_probes(store, HashEncoder()) == pytest.approx(1.0, abs=1e-6)


def test_float_noise_passes_but_another_numeric_world_is_refused_in_one_line(tmp_path: Path) -> None:
    kb = make_kb(tmp_path, HashEncoder())
    Store.open(kb, encoder_id="hash-bigram", dim=256, probe=Perturbed(0.002)).close()  # rounding-size noise
    with pytest.raises(EncoderNumericsError) as err:
        Store.open(kb, encoder_id="hash-bigram", dim=256, probe=Perturbed(0.2))
    message = str(err.value)
    assert "\n" not in message
    assert str(kb) in message and "was embedded by hash-bigram" in message
    assert "this encoder is hash-bigram (perturbed by 0.2)" in message
    assert "pikelocal reembed" in message and "--force" in message


def test_force_opens_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    kb = make_kb(tmp_path, HashEncoder())
    with (
        caplog.at_level(logging.WARNING),
        Store.open(kb, encoder_id="hash-bigram", dim=256, probe=Perturbed(0.2), force=True) as store,
    ):
        assert store.counts()["chunks"] > 0
    assert "--force: opening it anyway" in caplog.text


def test_a_kb_from_before_probes_gets_them_on_first_open(tmp_path: Path) -> None:
    kb = tmp_path / "old.kb"
    Store.open(kb, encoder_id="hash-bigram", dim=256).close()  # no probe: as KBs were made before probes were recorded
    with Store.open_existing(kb) as store:
        assert "encoder_probes" not in store.meta()
    Store.open(kb, encoder_id="hash-bigram", dim=256, probe=Perturbed(0.2)).close()
    with pytest.raises(EncoderNumericsError):
        Store.open(kb, encoder_id="hash-bigram", dim=256, probe=HashEncoder())


def test_search_and_ask_paths_refuse_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kb = make_kb(tmp_path, HashEncoder())
    settings = load_settings(environ={})
    monkeypatch.setattr(kb_module, "open_encoder", lambda s: Perturbed(0.2))
    with pytest.raises(EncoderNumericsError):
        api.open_kb(kb, settings).search("投标保证金", api.SearchRequest(mode="dense"))
    assert api.open_kb(kb, settings).search("投标保证金", api.SearchRequest(mode="bm25"))  # BM25 needs no encoder
    forced = load_settings(environ={"PIKELOCAL_ENCODER_FORCE": "true"})
    assert api.open_kb(kb, forced).search("投标保证金", api.SearchRequest(mode="dense"))


def test_reembed_recomputes_every_vector_and_adopts_the_new_numbers(tmp_path: Path) -> None:
    kb = make_kb(tmp_path, HashEncoder())
    with Store.open_existing(kb, readonly=False) as store:
        chunks = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
        (qid,) = store.chunks.add_questions([NewQuestion(chunks[0].id, "投标保证金是多少？", "zh")])
        store.index.put_vectors("question", [qid], HashEncoder().encode(["投标保证金是多少？"], role="query"))
        with store.transaction():  # a triple of the entity graph, with its fact vector
            store.graph.put_chunk(chunks[0].id, ["投标人", "投标保证金"], [("投标人", "提交", "投标保证金")])
        (tid,) = [int(r[0]) for r in store.db.rows("SELECT id FROM triples")]
        store.index.put_vectors("triple", [tid], HashEncoder().encode(["投标人 提交 投标保证金"], role="passage"))
    new = Perturbed(0.2)
    settings = load_settings(environ={}, overrides={"ingest.late": True})
    report = api.open_kb(kb, settings, encoder=new).reembed()
    assert report.ingest.units["embed"] == len(chunks) and report.ingest.units["late"] == len(chunks)
    assert report.questions == 1
    with Store.open(kb, encoder_id="hash-bigram", dim=256, probe=new) as store:
        assert not store.meta()["reembed_pending"]
        assert all(d.stage == "ready" for d in store.docs.documents())
        for c in chunks:
            expected = new.encode([early_text(c)], role="passage")[0]
            np.testing.assert_allclose(store.index.vector("chunk", c.id), expected, atol=1e-6)
        expected = new.encode(["投标保证金是多少？"], role="query")[0]
        np.testing.assert_allclose(store.index.vector("question", qid), expected, atol=1e-6)
        expected = new.encode(["投标人 提交 投标保证金"], role="passage")[0]
        np.testing.assert_allclose(store.index.vector("triple", tid), expected, atol=1e-6)
    with pytest.raises(EncoderNumericsError):  # the KB now lives in the new encoder's numbers
        Store.open(kb, encoder_id="hash-bigram", dim=256, probe=HashEncoder())


def test_reembed_killed_after_the_reset_continues_without_resetting_again(tmp_path: Path) -> None:
    kb = make_kb(tmp_path, HashEncoder())
    new = Perturbed(0.2)
    with Store.open_existing(kb, readonly=False) as store:
        store.index.reset_vectors(probe_check.pack(probe_check.current_probes(new), "perturbed"))
        n_chunks = store.counts()["chunks"]
        first = store.docs.documents()[0]
        ids = store.index.chunk_ids_without("chunk", first.id)
        vec = new.encode([early_text(c) for c in store.chunks.get_chunks(ids)], role="passage")
        store.index.put_vectors("chunk", ids, vec)  # part of the work done before the "kill"
    report = api.open_kb(kb, load_settings(environ={}), encoder=new).reembed()
    assert report.ingest.units["embed"] == n_chunks - len(ids)  # the finished part is not redone
    with Store.open_existing(kb) as store:
        assert store.meta()["reembed_pending"] is False
        assert store.counts()["chunk_vectors"] == n_chunks


def test_late_vectors_skipped_now_are_reported_pending_and_added_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(kb_module, "open_encoder", lambda s: HashEncoder())
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tender.md").write_text("# 招标公告\n\n投标保证金为人民币伍万元。\n\n履约保证金为合同金额的百分之十。\n")
    kb = tmp_path / "kb.kb"
    settings = load_settings(environ={}, overrides={"ingest.late": True})
    first = api.open_kb(kb, settings, encoder=HashEncoder()).add([docs], api.AddRequest(late=False)).ingest
    assert "late" not in first.units and first.units["embed"] > 0
    stats = api.open_kb(kb, settings).stats()
    assert stats.late_pending == stats.vectors["chunks"] > 0 and stats.vectors["chunk_vectors"] == stats.late_pending
    assert api.open_kb(kb, settings).search(
        "投标保证金", api.SearchRequest(mode="hybrid")
    )  # searchable before its late vectors
    with pytest.raises(api.InputError, match="no late-chunked vectors .* ingest with --late adds them"):
        api.open_kb(kb, settings).search("投标保证金", api.SearchRequest(mode="late"))
    again = api.open_kb(kb, settings, encoder=HashEncoder()).add([docs]).ingest  # unchanged file: only the late vectors
    assert again.units["late"] == stats.vectors["chunks"] and again.units.get("embed", 0) == 0
    assert api.open_kb(kb, settings).stats().late_pending == 0
    assert api.open_kb(kb, settings).search("投标保证金", api.SearchRequest(mode="late"))
