"""Store behaviour on real KB files: encoder guard, meta, LLM cache, documents, vectors, integrity."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from pikelocal.domain import CachedCompletion
from pikelocal.domain.documents import NewChunk, NewPage, NewQuestion
from pikelocal.domain.errors import EncoderMismatchError, InputError, StoreError
from pikelocal.store import db
from pikelocal.store.schema import LATEST_VERSION
from pikelocal.store.store import Store
from tests.support.store_kb import DIM, ENCODER


def _completion(key: str, text: str = "答案") -> CachedCompletion:
    return CachedCompletion(
        key=key, model_id="qwen-test", tag="answer", text=text, prompt_tokens=12, completion_tokens=3, seconds=0.5
    )


def _fill(store: Store) -> tuple[int, list[int], list[int]]:
    doc = store.docs.add_document(path="docs/a.pdf", sha256="abc", title="A", kind="pdf", n_pages=1)
    store.docs.add_pages(doc, [NewPage(page_no=1, text="第一行\n第二行", line_offsets=(0, 4))])
    chunk_ids = store.chunks.add_chunks(
        doc,
        [
            NewChunk(ord=i, text=f"chunk {i} 合同", char_start=i * 10, char_end=i * 10 + 9, section_path=("一", "二"))
            for i in range(3)
        ],
    )
    q_ids = store.chunks.add_questions([NewQuestion(chunk_id=c, text=f"问题 {c}?", lang="zh") for c in chunk_ids])
    eye = np.eye(DIM, dtype=np.float32)
    store.index.put_vectors("chunk", chunk_ids, eye[:3])
    store.index.put_vectors("late", chunk_ids, eye[3:6])
    store.index.put_vectors("question", q_ids, eye[:3])
    return doc, chunk_ids, q_ids


def test_new_kb_records_encoder_and_settings(store: Store) -> None:
    meta = store.meta()
    assert meta["encoder_id"] == ENCODER
    assert meta["encoder_dim"] == DIM
    assert meta["settings"] == {"chunk_tokens": 256}
    assert meta["schema_version"] == LATEST_VERSION
    assert {"created_at", "pikelocal_version", "fts_normalizer"} <= meta.keys()
    store.set_meta("note", {"a": [1, "二"]})
    assert store.meta()["note"] == {"a": [1, "二"]}


def test_encoder_mismatch_names_both(kb_path: Path) -> None:
    Store.open(kb_path, encoder_id="embeddinggemma-300m-int8", dim=768).close()
    with pytest.raises(EncoderMismatchError) as e:
        Store.open(kb_path, encoder_id="all-minilm-l6-v2-int8", dim=384)
    msg = str(e.value)
    assert "embeddinggemma-300m-int8' (768-d)" in msg and "all-minilm-l6-v2-int8' (384-d)" in msg
    assert str(kb_path) in msg and "\n" not in msg
    with pytest.raises(EncoderMismatchError, match="768-d.*769-d"):  # same id, other dimension
        Store.open(kb_path, encoder_id="embeddinggemma-300m-int8", dim=769)
    with Store.open_existing(kb_path) as s:  # doctor can still read it
        assert (s.encoder_id, s.dim) == ("embeddinggemma-300m-int8", 768)
    assert sorted(p.name for p in kb_path.parent.iterdir()) == [kb_path.name]


def test_cache_roundtrip_and_persistence(kb_path: Path) -> None:
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM) as s:
        assert s.cache.get_cached_completion("k1") is None
        s.cache.put_cached_completion(_completion("k1"))
        s.cache.put_cached_completion(_completion("k1", "replaced"))
        assert s.cache.get_cached_completion("k1") == _completion("k1", "replaced")
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM) as s:
        assert s.cache.get_cached_completion("k1") == _completion("k1", "replaced")
        assert s.counts()["llm_cache"] == 1


def test_cache_puts_from_threads(store: Store) -> None:
    """Four threads put and read back at once; what they saw is checked here, in the test's own thread."""
    start = threading.Barrier(4, timeout=10)
    read_back: dict[str, CachedCompletion | None] = {}
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        try:
            start.wait()  # all four begin together
            for i in range(25):
                key = f"t{n}-{i}"
                store.cache.put_cached_completion(_completion(key))
                got = store.cache.get_cached_completion(key)
                with lock:
                    read_back[key] = got
        except BaseException as e:  # noqa: BLE001 - reported below, in the main thread
            with lock:
                errors.append(e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    assert errors == []
    expected = {f"t{n}-{i}": _completion(f"t{n}-{i}") for n in range(4) for i in range(25)}
    assert read_back == expected  # every put was readable at once, by the thread that made it
    assert store.counts()["llm_cache"] == 100


def test_documents_chunks_roundtrip(store: Store) -> None:
    doc, chunk_ids, _ = _fill(store)
    (d,) = store.docs.documents()
    assert (d.id, d.path, d.sha256, d.kind, d.stage, d.error) == (doc, "docs/a.pdf", "abc", "pdf", "added", None)
    assert store.docs.document_by_sha256("abc") == d
    store.docs.set_document_stage(doc, "split", error="boom")
    assert store.docs.get_document(doc) is not None and store.docs.get_document(doc).stage == "split"  # type: ignore[union-attr]
    chunks = store.chunks.chunks_of(doc)
    assert [c.id for c in chunks] == chunk_ids and chunks[1].section_path == ("一", "二")
    assert [c.id for c in store.chunks.get_chunks([chunk_ids[2], 999, chunk_ids[0]])] == [chunk_ids[2], chunk_ids[0]]
    with pytest.raises(InputError, match="already in the knowledge base"):
        store.docs.add_document(path="docs/copy.pdf", sha256="abc")


def test_delete_document_removes_everything(store: Store) -> None:
    doc, _, _ = _fill(store)
    counts = store.counts()
    assert counts == {
        "documents": 1, "pages": 1, "chunks": 3, "questions": 3, "doc_tables": 0, "entities": 0, "triples": 0,
        "law_refs": 0, "statements": 0, "chunk_vectors": 3, "late_vectors": 3, "question_vectors": 3,
        "entity_vectors": 0, "triple_vectors": 0, "statement_vectors": 0, "summary_nodes": 0, "summary_vectors": 0,
        "llm_cache": 0, "traces": 0,
    }  # fmt: skip
    assert store.docs.delete_document(doc) is True
    assert set(store.counts().values()) == {0}
    assert store.index.fts_search("chunk", "合同", 10) == [] and store.index.fts_search("question", "问题", 10) == []
    assert store.integrity_check() == []
    assert store.docs.delete_document(doc) is False


def test_knn_returns_nearest(store: Store) -> None:
    _, chunk_ids, q_ids = _fill(store)
    query = np.eye(DIM, dtype=np.float32)[1] + 0.1 * np.eye(DIM, dtype=np.float32)[2]
    hits = store.index.knn("chunk", query, 2)
    assert [i for i, _ in hits] == [chunk_ids[1], chunk_ids[2]]
    assert hits[0][1] == pytest.approx(1 - 1 / np.sqrt(1.01), abs=1e-5)  # cosine distance
    assert store.index.knn("late", np.eye(DIM)[4], 1)[0][0] == chunk_ids[1]
    assert store.index.knn("question", np.eye(DIM)[0], 1)[0][0] == q_ids[0]
    # re-embedding replaces instead of duplicating
    store.index.put_vectors("chunk", chunk_ids[:1], np.ones((1, DIM)))
    assert store.counts()["chunk_vectors"] == 3
    assert store.index.knn("chunk", np.ones(DIM), 1) == [(chunk_ids[0], pytest.approx(0.0, abs=1e-6))]


def test_vector_reads_back_what_was_stored(store: Store) -> None:
    _, chunk_ids, _ = _fill(store)
    v = np.arange(DIM, dtype=np.float32) / DIM
    store.index.put_vectors("late", chunk_ids[2:3], v[None, :])
    assert np.array_equal(store.index.vector("late", chunk_ids[2]), v)
    assert store.index.vector("late", 999_999) is None


def test_put_vectors_validates(store: Store) -> None:
    _, chunk_ids, _ = _fill(store)
    with pytest.raises(ValueError, match="matrix"):
        store.index.put_vectors("chunk", chunk_ids, np.zeros((3, DIM + 1)))
    with pytest.raises(ValueError, match="no chunks with ids"):
        store.index.put_vectors("chunk", [12345], np.zeros((1, DIM)))


def test_integrity_check_reports_orphans(kb_path: Path) -> None:
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM) as s:
        _fill(s)
        assert s.integrity_check() == []
    conn = db.connect(kb_path)
    conn.execute("INSERT INTO chunk_vectors(rowid, embedding) VALUES (777, ?)", (np.ones(DIM, np.float32).tobytes(),))
    db.close(conn)
    with Store.open_existing(kb_path) as s:
        assert s.integrity_check() == ["1 rows in chunk_vectors have no matching row in chunks"]


def test_readonly_store_refuses_writes(kb_path: Path) -> None:
    Store.open(kb_path, encoder_id=ENCODER, dim=DIM).close()
    with Store.open_existing(kb_path) as s, pytest.raises(StoreError, match="read-only"):
        s.cache.put_cached_completion(_completion("x"))
    s.close()  # closing twice is harmless


def test_put_vectors_can_skip_rows_removed_meanwhile(store: Store) -> None:
    _, chunk_ids, _ = _fill(store)
    before = store.counts()["late_vectors"]
    had = store.index.vector("late", chunk_ids[0]) is not None
    store.index.put_vectors("late", [chunk_ids[0], 424242], np.ones((2, DIM)), skip_missing=True)
    assert store.counts()["late_vectors"] == before + (0 if had else 1)
    assert np.allclose(store.index.vector("late", chunk_ids[0]), np.ones(DIM))
    assert store.index.vector("late", 424242) is None
