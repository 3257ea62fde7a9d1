"""The Enricher on a real KB file with a scripted LLM: summaries into headers, questions, retries, reruns, removal.

The corpus (tests/enrich/corpus.py) has a Chinese Markdown document of nine chunks with its own title, an English
text file of five chunks titled only by its file name, and a one-paragraph Markdown memo with its own title.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from pikelocal.config import Settings
from pikelocal.domain.documents import ChunkRecord, DocumentRecord
from pikelocal.domain.reports import EnrichFailure
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions, EnrichReport
from pikelocal.ingest.pipeline import IngestOptions, Ingestor, SourceText
from pikelocal.ingest.split.context import chunk_header, with_header
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from pikelocal.text.lang import detect_lang
from tests.support.enrich_corpus import (
    BAD_JSON,
    EN_STEM,
    FAIL_MARK,
    GENERATED_TITLE_PREFIX,
    RETRY_MARK,
    SCRIPT,
    SHORT_TITLE,
    SUMMARY_WORD_EN,
    SUMMARY_WORD_ZH,
    ZH_TITLE,
    build_kb,
    chunk_status,
    open_kb,
    passage_of,
    question_rows,
    questions_for,
    scripted_llm,
    write_corpus,
)

ENC = HashEncoder()
GENERATED_TITLE = f"{GENERATED_TITLE_PREFIX} {EN_STEM}"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs"))


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with open_kb(kb, create=False) as s:
        yield s


def docs_by_name(store: Store) -> dict[str, DocumentRecord]:
    return {Path(d.path).name: d for d in store.docs.documents()}


def all_chunks(store: Store) -> list[ChunkRecord]:
    return [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]


def enrich(store: Store, llm: FakeLLM, **options: object) -> EnrichReport:
    return Enricher(store, ENC, llm, EnrichOptions.from_settings(Settings(), **options)).run()  # type: ignore[arg-type]


def atomize_calls(llm: FakeLLM, needle: str | None = None) -> list[tuple[Message, ...]]:
    calls = [c.messages for c in llm.calls if c.tag.startswith("atomize")]
    return [m for m in calls if needle is None or needle in passage_of(m)[1]]


# --- summaries ----------------------------------------------------------------------------------------------


def test_summaries_go_into_every_header_and_the_chunks_are_embedded_again(store: Store) -> None:
    before = {c.id: (c.header, store.index.vector("chunk", c.id)) for c in all_chunks(store)}
    assert (
        store.index.fts_search("chunk", SUMMARY_WORD_EN, 50) == []
        and store.index.fts_search("chunk", SUMMARY_WORD_ZH, 50) == []
    )
    llm = scripted_llm()
    report = enrich(store, llm)
    assert (report.summarized, report.skipped) == (2, 1)
    assert report.summary_cost.items == 2 and report.summary_cost.calls == 2

    docs = docs_by_name(store)
    zh, en, memo = docs["zh_rules.md"], docs[f"{EN_STEM}.txt"], docs["lantern.md"]
    # one summarize call per multi-chunk document; the file-named one is offered no title
    asked = [c.messages[1].content for c in llm.calls_for("summarize_document")]
    assert len(asked) == 2
    assert any("文件名：zh_rules.md\n已知标题：" + ZH_TITLE in a for a in asked)
    assert any(f"File name: {EN_STEM}.txt\nKnown title: —\n" in a for a in asked)
    assert not any("lantern" in a for a in asked)

    assert zh.title == ZH_TITLE and zh.summary is not None and SUMMARY_WORD_ZH in zh.summary
    assert en.title == GENERATED_TITLE and en.summary is not None and SUMMARY_WORD_EN in en.summary
    assert memo.title == SHORT_TITLE and memo.summary is None
    assert store.enrichment.enrichment_counts().summaries == {
        "done": 2,
        "skipped": 1,
        "failed": 0,
        "pending": 0,
        "not ready": 0,
    }

    for doc in (zh, en):
        chunks = store.chunks.chunks_of(doc.id)
        assert len(chunks) > 1
        for c in chunks:
            assert c.header == chunk_header(doc.title or "", c.section_path, summary=doc.summary)
            assert c.header.endswith("\n" + (doc.summary or "")) and c.header != before[c.id][0]
            expected = ENC.encode([with_header(c.header, c.text)], role="passage")[0]
            stored = store.index.vector("chunk", c.id)
            assert stored is not None and np.allclose(stored, expected, atol=1e-6)
            old = before[c.id][1]
            assert old is not None and not np.allclose(stored, old, atol=1e-3)
    (memo_chunk,) = store.chunks.chunks_of(memo.id)
    assert memo_chunk.header == before[memo_chunk.id][0] == SHORT_TITLE
    assert np.array_equal(store.index.vector("chunk", memo_chunk.id), before[memo_chunk.id][1])

    # BM25 sees the new headers: a word only the summaries hold finds every chunk of the document, and no other
    assert {i for i, _ in store.index.fts_search("chunk", SUMMARY_WORD_EN, 50)} == {
        c.id for c in store.chunks.chunks_of(en.id)
    }
    assert {i for i, _ in store.index.fts_search("chunk", SUMMARY_WORD_ZH, 50)} == {
        c.id for c in store.chunks.chunks_of(zh.id)
    }
    assert {i for i, _ in store.index.fts_search("chunk", "Catalogued", 50)} == {
        c.id for c in store.chunks.chunks_of(en.id)
    }
    assert store.integrity_check() == []


def test_a_failed_summary_is_recorded_and_the_questions_still_come(store: Store) -> None:
    llm = FakeLLM({**SCRIPT, "summarize_document": '{"title": "x", "summary": "short"}'})
    report = enrich(store, llm)
    assert report.summarized == 0 and len(llm.calls_for("summarize_document")) == 4  # two documents, retried
    assert len(report.failures) == 3  # two summaries, the chunk that always fails
    assert all("too short" in f for f in report.failures if "document summary failed" in f)
    failures = store.enrichment.enrich_failures()
    assert sorted((Path(f.path).name, -1 if f.chunk_ord is None else f.chunk_ord) for f in failures) == [
        (f"{EN_STEM}.txt", -1),
        (f"{EN_STEM}.txt", 3),
        ("zh_rules.md", -1),
    ]
    docs = docs_by_name(store)
    assert docs[f"{EN_STEM}.txt"].title == EN_STEM and docs[f"{EN_STEM}.txt"].summary is None
    counts = store.enrichment.enrichment_counts()
    assert counts.summaries["failed"] == 2 and counts.atoms == {
        "done": 14,
        "failed": 1,
        "pending": 0,
        "not ready": 0,
    }


def test_summaries_off_marks_documents_skipped_and_asks_only_for_questions(store: Store) -> None:
    llm = scripted_llm()
    report = enrich(store, llm, summaries=False)
    assert llm.calls_for("summarize_document") == [] and report.summarized == 0
    assert store.enrichment.enrichment_counts().summaries["skipped"] == 3
    assert all(d.summary is None for d in store.docs.documents())
    assert report.atomized == 14


# --- questions ----------------------------------------------------------------------------------------------


def test_questions_are_stored_per_chunk_in_its_language_and_searchable(store: Store, kb: Path) -> None:
    llm = scripted_llm()
    report = enrich(store, llm)
    status = chunk_status(kb)
    docs = {d.id: d for d in store.docs.documents()}
    chunks = all_chunks(store)
    assert len(chunks) == 15
    done = [c for c in chunks if status[c.id][0] == "done"]
    assert len(done) == 14 and report.atomized == 14
    # every reply held one vague question and one duplicate besides the good ones
    assert report.dropped == 2 * 14
    rows = question_rows(kb)
    assert report.questions == len(rows) == store.enrichment.enrichment_counts().questions

    lang_of = {c.id: detect_lang(c.text) for c in chunks}
    for c in done:
        questions = store.chunks.questions_of(c.id)
        # the good ones, in reply order, asked with the title the summary step settled on
        assert questions == questions_for(docs[c.doc_id].title or "", c.text)
        assert questions and all(detect_lang(q) == lang_of[c.id] for q in questions)
    assert {lang_of[c.id] for c in done} == {"zh", "en"}
    assert all(lang == lang_of[cid] for _, cid, _, lang in rows)
    assert sum(1 for c in done if docs[c.doc_id].title == ZH_TITLE) == 9

    for qid, cid, text, _ in rows:
        # a vector for every question: the question encoded as a query
        vector = store.index.vector("question", qid)
        assert vector is not None and np.allclose(vector, ENC.encode([text], role="query")[0], atol=1e-6)
        # full text finds it, and the question path of search ranks its chunk first
        hits = store.index.fts_search("question", text, 5)
        assert hits and hits[0][0] == qid, text
        found = search(store, ENC, text, mode="questions", k=3)
        assert found and found[0].chunk.id == cid and found[0].ranks == {"questions": 1}, text
    assert store.chunks.question_chunks([qid for qid, *_ in rows]) == {qid: cid for qid, cid, *_ in rows}
    # every English question of the text file names the generated title
    english = [
        qid for qid, cid, _, _ in rows if docs[store.chunks.get_chunks([cid])[0].doc_id].title == GENERATED_TITLE
    ]
    assert {i for i, _ in store.index.fts_search("question", "Catalogued", 100)} == set(english)


def test_the_atomize_prompt_carries_title_section_and_document_summary(store: Store) -> None:
    llm = scripted_llm()
    enrich(store, llm)
    docs = docs_by_name(store)
    zh, en, memo = docs["zh_rules.md"], docs[f"{EN_STEM}.txt"], docs["lantern.md"]
    prompts = {passage_of(m)[1]: m[1].content for m in atomize_calls(llm)}
    for c in store.chunks.chunks_of(zh.id):
        user = prompts[c.text.strip()]
        # the document's part (title, summary) comes before the chunk's own (section, text): one cached prefix
        assert f"文档：{ZH_TITLE}\n摘要：{zh.summary}\n每个问题都写明主体" in user
        assert f"\n\n位置：{' › '.join(c.section_path) or '—'}\n文字：\n{c.text.strip()}" in user
    for c in store.chunks.chunks_of(en.id):
        user = prompts[c.text.strip()]
        assert f"Document: {GENERATED_TITLE}\nSummary: {en.summary}\nName the subject" in user
        assert user.endswith(f"Section: —\nPassage:\n{c.text.strip()}")
    (memo_chunk,) = store.chunks.chunks_of(memo.id)
    memo_user = prompts[memo_chunk.text.strip()]
    assert (
        f"Document: {SHORT_TITLE}\nName the subject" in memo_user and f"Section: {SHORT_TITLE}\nPassage:" in memo_user
    )


def test_a_long_chunk_gets_questions_only_and_no_chunk_summary(tmp_path: Path) -> None:
    text = " ".join(
        f"Clause {n} of the Qingsong procurement rules requires bidders to lodge securities before closing."
        for n in range(1, 10)
    )
    llm = scripted_llm()
    with open_kb(tmp_path / "kb.kb") as store:
        Ingestor(store, ENC, IngestOptions.from_settings(Settings(), late=False)).ingest_texts(
            [SourceText("rules", "Qingsong Rules", text)]
        )
        (chunk,) = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
        report = enrich(store, llm)
        (after,) = store.chunks.get_chunks([chunk.id])
    assert report.skipped == 1 and [c.tag for c in llm.calls] == ["atomize"]
    assert "summary" not in (llm.calls[0].params.json_schema or {})["properties"]
    assert after.summary is None
    assert report.atomized == 1 and report.questions == 3


# --- retries and failures -----------------------------------------------------------------------------------


def test_a_bad_reply_is_retried_once_with_the_reply_and_the_error(store: Store, kb: Path) -> None:
    llm = scripted_llm()
    enrich(store, llm)
    calls = atomize_calls(llm, RETRY_MARK)
    assert len(calls) == 2
    first, second = calls
    assert [m.role for m in first] == ["system", "user"]
    assert [m.role for m in second] == ["system", "user", "assistant", "user"]
    assert second[:2] == first and second[2].content == BAD_JSON
    assert "invalid JSON" in second[3].content and second[3].content.startswith("That reply cannot be used")
    chunk = next(c for c in all_chunks(store) if RETRY_MARK in c.text)
    assert chunk_status(kb)[chunk.id] == ("done", None) and len(store.chunks.questions_of(chunk.id)) == 3


def test_a_reply_bad_twice_fails_only_its_chunk(store: Store, kb: Path) -> None:
    llm = scripted_llm()
    report = enrich(store, llm)
    assert len(atomize_calls(llm, FAIL_MARK)) == 2
    failed = next(c for c in all_chunks(store) if FAIL_MARK in c.text)
    status, error = chunk_status(kb)[failed.id]
    assert status == "failed" and error is not None and "invalid JSON" in error
    assert store.chunks.questions_of(failed.id) == []
    assert report.failures == [f"{EN_STEM}.txt chunk {failed.ord}: questions failed: {error}"]
    doc = store.docs.get_document(failed.doc_id)
    assert doc is not None
    assert store.enrichment.enrich_failures() == [EnrichFailure(doc.path, failed.ord, error)]
    # the run went on: the chunks after it in the same document and the next document are done
    later = [c for c in all_chunks(store) if c.id > failed.id]
    assert later and all(chunk_status(kb)[c.id][0] == "done" for c in later)
    assert report.question_cost.items == 15 and report.question_cost.calls == 17


# --- reruns and selections ----------------------------------------------------------------------------------


def test_a_second_run_asks_nothing(store: Store) -> None:
    llm = scripted_llm()
    first = enrich(store, llm)
    n = len(llm.calls)
    counts = store.enrichment.enrichment_counts()
    again = enrich(store, llm)
    assert len(llm.calls) == n
    assert (again.summarized, again.skipped, again.atomized, again.questions, again.failures) == (0, 0, 0, 0, [])
    assert store.enrichment.enrichment_counts() == counts and first.atomized == 14


def test_limit_enriches_exactly_that_many_chunks(store: Store, kb: Path) -> None:
    llm = scripted_llm()
    report = enrich(store, llm, limit=2)
    assert report.atomized == 2 and len(atomize_calls(llm)) == 2
    assert sorted(s for s, _ in chunk_status(kb).values() if s is not None) == ["done", "done"]
    assert store.enrichment.enrichment_counts().atoms["pending"] == 13
    rest = enrich(store, llm)
    assert (
        rest.atomized == 12 and len(rest.failures) == 1 and store.enrichment.enrichment_counts().atoms["pending"] == 0
    )
    assert len(atomize_calls(llm)) == 2 + 13 + 2  # each chunk once, the retried and the failing one twice


def test_doc_ids_limit_the_run_to_those_documents(store: Store, kb: Path) -> None:
    zh = docs_by_name(store)["zh_rules.md"]
    llm = scripted_llm()
    report = enrich(store, llm, doc_ids=(zh.id,))
    assert report.summarized == 1 and report.skipped == 0 and report.atomized == 9
    assert len(llm.calls_for("summarize_document")) == 1
    assert all(ZH_TITLE in m[1].content for m in atomize_calls(llm))
    zh_ids = {c.id for c in store.chunks.chunks_of(zh.id)}
    for cid, (status, _) in chunk_status(kb).items():
        assert (status == "done") == (cid in zh_ids)
    assert store.enrichment.enrichment_counts().summaries["pending"] == 2
    assert all(d.summary is None for d in store.docs.documents() if d.id != zh.id)


def test_chunk_ids_limit_the_questions_to_that_sample(store: Store, kb: Path) -> None:
    every = sorted(chunk_status(kb))
    sample = (every[1], every[4], every[-1])
    llm = scripted_llm()
    report = enrich(store, llm, chunk_ids=sample, summaries=False)
    assert report.atomized + len(report.failures) == 3 and len(atomize_calls(llm)) >= 3
    for cid, (status, _) in chunk_status(kb).items():
        assert (status is not None) == (cid in sample), cid
    again = enrich(store, scripted_llm(), chunk_ids=sample, summaries=False)
    assert again.atomized == 0  # a sample already asked is not asked again


# --- removal meanwhile --------------------------------------------------------------------------------------


def test_save_atoms_on_a_removed_chunk_returns_nothing(store: Store) -> None:
    en = docs_by_name(store)[f"{EN_STEM}.txt"]
    chunk = store.chunks.chunks_of(en.id)[0]
    assert store.docs.delete_document(en.id)
    ids = store.enrichment.save_atoms(
        chunk.id, status="done", questions=["Who tags pike?"], lang="en", vectors=np.ones((1, 256))
    )
    assert ids is None and store.enrichment.enrichment_counts().questions == 0
    store.enrichment.save_document_summary(
        en.id, status="done", summary="gone", headers={chunk.id: "h"}, header_vectors=[[0.0] * 256]
    )
    assert store.docs.get_document(en.id) is None and store.integrity_check() == []


@pytest.mark.parametrize("during", ["summarize_document", "atomize"])
def test_removing_a_document_while_it_is_enriched(store: Store, kb: Path, during: str) -> None:
    """Another connection (as another process would) removes the English document while the model works on it."""
    en = docs_by_name(store)[f"{EN_STEM}.txt"]
    other = open_kb(kb, create=False)
    removed: list[bool] = []

    def remove_then(reply):  # type: ignore[no-untyped-def]
        def answer(messages: Sequence[Message], params: GenParams) -> str:
            if not removed and "pike" in messages[1].content.lower():  # its summary, or its first chunk
                removed.append(other.docs.delete_document(en.id))
            return reply(messages, params)

        return answer

    llm = FakeLLM({**SCRIPT, during: remove_then(SCRIPT[during])})
    try:
        enrich(store, llm)
    finally:
        other.close()
    assert removed == [True]
    assert store.docs.get_document(en.id) is None
    assert store.integrity_check() == []
    counts = store.enrichment.enrichment_counts()
    assert counts.documents == 2 and counts.chunks == 10
    assert counts.atoms == {"done": 10, "failed": 0, "pending": 0, "not ready": 0}
    assert counts.questions == sum(len(store.chunks.questions_of(c.id)) for c in all_chunks(store))
    assert (
        store.index.fts_search("question", "Catalogued", 50) == []
        and store.index.fts_search("chunk", SUMMARY_WORD_EN, 50) == []
    )


# --- parallel fan-out ---------------------------------------------------------------------------------------


def test_parallel_calls_overlap_and_every_result_is_stored(store: Store, kb: Path) -> None:
    lock = threading.Lock()
    active, peak = 0, 0
    overlapped, gave_up = threading.Event(), threading.Event()

    def tracked(reply):  # type: ignore[no-untyped-def]
        def answer(messages: Sequence[Message], params: GenParams) -> str:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
                if active > 1:
                    overlapped.set()
            try:
                # Hold the call until another one runs beside it: overlap, if the fan-out works, is certain.
                # One at a time, the first call gives up after 2 s and no later call waits.
                if not gave_up.is_set() and not overlapped.wait(2):
                    gave_up.set()
                return reply(messages, params)
            finally:
                with lock:
                    active -= 1

        return answer

    llm = FakeLLM({tag: tracked(fn) for tag, fn in SCRIPT.items()}, max_parallel=4, latency_s=0.05)
    report = enrich(store, llm)
    assert 2 <= peak <= 4
    assert report.atomized == 14 and len(report.failures) == 1 and report.dropped == 28
    docs = {d.id: d for d in store.docs.documents()}
    status = chunk_status(kb)
    for c in all_chunks(store):
        if status[c.id][0] == "done":
            assert store.chunks.questions_of(c.id) == questions_for(docs[c.doc_id].title or "", c.text)
        else:
            assert FAIL_MARK in c.text
    assert store.integrity_check() == []
