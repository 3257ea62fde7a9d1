"""Sign-bit copies of the entity and triple vectors (schema 10): kept in step with the floats, filled by the
migration for an older KB, checked by ``integrity_check``, and used by ``knn`` on a large table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pikelocal.domain.documents import NewChunk, NewPage
from pikelocal.store import db, index, schema, vectors
from pikelocal.store.store import Store
from tests.support.store_kb import ENCODER

DIM = 32  # bit vectors need a multiple of 8


def _open(path: Path, dim: int = DIM) -> Store:
    return Store.open(path, encoder_id=ENCODER, dim=dim)


def _graph(store: Store, vectors_of: np.ndarray) -> tuple[list[int], list[int]]:
    """One chunk naming len(vectors_of) entities, each with its name vector, and a triple between the first two;
    the triple gets the first entity's vector. Returns (entity ids, triple ids)."""
    doc = store.docs.add_document(path="a.md", sha256="a", title="A", kind="md", n_pages=1)
    store.docs.add_pages(doc, [NewPage(page_no=1, text="x", line_offsets=(0,))])
    (chunk,) = store.chunks.add_chunks(doc, [NewChunk(ord=0, text="x", char_start=0, char_end=1, section_path=())])
    names = [f"name {i}" for i in range(len(vectors_of))]
    with store.transaction():
        store.graph.put_chunk(chunk, names, [(names[0], "knows", names[1])], vectors_of)
    entity_ids = [int(r[0]) for r in store.db.rows("SELECT id FROM entities ORDER BY id")]
    triple_ids = [int(r[0]) for r in store.db.rows("SELECT id FROM triples ORDER BY id")]
    store.index.put_vectors("triple", triple_ids, vectors_of[:1])
    return entity_ids, triple_ids


def _bits(store: Store, table: str) -> dict[int, bytes]:
    return {int(r): bytes(b) for r, b in store.db.rows(f"SELECT rowid, embedding FROM {table}")}


