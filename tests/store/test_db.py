"""Opening files: one-line errors naming the path, one file after close, WAL readers beside a writer."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pikelocal.domain.documents import NewChunk
from pikelocal.domain.errors import StoreError
from pikelocal.store.store import Store
from tests.support.store_kb import DIM, ENCODER

REPO = Path(__file__).resolve().parents[2]


def _open(path: Path) -> Store:
    return Store.open(path, encoder_id=ENCODER, dim=DIM)


def _assert_one_line_naming(err: pytest.ExceptionInfo[StoreError], path: Path, fragment: str) -> None:
    msg = str(err.value)
    assert str(path) in msg and fragment in msg and "\n" not in msg


def _sidecars(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


def test_directory_is_refused(tmp_path: Path) -> None:
    for opener in (_open, Store.open_existing):
        with pytest.raises(StoreError) as e:
            opener(tmp_path)
        _assert_one_line_naming(e, tmp_path, "is a directory, not a knowledge-base file")


@pytest.mark.parametrize(
    "content",
    [b"hello, this is a text file\n" * 50, b"short text", os.urandom(4096)],
    ids=["text", "short-text", "random"],
)
def test_non_sqlite_file_is_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.kb"
    path.write_bytes(content)
    for opener in (_open, Store.open_existing):
        with pytest.raises(StoreError) as e:
            opener(path)
        _assert_one_line_naming(e, path, "is not a SQLite file")
    assert path.read_bytes() == content and _sidecars(path) == []


def test_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as other:
        other.execute("CREATE TABLE t(x)")
        other.execute("INSERT INTO t VALUES (1)")
    other.close()
    before = path.read_bytes()
    for opener in (_open, Store.open_existing):
        with pytest.raises(StoreError) as e:
            opener(path)
        _assert_one_line_naming(e, path, "not a pikelocal knowledge base")
    assert path.read_bytes() == before and _sidecars(path) == []


def test_missing_files(tmp_path: Path) -> None:
    missing = tmp_path / "nope.kb"
    with pytest.raises(StoreError) as e:
        Store.open_existing(missing)
    _assert_one_line_naming(e, missing, "does not exist")
    with pytest.raises(StoreError) as e:
        Store.open(missing, encoder_id=ENCODER, dim=DIM, create=False)
    _assert_one_line_naming(e, missing, "does not exist")
    in_missing_dir = tmp_path / "no" / "such" / "kb.sqlite"
    with pytest.raises(StoreError) as e:
        _open(in_missing_dir)
    _assert_one_line_naming(e, in_missing_dir, "cannot open")
    assert not missing.exists()


def test_empty_file_read_only_is_not_a_kb(tmp_path: Path) -> None:
    path = tmp_path / "empty.kb"
    path.touch()
    with pytest.raises(StoreError) as e:
        Store.open_existing(path)
    _assert_one_line_naming(e, path, "is empty")


def test_path_under_a_file_is_one_line(tmp_path: Path) -> None:
    """An unusable location (here: a "folder" that is a regular file; fails for root too) names the path."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    path = blocker / "kb.sqlite"
    for opener in (lambda: _open(path), lambda: Store.open_existing(path)):
        with pytest.raises(StoreError) as e:
            opener()
        _assert_one_line_naming(e, path, "")


def test_one_file_after_close(kb_path: Path) -> None:
    with _open(kb_path) as s:
        doc = s.docs.add_document(path="a.txt", sha256="a")
        s.chunks.add_chunks(doc, [NewChunk(ord=0, text="合同", char_start=0, char_end=2)])
        assert "kb.sqlite-wal" in _sidecars(kb_path)  # WAL while writing
    assert _sidecars(kb_path) == []
    with Store.open_existing(kb_path) as s:
        assert s.counts()["chunks"] == 1
    assert _sidecars(kb_path) == []
    # the file is in rollback-journal mode again, readable by any SQLite (no extension needed for plain tables)
    with sqlite3.connect(f"file:{kb_path}?mode=ro", uri=True) as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert plain.execute("SELECT count(*) FROM documents").fetchone()[0] == 1
    plain.close()


def test_close_beside_another_connection_keeps_data(kb_path: Path) -> None:
    a = _open(kb_path)
    b = _open(kb_path)
    a.docs.add_document(path="a.txt", sha256="a")
    a.close()  # b still has the file open: stays in WAL, nothing lost
    b.docs.add_document(path="b.txt", sha256="b")
    b.close()
    assert _sidecars(kb_path) == []
    with Store.open_existing(kb_path) as s:
        assert [d.path for d in s.docs.documents()] == ["a.txt", "b.txt"]


READER = textwrap.dedent(
    """
    import sys
    from pikelocal.store.store import Store
    with Store.open_existing(sys.argv[1]) as s:
        print(s.counts()["documents"], s.encoder_id)
    """
)


def test_second_process_reads_during_write_transaction(kb_path: Path) -> None:
    with _open(kb_path) as s:
        s.docs.add_document(path="committed.txt", sha256="c")
        with s.transaction():
            s.docs.add_document(path="pending.txt", sha256="p")
            env = {**os.environ, "PYTHONPATH": str(REPO)}
            out = subprocess.run(
                [sys.executable, "-c", READER, str(kb_path)], capture_output=True, text=True, timeout=60, env=env
            )
            assert out.returncode == 0, out.stderr
            assert out.stdout.split() == ["1", ENCODER]  # sees the committed state, not blocked
        assert s.counts()["documents"] == 2
    assert _sidecars(kb_path) == []
