"""Migrations: empty file → KB, refusal of newer schemas, one transaction per migration."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.domain.errors import StoreError
from pikelocal.store import db, schema
from pikelocal.store.store import Store
from tests.support.store_kb import DIM, ENCODER

EXPECTED_TABLES = {
    "kb_meta", "documents", "pages", "chunks", "questions", "llm_cache", "traces",
    "chunk_vectors", "late_vectors", "question_vectors", "chunks_fts", "questions_fts",
}  # fmt: skip


def _tables(path: Path) -> set[str]:
    conn = db.connect(path, readonly=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    finally:
        db.close(conn, readonly=True)


def _user_version(path: Path) -> int:
    conn = db.connect(path, readonly=True)
    try:
        return schema.schema_version(conn)
    finally:
        db.close(conn, readonly=True)


def _set_user_version(path: Path, version: int) -> None:
    conn = db.connect(path)
    conn.execute(f"PRAGMA user_version = {version}")
    db.close(conn)


def test_empty_existing_file_becomes_a_kb(kb_path: Path) -> None:
    kb_path.touch()
    assert kb_path.stat().st_size == 0
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM) as s:
        assert s.meta()["schema_version"] == schema.LATEST_VERSION
        assert s.integrity_check() == []
    assert _tables(kb_path) >= EXPECTED_TABLES
    assert _user_version(kb_path) == schema.LATEST_VERSION


def test_reopening_does_not_migrate_again(kb_path: Path) -> None:
    Store.open(kb_path, encoder_id=ENCODER, dim=DIM).close()
    created = Store.open_existing(kb_path).meta()["created_at"]
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM, create=False) as s:
        assert s.meta()["created_at"] == created
        assert s.counts()["documents"] == 0


def test_newer_schema_is_refused(kb_path: Path) -> None:
    Store.open(kb_path, encoder_id=ENCODER, dim=DIM).close()
    _set_user_version(kb_path, schema.LATEST_VERSION + 1)
    for opener in (lambda p: Store.open(p, encoder_id=ENCODER, dim=DIM), Store.open_existing):
        with pytest.raises(StoreError) as e:
            opener(kb_path)
        msg = str(e.value)
        assert str(kb_path) in msg and f"schema version {schema.LATEST_VERSION + 1}" in msg
        assert "upgrade pikelocal" in msg and "\n" not in msg


def _v_next_ok(conn: db.Connection, dim: int) -> None:
    conn.execute(f"CREATE TABLE extra(x INTEGER, dim INTEGER DEFAULT {dim})")


def _v_next_broken(conn: db.Connection, dim: int) -> None:
    conn.execute("CREATE TABLE half_done(x)")
    raise RuntimeError("migration failed halfway")


def test_later_migration_applies_to_old_kb(kb_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Store.open(kb_path, encoder_id=ENCODER, dim=DIM).close()
    nxt = schema.LATEST_VERSION + 1
    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, schema.Migration(nxt, "extra", _v_next_ok)])
    monkeypatch.setattr(schema, "LATEST_VERSION", nxt)
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM) as s:
        assert s.meta()["schema_version"] == nxt
    assert "extra" in _tables(kb_path) and _user_version(kb_path) == nxt


def test_failed_migration_rolls_back(kb_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Store.open(kb_path, encoder_id=ENCODER, dim=DIM).close()
    nxt = schema.LATEST_VERSION + 1
    monkeypatch.setattr(schema, "MIGRATIONS", [*schema.MIGRATIONS, schema.Migration(nxt, "bad", _v_next_broken)])
    monkeypatch.setattr(schema, "LATEST_VERSION", nxt)
    with pytest.raises(RuntimeError, match="halfway"):
        Store.open(kb_path, encoder_id=ENCODER, dim=DIM)
    assert "half_done" not in _tables(kb_path)
    assert _user_version(kb_path) == nxt - 1
    assert sorted(p.name for p in kb_path.parent.iterdir()) == [kb_path.name]


def test_a_read_only_open_upgrades_an_older_kb_first(kb_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:  # build a KB at schema version 1
        m.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:1])
        m.setattr(schema, "LATEST_VERSION", 1)
        Store.open(kb_path, encoder_id="enc", dim=4).close()
    assert _user_version(kb_path) == 1
    with Store.open_existing(kb_path) as s:  # read-only, as `pikelocal docs` opens it
        assert s.readonly and s.docs.failures() == []
    assert _user_version(kb_path) == schema.LATEST_VERSION
