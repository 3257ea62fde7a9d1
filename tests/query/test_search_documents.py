"""Search kept to some documents: every ranking chooses its candidates among their chunks, so a document that the
whole KB's ranking buries still gets its ``k`` hits (a filter on the result would leave it short or empty)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.ingest.pipeline import Ingestor
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from tests.support.search_corpus import ENC, OPTIONS

# Twenty documents about the bid bond and nothing else, and one that names it twice among other matters.
LOUD = "# 投标保证金 {n}\n\n投标保证金 投标保证金 投标保证金。投标保证金为人民币{n}万元。投标保证金 投标保证金。\n"
QUIET = (
    "# 交货与验收\n\n供应商应按合同约定的时间交货，货物到达后由采购人组织验收，验收合格后签署验收单。\n\n"
    "## 付款\n\n付款在验收合格后三十日内办理，另附投标保证金退还的说明。\n\n"
    "## 质保\n\n质保期为两年，质保期内的维修费用由供应商承担，质保期满后退还投标保证金的余额。\n"
)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    root = tmp_path_factory.mktemp("docsearch")
    folder = root / "docs"
    folder.mkdir()
    for n in range(20):
        (folder / f"loud{n:02d}.md").write_text(LOUD.format(n=n + 1), encoding="utf-8")
    (folder / "quiet.md").write_text(QUIET, encoding="utf-8")
    path = root / "kb.sqlite"
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        report = Ingestor(store, ENC, OPTIONS).ingest_paths([folder])
        assert report.count("ingested") == 21 and not report.failed
        quiet = next(d.id for d in store.docs.documents() if d.path.endswith("quiet.md"))
    return path, quiet


@pytest.mark.parametrize("mode", ["bm25", "dense", "late", "hybrid"])
def test_a_buried_document_still_gets_k_hits_of_its_own(kb: tuple[Path, int], mode: str) -> None:
    path, quiet = kb
    with Store.open_existing(path) as store:
        n_quiet = len(store.chunks.chunks_of(quiet))
        whole = search(store, ENC, "投标保证金", mode=mode, k=16)  # type: ignore[arg-type]
        kept = search(store, ENC, "投标保证金", mode=mode, k=2, doc_ids=[quiet])  # type: ignore[arg-type]
    assert n_quiet >= 2
    if mode == "bm25":  # the loud documents fill the whole KB's first 16 (eight times two) by BM25
        assert all(h.chunk.doc_id != quiet for h in whole)
    assert len(kept) == 2
    assert all(h.chunk.doc_id == quiet for h in kept)


def test_bm25_within_a_document_ranks_its_chunks_holding_the_term(kb: tuple[Path, int]) -> None:
    path, quiet = kb
    with Store.open_existing(path) as store:
        kept = search(store, ENC, "投标保证金", mode="bm25", k=5, doc_ids=[quiet])
    # two of the quiet document's passages name the bid bond (payment and warranty); BM25 finds only those
    assert len(kept) == 2
    assert all("投标保证金" in h.chunk.text for h in kept)


def test_vectors_and_full_text_of_no_document_are_empty(kb: tuple[Path, int]) -> None:
    path, _quiet = kb
    with Store.open_existing(path) as store:
        vector = ENC.encode(["投标保证金"], role="query")[0]
        assert store.index.knn("chunk", vector, 5, doc_ids=[]) == []
        assert store.index.fts_search("chunk", "投标保证金", 5, doc_ids=[]) == []
        with pytest.raises(ValueError, match="not kept per document"):
            store.index.knn("entity", vector, 5, doc_ids=[1])
