"""Legal cross-references in a real KB file (store/references.py, read by the ingest pipeline): citations stored
with their places, resolved to the cited article's chunk, resolved later when the law arrives later, unresolved
when the law is removed, a KB made before they existed read on the next ingest, and the sample tender's citation
of 《中华人民共和国招标投标法实施条例》第四条 reaching that article of the real statute."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.domain.references import StoredRef
from pikelocal.ingest.pipeline import Ingestor, SourceText
from pikelocal.store.store import Store
from tests.support.paths import SHARED_DATA
from tests.support.refs_kb import ACT, JUDGMENT, REGULATION, TENDER_TEXT, ingest
from tests.support.search_corpus import ENC, OPTIONS


def doc_id(store: Store, key: str) -> int:
    (doc,) = [d for d in store.docs.documents() if d.path == key]
    return doc.id


def refs_of(store: Store, key: str) -> list[StoredRef]:
    return store.refs.refs(doc_id(store, key))


def article_chunk_text(store: Store, ref: StoredRef) -> str:
    assert ref.target_chunk is not None, ref
    (chunk,) = store.chunks.get_chunks([ref.target_chunk])
    return chunk.text


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "kb.sqlite", encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


def test_citation_resolves_to_the_article_chunk(store: Store) -> None:
    ingest(store, REGULATION, TENDER_TEXT)
    refs = refs_of(store, TENDER_TEXT.key)
    assert [(r.text, r.ref.law, r.ref.article, r.ref.detail) for r in refs] == [
        ("《中华人民共和国招标投标法实施条例》第四条第三款", "中华人民共和国招标投标法实施条例", "4", "第三款"),
        ("《建筑法》", "建筑法", None, ""),
        ("本法第九条", None, "9", ""),
    ]
    cited, building, own = refs
    assert cited.resolved and cited.target_doc == doc_id(store, REGULATION.key)
    assert cited.target_title == "中华人民共和国招标投标法实施条例"
    assert "第四条 国务院发展改革部门" in article_chunk_text(store, cited)
    assert not building.resolved and building.target_doc is None  # 建筑法 is not in the KB
    assert not own.resolved  # the tender has no article 9 of its own
    counts = store.refs.counts()
    # the regulation's own: 《中华人民共和国招标投标法》, 招标投标法第三条 (not in the KB), 本条例第二条 (resolved)
    assert [r.text for r in refs_of(store, REGULATION.key)] == [
        "《中华人民共和国招标投标法》",
        "招标投标法第三条",
        "本条例第二条",
    ]
    assert (counts.refs, counts.resolved, counts.unread) == (6, 2, 0)


def test_a_law_cites_its_own_articles_and_the_law_it_implements(store: Store) -> None:
    ingest(store, REGULATION)
    by_text = {r.text: r for r in refs_of(store, REGULATION.key)}
    own = by_text["本条例第二条"]
    assert own.resolved and own.target_doc == doc_id(store, REGULATION.key)
    assert "第二条 招标投标法第三条" in article_chunk_text(store, own)
    # 招标投标法 itself is not in the KB: the citation is kept, unresolved, and not mistaken for the regulation
    assert not by_text["招标投标法第三条"].resolved and by_text["招标投标法第三条"].target_doc is None


def test_a_law_added_later_resolves_earlier_citations_and_removing_it_unresolves_them(store: Store) -> None:
    ingest(store, TENDER_TEXT)
    (cited, *_) = refs_of(store, TENDER_TEXT.key)
    assert not cited.resolved
    ingest(store, REGULATION)
    (cited, *_) = refs_of(store, TENDER_TEXT.key)
    assert cited.resolved and "第四条" in article_chunk_text(store, cited)
    with store.transaction():
        store.docs.delete_document(doc_id(store, REGULATION.key))
    (cited, *_) = refs_of(store, TENDER_TEXT.key)
    assert not cited.resolved and cited.target_doc is None and cited.target_chunk is None


def test_english_act_sections_resolve(store: Store) -> None:
    ingest(store, ACT, JUDGMENT)
    refs = refs_of(store, JUDGMENT.key)
    assert [(r.ref.law, r.ref.article) for r in refs] == [("Contracts Review Act 1980 (NSW)", "7"), (None, "6")]
    assert refs[0].resolved and "7 Principal relief" in article_chunk_text(store, refs[0])
    assert not refs[1].resolved  # a bare "s 6(1)" in a judgment is the judgment's own: it has no section 6


def test_of_two_versions_of_a_law_the_one_with_the_article_is_cited(store: Store) -> None:
    old = SourceText("laws/old.md", "中华人民共和国招标投标法实施条例（2011年）", "第一条 旧版本只有一条。\n")
    ingest(store, REGULATION, old, TENDER_TEXT)  # `old` is added after REGULATION, but has no article 4
    (cited, *_) = refs_of(store, TENDER_TEXT.key)
    assert cited.target_doc == doc_id(store, REGULATION.key)


def test_a_kb_made_before_references_is_read_on_the_next_ingest(store: Store) -> None:
    ingest(store, REGULATION, TENDER_TEXT)
    before = [(r.text, r.target_chunk) for r in store.refs.refs()]
    with store.transaction():  # what a KB of schema version 5 looks like once migrated: nothing read
        store.db.execute("DELETE FROM law_refs; DELETE FROM law_articles; UPDATE chunks SET refs_read = NULL")
    assert store.refs.counts().unread > 0 and store.refs.refs() == []
    Ingestor(store, ENC, OPTIONS).finish_pending()
    assert [(r.text, r.target_chunk) for r in store.refs.refs()] == before
    assert store.refs.counts().unread == 0


def test_cited_by_follows_resolved_citations_in_the_citing_order(store: Store) -> None:
    ingest(store, REGULATION, TENDER_TEXT)
    (cited, *_) = refs_of(store, TENDER_TEXT.key)
    assert store.refs.cited_by([cited.chunk_id], limit=3) == [cited.target_chunk]
    assert store.refs.cited_by([cited.chunk_id], limit=0) == []
    assert cited.target_chunk is not None
    assert store.refs.cited_by([cited.chunk_id, cited.target_chunk], limit=3) == []  # already read: not again


def test_a_question_citing_an_article_resolves(store: Store) -> None:
    ingest(store, REGULATION)
    ((ref, doc, chunk),) = store.refs.resolve_text("招标投标法实施条例第四条规定了什么？")
    assert (ref.law, ref.article, doc) == ("招标投标法实施条例", "4", doc_id(store, REGULATION.key))
    assert chunk is not None
    ((ref, doc, chunk),) = store.refs.resolve_text("第四条规定了什么？")  # no law named: a question has no own
    assert (ref.article, doc, chunk) == ("4", None, None)


def test_the_sample_tender_cites_the_real_regulation(tmp_path: Path) -> None:
    """The sample tender PDF and the statute it cites (the regulation's text from ../shared): its citation of
    第四条第三款 reaches the chunk where 第四条 begins, whose text is that article."""
    tender = SHARED_DATA / "pdfs" / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
    law = SHARED_DATA / "legal_zh" / "laws_lawrefbook" / "行政法规" / "招标投标法实施条例(2019-03-02).md"
    if not (tender.is_file() and law.is_file()):
        pytest.skip("../shared is absent")
    with Store.open(tmp_path / "kb.sqlite", encoder_id=ENC.model_id, dim=ENC.dim) as store:
        report = Ingestor(store, ENC, OPTIONS).ingest_paths([tender, law])
        assert not report.failed
        tender_id = next(d.id for d in store.docs.documents() if d.path.endswith(".pdf"))
        law_id = next(d.id for d in store.docs.documents() if d.path.endswith(".md"))
        cites = [
            r for r in store.refs.refs(tender_id) if r.ref.article == "4" and r.ref.law and "实施条例" in r.ref.law
        ]
        assert cites, [r.text for r in store.refs.refs(tender_id)]
        for r in cites:
            assert r.target_doc == law_id and r.resolved
            text = article_chunk_text(store, r)
            assert "第四条 国务院发展改革部门指导和协调全国招标投标工作" in text
