"""Fact hops with the default encoder (EmbeddingGemma) at the default settings: its similarity scale meets
``search.hop_similarity``, so the director's page, which the question never names, comes third."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.ingest.enrich.enrich import embed_facts
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from tests.support.cli import run_cli
from tests.support.embed_models import GEMMA_DIR, load_encoder
from tests.support.enrich_corpus import INGEST, write_corpus
from tests.support.hop_corpus import CORPUS, DIRECTOR, FILM, QUESTION, put_facts

pytestmark = pytest.mark.slow


def test_the_default_encoder_and_settings_bring_the_unnamed_director_third(tmp_path: Path) -> None:
    encoder = load_encoder(GEMMA_DIR)
    s = load_settings(environ={}).search
    with Store.open(tmp_path / "hops.kb", encoder_id=encoder.model_id, dim=encoder.dim, create=True) as store:
        report = Ingestor(store, encoder, INGEST).ingest_paths([write_corpus(tmp_path / "docs", CORPUS)])
        assert not report.failed, report.failed
        ids = put_facts(store, encoder)  # the names' vectors, as enrichment stores them
        assert embed_facts(store, encoder) == 5

        def ranked(hops: int) -> list[tuple[int, str]]:
            hits = search(
                store, encoder, QUESTION, k=5, weights=s.weights(), fusion=s.fusion, hops=hops,
                hop_similarity=s.hop_similarity,
            )  # fmt: skip
            return [(h.chunk.id, h.via) for h in hits]

        without = ranked(0)
        assert without[0][0] == ids["torchy.md"]  # the film's page: the question names it
        assert ids["clemens.md"] not in [c for c, _ in without[:3]]  # nothing in the director's page names the film
        with_ = ranked(s.hops)
        assert with_[:2] == without[:2]
        assert with_[2] == (ids["clemens.md"], f"{FILM} directed by {DIRECTOR}")
    # the CLI shows the hop and the fact it came through
    proc = run_cli("search", str(tmp_path / "hops.kb"), QUESTION, "-k", "3")
    assert proc.returncode == 0, proc.stderr
    assert "[3] clemens.md" in proc.stdout and f"via the fact: {FILM} directed by {DIRECTOR}" in proc.stdout
    rows = json.loads(run_cli("search", str(tmp_path / "hops.kb"), QUESTION, "-k", "3", "--json").stdout)
    assert [r["via"] for r in rows] == ["", "", f"{FILM} directed by {DIRECTOR}"]
