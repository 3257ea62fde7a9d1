"""The ingestion fast path on the real default encoder (EmbeddingGemma) and a real PDF, end to end (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pypdf
import pytest

from pikelocal import api
from pikelocal.store.store import Store
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def constitution_kb(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[Path, Path]:
    installed_model("embeddinggemma-300m/model.onnx")
    pdf = shared_data / "pdfs" / "zh_law" / "中华人民共和国宪法.pdf"
    kb = tmp_path_factory.mktemp("real") / "constitution.kb"
    with api.open_kb(kb, api.load_settings(environ={}, overrides={"ingest.late": True})) as knowledge_base:
        report = knowledge_base.add([pdf]).ingest
    assert [o.status for o in report.outcomes] == ["ingested"]
    return kb, pdf


def test_every_stage_ran_with_the_default_encoder(constitution_kb: tuple[Path, Path]) -> None:
    kb, _ = constitution_kb
    with Store.open_existing(kb) as store:
        assert store.encoder_id == "embeddinggemma-300m-int8" and store.dim == 768
        (doc,) = store.docs.documents()
        assert doc.stage == "ready" and doc.n_pages == 23 and doc.title == "中华人民共和国宪法"
        counts = store.counts()
        assert counts["chunks"] == counts["chunk_vectors"] == counts["late_vectors"] > 20
        assert store.integrity_check() == []
        chunks = store.chunks.chunks_of(doc.id)
        assert any("第三章 国家机构" in " › ".join(c.section_path) for c in chunks)
        assert all(c.header.startswith("中华人民共和国宪法") for c in chunks)


def test_late_vectors_are_in_context_versions_of_the_early_ones(constitution_kb: tuple[Path, Path]) -> None:
    kb, _ = constitution_kb
    with Store.open_existing(kb) as store:
        ids = [c.id for c in store.chunks.chunks_of(store.docs.documents()[0].id)]
        # a chunk's late vector is nearer to its own early vector than to most other chunks' early vectors
        own_rank = []
        for cid in ids[::5]:
            late = store.index.vector("late", cid)
            assert late is not None and abs(float(np.linalg.norm(late)) - 1.0) < 1e-3
            ranked = [i for i, _ in store.index.knn("chunk", late, len(ids))]
            own_rank.append(ranked.index(cid))
        assert np.median(own_rank) <= 2, own_rank


@pytest.mark.parametrize("mode", ["dense", "late", "hybrid", "bm25"])
def test_search_finds_the_term_of_office_on_its_page(constitution_kb: tuple[Path, Path], mode: str) -> None:
    kb, pdf = constitution_kb
    pages = [(p.extract_text() or "").replace("\n", "") for p in pypdf.PdfReader(pdf).pages]
    query = "中华人民共和国主席每届任期几年？" if mode != "bm25" else "主席 副主席 每届任期"
    with api.open_kb(kb, api.load_settings(environ={})) as knowledge_base:
        hits = knowledge_base.search(query, api.SearchRequest(mode=mode, k=3))  # type: ignore[arg-type]
    assert hits
    good = [h for h in hits if "主席、副主席每届任期" in h.chunk.text.replace("\n", "")]
    assert good, [h.chunk.text[:60] for h in hits]
    hit = good[0]
    span = range(hit.chunk.page_start, hit.chunk.page_end + 1)
    assert any("主席、副主席每届任期" in pages[p - 1] for p in span)  # the cited page holds the sentence
