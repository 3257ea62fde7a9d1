"""A damaged KB is never written to: writers refuse it in one line naming the file, the reason and the
way out; readers warn once and go on; `recover` copies what SQLite can still read into a new KB, rebuilds the
full-text index and the missing vectors, and leaves the original byte for byte as it was.

The KBs are real files built with the hashing encoder, damaged by 64 bit flips in a page in the middle of the file
(tests/support/damage.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.domain.errors import StoreError
from pikelocal.embed.fake import HashEncoder
from pikelocal.store import keys
from pikelocal.store.store import Store
from tests.support.damage import build_kb, flip_middle_pages, sha256, side_files, write_docs

KEY = "mended-heron-1181"


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(keys.ENV_KEY, raising=False)
    yield
    keys._remembered.clear()


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """A sound KB (built once per module) and its number of chunks."""
    folder = tmp_path_factory.mktemp("sound")
    kb = folder / "sound.kb"
    return kb, build_kb(kb, write_docs(folder / "docs"), load_settings(environ={}))


def damaged(sound: tuple[Path, int], tmp_path: Path, *tables: str) -> Path:
    kb = tmp_path / "damaged.kb"
    flip_middle_pages(sound[0], kb, tables)
    return kb


def kb_of(path: Path, settings: Settings) -> api.KnowledgeBase:
    return api.open_kb(path, settings, encoder=HashEncoder())


def test_ingest_into_a_damaged_kb_is_refused_and_writes_nothing(
    sound: tuple[Path, int], tmp_path: Path, settings: Settings
) -> None:
    kb = damaged(sound, tmp_path, "chunks_fts_data")
    before = sha256(kb)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "new.md").write_text("# New\n\nA new note about the valves.\n", encoding="utf-8")
    with kb_of(kb, settings) as knowledge_base, pytest.raises(api.CorruptKBError) as err:
        knowledge_base.add([extra])
    message = str(err.value)
    assert isinstance(err.value, StoreError) and err.value.exit_code == 5
    assert "\n" not in message and str(kb) in message and "damaged" in message
    assert f"pikelocal recover {kb} NEW.kb" in message
    assert "chunks_fts" in message  # the damaged table, as SQLite named it
    assert sha256(kb) == before and side_files(kb) == []


def test_reads_warn_once_and_go_on(
    sound: tuple[Path, int], tmp_path: Path, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    kb = damaged(sound, tmp_path, "chunks_fts_data")
    before = sha256(kb)
    caplog.set_level(logging.WARNING)
    with kb_of(kb, settings) as knowledge_base:
        library = knowledge_base.documents()
        stats = knowledge_base.stats()
        hits = knowledge_base.search("pump serviced manual", api.SearchRequest(mode="dense", k=3))
        knowledge_base.documents()
    assert len(library.documents) == 6 and stats.vectors["chunks"] == sound[1] and len(hits) == 3
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1, warnings
    assert str(kb) in warnings[0] and "damaged" in warnings[0] and "pikelocal recover" in warnings[0]
    assert sha256(kb) == before


def test_removing_from_a_damaged_kb_is_refused(sound: tuple[Path, int], tmp_path: Path, settings: Settings) -> None:
    kb = damaged(sound, tmp_path, "chunks_fts_data")
    before = sha256(kb)
    with kb_of(kb, settings) as knowledge_base, pytest.raises(api.CorruptKBError) as err:
        knowledge_base.remove("report1.md")
    assert str(kb) in str(err.value) and "pikelocal recover" in str(err.value)
    assert sha256(kb) == before and side_files(kb) == []


def test_recover_rebuilds_the_full_text_index(sound: tuple[Path, int], tmp_path: Path, settings: Settings) -> None:
    kb = damaged(sound, tmp_path, "chunks_fts_data")
    before = sha256(kb)
    new = tmp_path / "mended.kb"
    with kb_of(kb, settings) as knowledge_base:
        report = knowledge_base.recover(new)
    assert report.chunks == sound[1] and report.target == new
    assert any("chunks_fts" in line for line in report.damage)
    assert sha256(kb) == before and side_files(kb) == []
    with Store.open_existing(new) as store:
        assert store.integrity_check() == []
        assert store.counts()["chunk_vectors"] == sound[1]
    with kb_of(new, settings) as knowledge_base:
        hits = knowledge_base.search("pump serviced manual", api.SearchRequest(mode="bm25", k=3))
        assert len(hits) == 3
        knowledge_base.add([write_docs(tmp_path / "more")])  # the new KB takes writes again
    assert not list(tmp_path.glob("*.recovering*"))


def test_recover_skips_a_damaged_page_of_chunks_and_embeds_what_lost_its_vectors(
    sound: tuple[Path, int], tmp_path: Path, settings: Settings
) -> None:
    kb = tmp_path / "damaged.kb"
    # A leaf page of the chunks, and the 6th page of the blob that holds the first 1,024 chunk vectors: its pointer
    # to the next page is broken, so the vectors stored past it cannot be read.
    flipped = flip_middle_pages(sound[0], kb, ["chunks", "chunk_vectors_vector_chunks00:overflow:5"])
    lost = flipped["chunks"].cells
    assert 0 < lost < sound[1]
    before = sha256(kb)
    new = tmp_path / "mended.kb"
    with kb_of(kb, settings) as knowledge_base:
        report = knowledge_base.recover(new)
    assert report.chunks == sound[1] - lost
    assert report.unreadable and report.unreadable[0].startswith("chunks: ")
    assert 0 < report.vectors_embedded < report.chunks  # those past the broken page, made again by the encoder
    assert report.vectors_copied + report.vectors_embedded == report.chunks
    assert sha256(kb) == before
    with Store.open_existing(new) as store, Store.open_existing(sound[0]) as original:
        assert store.integrity_check() == []
        counts = store.counts()
        ids = [c.id for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
        # every vector, copied or made again, is the one the sound KB holds for that chunk
        for chunk_id in ids:
            mine, theirs = store.index.vector("chunk", chunk_id), original.index.vector("chunk", chunk_id)
            assert mine is not None and theirs is not None and np.allclose(mine, theirs, atol=1e-6)
    assert counts["chunks"] == counts["chunk_vectors"] == len(ids) == sound[1] - lost


def test_recover_never_overwrites(sound: tuple[Path, int], tmp_path: Path, settings: Settings) -> None:
    kb = damaged(sound, tmp_path, "chunks_fts_data")
    new = tmp_path / "taken.kb"
    new.write_bytes(b"keep me")
    with kb_of(kb, settings) as knowledge_base, pytest.raises(api.InputError, match="already exists"):
        knowledge_base.recover(new)
    assert new.read_bytes() == b"keep me"


def test_recover_an_encrypted_kb_with_its_key(tmp_path: Path, settings: Settings) -> None:
    kb = tmp_path / "secret.kb"
    total = build_kb(kb, write_docs(tmp_path / "docs"), settings, key=KEY)
    keys._remembered.clear()
    broken = tmp_path / "broken.kb"
    flip_middle_pages(kb, broken, ["chunks_fts_data"], key=KEY)
    before = sha256(broken)
    new = tmp_path / "mended.kb"
    with api.open_kb(broken, settings, encoder=HashEncoder(), key=KEY) as knowledge_base:
        report = knowledge_base.recover(new)
    assert report.chunks == total and sha256(broken) == before
    keys._remembered.clear()
    assert keys.file_kind(new) == "encrypted"
    with Store.open_existing(new, key=KEY) as store:
        assert store.integrity_check() == []
