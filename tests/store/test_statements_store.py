"""The store's statements (store/statements.py, schema v12): stored with their full-text rows and vectors, searched,
removed with their document, and added to a KB made before them (a v11 KB made here with the current store, its
last migration held back)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.documents import NewChunk, NewPage
from pikelocal.domain.review import Value
from pikelocal.domain.statements import Statement
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.statements import vector_text
from pikelocal.ingest.pipeline import Ingestor, IngestReport, SourceText
from pikelocal.kb.options import ingest_options
from pikelocal.store import schema
from pikelocal.store.store import Store

ENC = HashEncoder()
BOND = "投标保证金为人民币伍万元。"
TERM = "服务期为1095日历天。"


def statement(doc_id: int, subject: str, sentence: str, normal: str, start: int) -> Statement:
    value = Value("duration" if "days" in normal else "amount", sentence[-8:-1], normal)
    return Statement(doc_id, value, subject, ("bid_bond",) if "保证金" in subject else ("contract_term",), sentence,
                     "第十条", 1, 1, 1, start, start + 5)  # fmt: skip


def add_document(store: Store, path: str, text: str) -> int:
    doc_id, _ids = store.docs.add_parsed_document(
        path=path, sha256=path, title=path, kind="md", pages=[NewPage(1, text, 0, (0,))],
        chunks=[NewChunk(0, text, 0, len(text), 1, 1, 1, 1)], stage="parsed",
    )  # fmt: skip
    return doc_id


@pytest.fixture
def store(tmp_path: Path):  # type: ignore[no-untyped-def]
    with Store.open(tmp_path / "kb.kb", encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


def test_stored_statements_read_back_and_are_searched(store: Store) -> None:
    doc = add_document(store, "a.md", BOND + TERM)
    ids = store.statements.add(doc, [statement(doc, "投标保证金", BOND, "50000 CNY", 0),
                                     statement(doc, "服务期", TERM, "1095 days", 13)])  # fmt: skip
    back = store.statements.of_document(doc)
    assert [s.id for s in back] == ids
    assert [replace(s, id=None) for s in back] == [
        statement(doc, "投标保证金", BOND, "50000 CNY", 0), statement(doc, "服务期", TERM, "1095 days", 13),
    ]  # fmt: skip
    assert store.statements.unread_documents() == []
    assert store.statements.counts().without_vectors == 2
    # full text: the CJK bigrams of the subject and sentence
    assert [h.statement.subject for h in store.statements.search_fts("投标保证金", 5)] == ["投标保证金"]
    assert [h.statement.subject for h in store.statements.search_fts("服务期有多长时间", 5)] == ["服务期"]
    # vectors: one per statement, of its subject and sentence
    batch = store.statements.without_vectors()
    store.statements.put_vectors([s.id for s in batch if s.id is not None],
                                 ENC.encode([vector_text(s) for s in batch], role="passage"))  # fmt: skip
    assert store.statements.counts().without_vectors == 0
    query = ENC.encode(["投标保证金是多少"], role="query")[0]
    assert store.statements.knn(query, 1)[0].statement.subject == "投标保证金"
    assert store.integrity_check() == []


def test_search_keeps_to_the_documents_asked_for(store: Store) -> None:
    a, b = add_document(store, "a.md", BOND), add_document(store, "b.md", "押标金" + BOND)
    store.statements.add(a, [statement(a, "投标保证金", BOND, "50000 CNY", 0)])
    store.statements.add(b, [statement(b, "投标保证金", "押标金" + BOND, "50000 CNY", 3)])
    assert {h.statement.doc_id for h in store.statements.search_fts("投标保证金", 5)} == {a, b}
    assert [h.statement.doc_id for h in store.statements.search_fts("投标保证金", 5, doc_ids=[b])] == [b]


def test_adding_again_replaces_a_documents_statements(store: Store) -> None:
    doc = add_document(store, "a.md", BOND)
    store.statements.add(doc, [statement(doc, "投标保证金", BOND, "50000 CNY", 0)])
    store.statements.add(doc, [statement(doc, "押标金", "押标金为新台币5万元。", "50000 TWD", 0)])
    assert [s.subject for s in store.statements.of_document(doc)] == ["押标金"]
    assert store.statements.search_fts("投标保证金", 5) == []
    assert len(store.statements.search_fts("押标金", 5)) == 1
    assert store.integrity_check() == []


def test_statements_go_with_their_document(store: Store) -> None:
    doc = add_document(store, "a.md", BOND)
    [sid] = store.statements.add(doc, [statement(doc, "投标保证金", BOND, "50000 CNY", 0)])
    store.statements.put_vectors([sid], ENC.encode([BOND], role="passage"))
    assert store.counts()["statements"] == store.counts()["statement_vectors"] == 1
    assert store.docs.delete_document(doc)
    assert store.counts()["statements"] == store.counts()["statement_vectors"] == 0
    assert store.statements.search_fts("投标保证金", 5) == []
    assert store.integrity_check() == []


def test_a_changed_file_replaces_its_statements(tmp_path: Path) -> None:
    doc = tmp_path / "tender.md"
    doc.write_text("# 招标公告\n\n投标保证金为人民币伍万元。\n", encoding="utf-8")
    kb = tmp_path / "kb.kb"
    settings = load_settings(environ={})
    with api.open_kb(kb, settings, encoder=HashEncoder()) as knowledge_base:
        knowledge_base.add([doc])
        assert [s.value.normal for s in knowledge_base.statements()] == ["50000 CNY"]
        doc.write_text("# 招标公告\n\n投标保证金为人民币陆万元。\n", encoding="utf-8")
        knowledge_base.add([doc])
        assert [s.value.normal for s in knowledge_base.statements()] == ["60000 CNY"]
        knowledge_base.remove(str(doc))
        assert knowledge_base.statements() == []
    with Store.open_existing(kb) as store:
        assert store.counts()["statement_vectors"] == 0 and store.integrity_check() == []


def test_a_v11_kb_gets_the_statements_of_its_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kb = tmp_path / "old.kb"
    tender = SourceText("tender.md", "招标公告", "# 招标公告\n\n投标保证金为人民币伍万元。服务期为1095日历天。\n")
    with monkeypatch.context() as m:  # the store as it was before statements: v11, and an ingest without them
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:11])
        m.setattr(schema, "LATEST_VERSION", 11)
        m.setattr(Ingestor, "read_statements", lambda self, report: None)
        m.setattr(Ingestor, "embed_statements", lambda self, report: None)
        with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim, probe=ENC) as store:
            Ingestor(store, ENC, ingest_options(load_settings(environ={}))).ingest_texts([tender])
        with Store.open_existing(kb) as store:
            assert schema.schema_version(store.db._conn) == 11  # noqa: SLF001 - the file's own version
            assert "statements" not in {str(r[0]) for r in store.db.rows("SELECT name FROM sqlite_schema")}
    # read-only, as `pikelocal figures` or a listing opens it: migrated, the statements read without a model
    with api.open_kb(kb, load_settings(environ={})) as knowledge_base:
        found = knowledge_base.statements()
    assert [(s.subject, s.value.normal) for s in found] == [("投标保证金", "50000 CNY"), ("服务期", "1095 days")]
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim, probe=ENC) as store:
        assert schema.schema_version(store.db._conn) == schema.LATEST_VERSION  # noqa: SLF001
        assert store.statements.counts().without_vectors == 2  # read, not yet embedded
        report = Ingestor(store, ENC, ingest_options(load_settings(environ={}))).finish_pending(IngestReport())
        assert report.units["statements"] == 0 and report.units["statement_vectors"] == 2
        assert store.statements.counts().without_vectors == 0
        assert store.integrity_check() == []
        vector = store.index.vector("statement", found[0].id or 0)
        expected = ENC.encode([vector_text(found[0])], role="passage")[0]
        assert vector is not None and np.allclose(vector, expected, atol=1e-6)
