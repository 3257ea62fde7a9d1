"""A symbolic link at the KB path is refused for writing, dangling or not, with a one-line
reason that names the path and the way out (name the link's target); nothing is created or changed at the target.

Before, ``create_private``'s O_EXCL saw the link, its EEXIST was ignored, and SQLite followed the link: a dangling
one had the KB created at its target with the umask's mode (0644), not 0600.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.domain.errors import StoreError
from pikelocal.domain.requests import AddRequest
from pikelocal.embed.fake import HashEncoder
from pikelocal.store.store import Store

ENC = HashEncoder()


def open_store(path: Path) -> Store:
    return Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim)


def assert_link_refused(exc: pytest.ExceptionInfo[StoreError], link: Path, target: Path) -> None:
    message = str(exc.value)
    assert "\n" not in message, message
    assert message.startswith(f"{link}:"), message
    assert "symbolic link" in message and str(target) in message, message


def test_a_dangling_link_at_the_kb_path_is_refused_and_nothing_is_created(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "planted.kb"
    link = tmp_path / "lib.kb"
    link.symlink_to(target)
    with pytest.raises(StoreError) as exc:
        open_store(link)
    assert_link_refused(exc, link, target)
    assert sorted(elsewhere.iterdir()) == []  # no KB, no -wal, no -journal at the target
    assert link.is_symlink()


def test_a_live_link_at_the_kb_path_is_refused_and_the_target_is_untouched(tmp_path: Path) -> None:
    real = tmp_path / "real.kb"
    open_store(real).close()
    before = (real.read_bytes(), real.stat().st_mtime_ns, sorted(p.name for p in tmp_path.iterdir()))
    link = tmp_path / "lib.kb"
    link.symlink_to(real)
    with pytest.raises(StoreError) as exc:
        open_store(link)
    assert_link_refused(exc, link, real)
    assert (real.read_bytes(), real.stat().st_mtime_ns) == before[:2]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before[2], "lib.kb"])  # no -wal, no -journal


def test_adding_through_the_facade_to_a_linked_kb_is_refused(tmp_path: Path) -> None:
    doc = tmp_path / "note.txt"
    doc.write_text("A note that must not end up in a KB somewhere else.\n")
    target = tmp_path / "planted" / "lib.kb"
    target.parent.mkdir()
    link = tmp_path / "lib.kb"
    link.symlink_to(target)
    with pytest.raises(StoreError) as exc, api.open_kb(link, Settings(), encoder=ENC) as kb:
        kb.add([doc], AddRequest(late=False))
    assert_link_refused(exc, link, target)
    assert "name" in str(exc.value)  # the way out: name the target
    assert not target.exists()


def test_naming_the_target_opens_it_with_mode_0600(tmp_path: Path) -> None:
    target = tmp_path / "real.kb"
    (tmp_path / "lib.kb").symlink_to(target)
    open_store(target).close()  # the way out the message gives
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