def _unit_rows(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_bits_follow_the_float_vectors(kb_path: Path) -> None:
    rng = np.random.default_rng(1)
    with _open(kb_path) as store:
        vecs = _unit_rows(rng, 3)
        entity_ids, triple_ids = _graph(store, vecs)
        assert _bits(store, "entity_bits") == {e: vectors.bit_blob(v) for e, v in zip(entity_ids, vecs, strict=True)}
        assert _bits(store, "triple_bits") == {triple_ids[0]: vectors.bit_blob(vecs[0])}
        # a replaced vector replaces its bits; a deleted entity takes its bits along (trigger)
        flipped = -vecs[1]
        store.index.put_vectors("entity", [entity_ids[1]], flipped[None, :])
        assert _bits(store, "entity_bits")[entity_ids[1]] == vectors.bit_blob(flipped)
        with store.transaction():
            store.db.execute("DELETE FROM triples")
            store.db.execute("DELETE FROM entities WHERE id = ?", (entity_ids[2],))
        assert set(_bits(store, "entity_bits")) == set(entity_ids[:2]) and _bits(store, "triple_bits") == {}
        assert store.integrity_check() == []
        store.index.reset_vectors({})  # re-embedding drops the bits with the floats
        assert _bits(store, "entity_bits") == {} and store.counts()["entity_vectors"] == 0


def test_integrity_check_finds_bits_out_of_step(kb_path: Path) -> None:
    with _open(kb_path) as store:
        entity_ids, _ = _graph(store, _unit_rows(np.random.default_rng(2), 2))
    conn = db.connect(kb_path)
    conn.execute("DELETE FROM entity_bits WHERE rowid = ?", (entity_ids[0],))
    db.close(conn)
    with Store.open_existing(kb_path) as store:
        assert store.integrity_check() == ["1 rows differ between entity_vectors and its sign bits entity_bits"]


def test_the_migration_fills_the_bits_of_an_older_kb(kb_path: Path) -> None:
    rng = np.random.default_rng(3)
    with _open(kb_path) as store:
        vecs = _unit_rows(rng, 4)
        entity_ids, triple_ids = _graph(store, vecs)
    conn = db.connect(kb_path)  # back to schema 9: no bit tables
    for owner, bits in (("entities", "entity_bits"), ("triples", "triple_bits")):
        conn.execute(f"DROP TRIGGER {owner}_ad_bits")
        conn.execute(f"DROP TABLE {bits}")
    conn.execute("DROP TABLE view_marks")  # version 13's
    for table in ("review_rows", "review_marks"):  # version 11's
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP TRIGGER statements_ad")  # version 12's
    for table in ("statements_fts", "statement_vectors", "statements"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("ALTER TABLE documents DROP COLUMN statements_read")
    conn.execute("UPDATE kb_meta SET value = '9' WHERE key = 'schema_version'")
    conn.execute("PRAGMA user_version = 9")
    db.close(conn)
    with _open(kb_path) as store:  # migrated to 10 on opening
        assert store.meta()["schema_version"] == schema.LATEST_VERSION >= 10
        assert _bits(store, "entity_bits") == {e: vectors.bit_blob(v) for e, v in zip(entity_ids, vecs, strict=True)}
        assert _bits(store, "triple_bits") == {triple_ids[0]: vectors.bit_blob(vecs[0])}
        assert store.integrity_check() == []


def test_a_dimension_without_whole_bytes_keeps_the_exact_scan(kb_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "BIT_SCAN_MIN_ROWS", 0)
    rng = np.random.default_rng(4)
    with _open(kb_path, dim=12) as store:
        vecs = _unit_rows(rng, 5, 12)
        entity_ids, _ = _graph(store, vecs)
        names = {r[0] for r in store.db.rows("SELECT name FROM sqlite_schema")}
        assert "entity_bits" not in names and "triple_bits" not in names
        assert store.index.knn("entity", vecs[3], 1) == [(entity_ids[3], pytest.approx(0.0, abs=1e-5))]
        assert store.integrity_check() == []


def test_knn_goes_through_the_bits_only_on_a_large_table(kb_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    with _open(kb_path) as store:
        centres = _unit_rows(rng, 4)
        # 4 clusters of 10 close names: the nearest names of a query near a centre are its cluster
        vecs = np.concatenate([c + 0.15 * _unit_rows(rng, 10) for c in centres])
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        entity_ids, _ = _graph(store, vecs)
        query = centres[2] + 0.05 * _unit_rows(rng, 1)[0]
        exact = store.index.knn("entity", query, 5)
        assert {e for e, _ in exact} <= set(entity_ids[20:30])
        # Make the bits lie about the nearest name: a bit scan can no longer find it, an exact scan still does.
        nearest = exact[0][0]
        with store.transaction():
            store.db.execute("DELETE FROM entity_bits WHERE rowid = ?", (nearest,))
            store.db.execute(
                "INSERT INTO entity_bits(rowid, embedding) VALUES (?, vec_bit(?))",
                (nearest, vectors.bit_blob(-vecs[entity_ids.index(nearest)])),
            )
        assert store.index.knn("entity", query, 5) == exact  # 40 entities: under BIT_SCAN_MIN_ROWS, exact
        monkeypatch.setattr(index, "BIT_SCAN_MIN_ROWS", 10)
        monkeypatch.setattr(index, "BIT_OVERSAMPLE", 2)  # 10 candidates out of 40
        through_bits = store.index.knn("entity", query, 5)
        assert nearest not in {e for e, _ in through_bits}
        # what the bits do find is re-scored by the exact cosine distance, nearest first
        assert len(through_bits) == 5
        for eid, distance in through_bits:
            v = vecs[entity_ids.index(eid)]
            assert distance == pytest.approx(1 - v @ query / np.linalg.norm(query), abs=1e-5)
        assert [d for _, d in through_bits] == sorted(d for _, d in through_bits)
