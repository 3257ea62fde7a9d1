"""The ingest stages "statements" (each document read for its statements, no model) and "statement_vectors": a run
killed between or inside them resumes where it stopped and does nothing twice, ends as an uninterrupted run does,
and ``reembed`` makes every statement's vector again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.events import Event, StageStarted
from pikelocal.domain.statements import Statement
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest import pipeline
from pikelocal.ingest.enrich.statements import vector_text
from pikelocal.ingest.pipeline import IngestOptions, Ingestor, IngestReport, SourceText
from pikelocal.kb.options import ingest_options
from pikelocal.store.store import Store
from tests.support.encoders import CountingEncoder

DOCS = [
    SourceText("a.md", "甲", "# 招标公告\n\n投标保证金为人民币伍万元。服务期为1095日历天。\n"),
    SourceText("b.md", "乙", "# 评分标准\n\n总分100分，其中：投标报价40分，技术方案30分，商务30分。\n"),
    SourceText("c.md", "丙", "# 合同\n\nThe Supplier must deliver the Pumps within 30 days and pay AUD 2,000.\n"),
]


class Crash(Exception):
    pass


class CrashOnStatements(CountingEncoder):
    """Raises on the ``after``-th ``encode`` call once armed (by the sink, when the statement_vectors stage starts)."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after, self.calls, self.armed = after, 0, False

    def _count(self, site: str, n: int) -> None:
        if self.armed and site == "encode":
            if self.calls >= self.after:
                raise Crash("killed while embedding statements")
            self.calls += 1

    def sink(self, event: Event) -> None:
        if isinstance(event, StageStarted):
            self.armed = event.stage == "statement_vectors"


@pytest.fixture(autouse=True)
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "STATEMENTS_PER_BATCH", 4)  # with embed_batch 1: four statements per commit


def options() -> IngestOptions:
    return replace(ingest_options(load_settings(environ={})), embed_batch=1)  # 4 statements per batch


def rows(store: Store) -> list[tuple[int | None, str, str, str]]:
    return [
        (s.id, s.subject, s.value.normal, s.sentence)
        for d in store.docs.documents()
        for s in store.statements.of_document(d.id)
    ]


@pytest.fixture
def reference(tmp_path: Path) -> list[tuple[int | None, str, str, str]]:
    with Store.open(tmp_path / "clean.kb", encoder_id="hash-bigram", dim=256) as store:
        report = Ingestor(store, HashEncoder(), options()).ingest_texts(DOCS)
        assert report.units["statements"] == 3 and report.units["statement_vectors"] == store.counts()["statements"]
        assert store.statements.counts().without_vectors == 0 and store.integrity_check() == []
        return rows(store)


def test_killed_while_embedding_statements_resumes_with_the_rest(
    tmp_path: Path, reference: list[tuple[int | None, str, str, str]]
) -> None:
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        with pytest.raises(Crash):
            encoder = CrashOnStatements(after=1)
            Ingestor(store, encoder, options(), encoder.sink).ingest_texts(DOCS)
        stored = store.counts()["statements"]
        assert stored == len(reference) and store.counts()["statement_vectors"] == 4  # one batch of four
        before = rows(store)
    counting = CountingEncoder()
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        report = Ingestor(store, counting, options()).finish_pending(IngestReport())
        assert report.units["statements"] == 0  # no document is read twice
        assert report.units["statement_vectors"] == counting.texts == stored - 4  # nor a statement embedded twice
        assert rows(store) == before == reference
        assert store.statements.counts().without_vectors == 0 and store.integrity_check() == []


def test_killed_between_documents_reads_only_the_rest(
    tmp_path: Path, reference: list[tuple[int | None, str, str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb.kb"
    read: list[int] = []
    real = pipeline.document_statements

    def crash_on_second(doc_id: int, *args: object) -> list[Statement]:
        if len(read) == 1:
            raise Crash("killed while reading statements")
        read.append(doc_id)
        return real(doc_id, *args)  # type: ignore[arg-type]

    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        with monkeypatch.context() as m:
            m.setattr(pipeline, "document_statements", crash_on_second)
            with pytest.raises(Crash):
                Ingestor(store, HashEncoder(), options()).ingest_texts(DOCS)
        assert len(store.statements.unread_documents()) == 2  # the first one is stored, with its mark
        first = rows(store)
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        report = Ingestor(store, HashEncoder(), options()).finish_pending(IngestReport())
        assert report.units["statements"] == 2
        assert rows(store)[: len(first)] == first  # the first document's statements kept, ids and all
        assert rows(store) == reference
        assert store.integrity_check() == []


def test_killed_before_the_statements_stage_reads_them_on_resume(
    tmp_path: Path, reference: list[tuple[int | None, str, str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id="hash-bigram", dim=256) as store:
        with monkeypatch.context() as m:  # the run dies after `refs`, before `statements`
            m.setattr(Ingestor, "read_statements", lambda self, report: (_ for _ in ()).throw(Crash("killed")))
            with pytest.raises(Crash):
                Ingestor(store, HashEncoder(), options()).ingest_texts(DOCS)
        assert all(d.stage == "ready" for d in store.docs.documents()) and store.counts()["statements"] == 0
    settings = load_settings(environ={})
    with api.open_kb(kb, settings) as knowledge_base:  # a listing reads them, without a model
        listed = knowledge_base.statements()
    with Store.open_existing(kb) as store:
        assert rows(store) == reference
        assert [s.id for s in listed] == [r[0] for r in reference]


def test_reembed_makes_every_statement_vector_again(tmp_path: Path) -> None:
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id="hash-bigram", dim=256, probe=HashEncoder()) as store:
        Ingestor(store, HashEncoder(), options()).ingest_texts(DOCS)
        n = store.counts()["statements"]
    new = Negated()
    report = api.open_kb(kb, load_settings(environ={}), encoder=new).reembed()
    assert report.ingest.units["statement_vectors"] == n
    with Store.open_existing(kb) as store:
        assert store.counts()["statement_vectors"] == n and store.integrity_check() == []
        for s in [s for d in store.docs.documents() for s in store.statements.of_document(d.id)]:
            expected = new.encode([vector_text(s)], role="passage")[0]
            np.testing.assert_allclose(store.index.vector("statement", s.id or 0), expected, atol=1e-6)


def test_a_question_finds_its_statement(tmp_path: Path) -> None:
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id="hash-bigram", dim=256, probe=HashEncoder()) as store:
        Ingestor(store, HashEncoder(), options()).ingest_texts(DOCS)
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        [best] = knowledge_base.statements(query="投标保证金是多少", k=1)
        assert (best.subject, best.value.normal) == ("投标保证金", "50000 CNY")
        assert [s.value.normal for s in knowledge_base.statements(docs=["b.md"])] == [
            "100 points", "40 points", "30 points", "30 points",
        ]  # fmt: skip


class Negated(HashEncoder):
    """The hashing encoder's vectors turned around: same id and dimension, other numbers."""

    build = "negated"

    def encode(self, texts: Sequence[str], *, role):  # type: ignore[no-untyped-def]
        return -super().encode(texts, role=role)
