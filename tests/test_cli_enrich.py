"""`pikelocal enrich` and `pikelocal stats` at the command line (no model: errors, and stats of a prepared KB)."""

from __future__ import annotations

import json
from pathlib import Path

from pikelocal.config import Settings
from pikelocal.domain import CachedCompletion
from pikelocal.domain.search import FusionTuning
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor, SourceText
from pikelocal.query.retrieve.fusion_tuning import save_tuning
from pikelocal.store.store import Store
from tests.support.cli import assert_one_line_error, run_cli

ENC = HashEncoder()


def prepared_kb(path: Path) -> None:
    """Two documents, one chunk of which has questions and one of which failed; two stored completions."""
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        docs = [SourceText("a.md", "Bid bond rules", "The bid bond is 50,000 yuan."), SourceText("b.md", "", "x y z")]
        Ingestor(store, ENC, IngestOptions.from_settings(Settings(), late=False)).ingest_texts(docs)
        a, b = (store.chunks.chunks_of(d.id)[0] for d in store.docs.documents())
        for doc in store.docs.documents():
            store.enrichment.save_document_summary(doc.id, status="skipped")
        qs = ["How much is the bid bond of the Bid bond rules?"]
        store.enrichment.save_atoms(a.id, status="done", questions=qs, lang="en", vectors=ENC.encode(qs, role="query"))
        store.enrichment.save_atoms(b.id, status="failed", error="no usable question (not in English)")
        for i, tag in enumerate(("atomize", "atomize")):
            store.cache.put_cached_completion(CachedCompletion(f"k{i}", "fake", tag, "{}", 100, 20, 4.0))


def test_stats_shows_progress_usage_and_failures(tmp_path: Path) -> None:
    kb = tmp_path / "kb.sqlite"
    prepared_kb(kb)
    proc = run_cli("stats", str(kb))
    assert proc.returncode == 0, proc.stderr
    assert "questions: 1 done, 1 failed" in proc.stdout and "1 atomic questions" in proc.stdout
    assert "atomize" in proc.stdout and "200" in proc.stdout  # two calls of 100 prompt tokens
    assert "no usable question (not in English)" in proc.stdout
    # no late vectors, and none will come while ingest.late is off (the default); with it on they are pending
    assert "late off (ingest.late)" in proc.stdout and "pending" not in proc.stdout
    late_on = run_cli("stats", str(kb), env={"PIKELOCAL_INGEST_LATE": "true"}).stdout
    assert "late 0/2 (2 pending: search uses the late vectors present;" in late_on, late_on
    data = json.loads(run_cli("stats", str(kb), "--json").stdout)
    assert data["counts"]["atoms"]["done"] == 1 and data["usage"][0]["calls"] == 2
    assert data["seconds_per_chunk"] == 4.0  # 8 s of model time over the two chunks handled
    assert "Hybrid weights tuned" not in proc.stdout and data["fusion"] is None  # not tuned: too few questions


def test_stats_shows_the_weights_enrich_tuned(tmp_path: Path) -> None:
    kb = tmp_path / "kb.sqlite"
    prepared_kb(kb)
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim, create=False) as store:
        save_tuning(store, FusionTuning(1.5, 0.0, 412, 0.8, 0.81, 0.7, ENC.model_id, "zscore", 412))
    proc = run_cli("stats", str(kb))
    assert proc.returncode == 0, proc.stderr
    assert (
        "Hybrid weights tuned on 412 atomic questions: BM25 1.5, late 0 (used while search.tuned is on)" in proc.stdout
    )
    data = json.loads(run_cli("stats", str(kb), "--json").stdout)
    assert data["fusion"]["bm25_weight"] == 1.5 and data["fusion"]["queries"] == 412


def test_enrich_on_a_missing_kb_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("--encoder", "minilm", "enrich", str(tmp_path / "none.kb"))
    assert_one_line_error(proc, 5, "none.kb does not exist")


def test_enrich_limit_must_be_positive(tmp_path: Path) -> None:
    proc = run_cli("enrich", str(tmp_path / "none.kb"), "--limit", "0")
    assert proc.returncode == 2 and "--limit" in proc.stderr
