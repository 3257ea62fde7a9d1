"""Encryption at rest (SQLite3 Multiple Ciphers through apsw-sqlite3mc), on real KB files with the hashing encoder.

An encrypted KB's raw bytes (the file, its -wal, -shm, -journal) hold none of its documents' text; with the key it
opens, searches and answers; without it, or with another one, every opener fails with one line. ``encrypt`` and
``rekey`` replace the file only once the new one is whole.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.domain.errors import InputError, StoreError
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb.lease import LEASE_KEY, Holder
from pikelocal.llm.fake import FakeLLM
from pikelocal.store import db, keys
from pikelocal.store.store import Store

# Distinctive strings that appear nowhere but in the document (and so, in clear, nowhere in an encrypted KB).
SECRETS = ("Quetzalcoatl-7781", "zirconium turbine", "Ravensworth Holdings", "PRJ-QX-20931", "海燕造船厂")
TEXT = (
    "# Confidential supply note\n\n"
    "The zirconium turbine for project PRJ-QX-20931 is delivered by Ravensworth Holdings by 12 March.\n\n"
    "The access code of the store room is Quetzalcoatl-7781; the hull is built at 海燕造船厂 in Dalian.\n\n"
    + "\n\n".join(f"Paragraph {n}: routine maintenance of pump {n} follows the manual." for n in range(40))
)
KEY = "correct horse battery staple"


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(keys.ENV_KEY, raising=False)
    yield


@pytest.fixture
def settings() -> Settings:
    return load_settings(environ={})


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.md").write_text(TEXT, encoding="utf-8")
    return folder


def ingest(kb: Path, docs: Path, settings: Settings, key: str | None) -> None:
    with api.open_kb(kb, settings, encoder=HashEncoder(), key=key) as knowledge_base:
        report = knowledge_base.add([docs]).ingest
    assert report.count("ingested") == 1 and not report.failed


def raw_files(kb: Path) -> list[Path]:
    return [p for p in (kb, *(kb.with_name(kb.name + s) for s in ("-wal", "-shm", "-journal"))) if p.exists()]


def leaked(kb: Path) -> list[str]:
    """Each secret found in clear (UTF-8 or UTF-16) in the KB's files."""
    found = []
    for path in raw_files(kb):
        data = path.read_bytes()
        for s in SECRETS:
            if any(s.encode(enc) in data for enc in ("utf-8", "utf-16-le")) or s.lower().encode() in data:
                found.append(f"{path.name}: {s}")
    return found


def forget(kb: Path) -> None:
    """As a new process would be: no key remembered for ``kb``."""
    keys.forget(kb)


def test_an_encrypted_kb_holds_no_clear_text_and_searches_and_answers_with_its_key(
    tmp_path: Path, doc: Path, settings: Settings
) -> None:
    kb = tmp_path / "secret.kb"
    # While a writer holds the KB open, its -wal and -shm exist: check those bytes too, mid-write.
    with api.open_kb(kb, settings, encoder=HashEncoder(), key=KEY) as knowledge_base:
        knowledge_base.add([doc])
        with Store.open_existing(kb, readonly=False) as store:
            with store.transaction():  # the pages holding the secrets, into the WAL (a plain KB shows them there)
                store.db.execute("UPDATE chunks SET text = text || ' '")
            assert kb.with_name(kb.name + "-wal").stat().st_size > 0
            assert leaked(kb) == []
    assert leaked(kb) == [] and keys.file_kind(kb) == "encrypted"
    assert not kb.read_bytes().startswith(keys.SQLITE_MAGIC)
    assert stat.S_IMODE(kb.stat().st_mode) == 0o600

    forget(kb)
    with api.open_kb(kb, settings, encoder=HashEncoder(), key=KEY) as knowledge_base:
        hits = knowledge_base.search("zirconium turbine Ravensworth", api.SearchRequest(mode="hybrid", k=3))
        assert "Ravensworth Holdings" in hits[0].chunk.text
        assert [d.record.title for d in knowledge_base.documents().documents] == ["Confidential supply note"]
    quote = "The zirconium turbine for project PRJ-QX-20931 is delivered by Ravensworth Holdings by 12 March."
    llm = FakeLLM({"answer-quote": f"Quote: {quote}\nAnswer: Ravensworth Holdings delivers the turbine"})
    with api.open_kb(kb, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:  # the remembered key
        trace = knowledge_base.ask("Who delivers the zirconium turbine?", api.AskRequest(mode="naive", check=False))
        assert "Ravensworth Holdings delivers the turbine" in trace.answer.text and trace.answer.cited
        assert knowledge_base.history()[0].question == "Who delivers the zirconium turbine?"
    assert leaked(kb) == []  # the stored trace (question, answer, sources) is encrypted as well
    # A rollback journal (DELETE mode, as the file is left between runs) holds encrypted pages too (the same
    # statement on a plain KB puts every secret in clear in its -journal).
    conn = db.connect(kb, key=KEY)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("BEGIN IMMEDIATE; UPDATE chunks SET text = 'x'")  # the old pages (the secrets) go to the journal
        journal = kb.with_name(kb.name + "-journal")
        assert journal.exists() and journal.stat().st_size > 0 and stat.S_IMODE(journal.stat().st_mode) == 0o600
        assert leaked(kb) == []
        conn.execute("ROLLBACK")
    finally:
        db.close(conn)


def test_a_missing_or_wrong_key_is_one_line_and_a_key_for_a_plain_kb_is_refused(
    tmp_path: Path, doc: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    forget(kb)
    wrong = "wrong or missing key (give --key-file, set PIKELOCAL_KEY, or type it when asked)"
    for key in (None, "not the key"):
        with pytest.raises(InputError, match=r"encrypted knowledge base: wrong or missing key") as exc:
            api.open_kb(kb, settings, encoder=HashEncoder(), key=key).documents()
        assert str(exc.value) == f"{kb}: encrypted knowledge base: {wrong}"
        forget(kb)
    with pytest.raises(InputError, match="wrong or missing key"):
        Store.open_existing(kb)
    assert api.kb_problem(kb) == f"{kb}: encrypted knowledge base: {wrong}"  # what the TUI command checks
    monkeypatch.setenv(keys.ENV_KEY, KEY)
    assert api.kb_problem(kb) is None
    assert api.open_kb(kb, settings).stats().counts.documents == 1

    plain = tmp_path / "plain.kb"
    monkeypatch.delenv(keys.ENV_KEY)
    ingest(plain, doc, settings, None)
    assert plain.read_bytes().startswith(keys.SQLITE_MAGIC) and leaked(plain)  # the control: plain text is visible
    with pytest.raises(InputError) as exc:
        api.open_kb(plain, settings, key=KEY).documents()
    assert str(exc.value) == f"{plain}: not encrypted (drop the key, or run `pikelocal encrypt`)"


def test_encrypt_converts_a_plain_kb_in_place_keeping_everything(tmp_path: Path, doc: Path, settings: Settings) -> None:
    kb = tmp_path / "lib.kb"
    ingest(kb, doc, settings, None)
    with Store.open_existing(kb) as store:
        before = store.counts()
    os.chmod(kb, 0o644)  # the copy is private whatever the original was
    api.open_kb(kb, settings).encrypt(KEY)
    assert keys.file_kind(kb) == "encrypted" and leaked(kb) == []
    assert stat.S_IMODE(kb.stat().st_mode) == 0o600
    assert not kb.with_name(kb.name + ".encrypting").exists()
    forget(kb)
    with pytest.raises(InputError, match="wrong or missing key"):
        Store.open_existing(kb)
    with Store.open_existing(kb, key=KEY) as store:
        assert store.counts() == before and store.integrity_check() == []
    hits = api.open_kb(kb, settings, encoder=HashEncoder(), key=KEY).search("Quetzalcoatl-7781 store room")
    assert "Quetzalcoatl-7781" in hits[0].chunk.text
    # Writing again after the conversion keeps it encrypted (the WAL included).
    (doc / "more.txt").write_text("Ravensworth Holdings also ships the zirconium turbine spares.", encoding="utf-8")
    ingest(kb, doc, settings, KEY)
    assert leaked(kb) == []
    with pytest.raises(InputError, match="already encrypted"):
        api.open_kb(kb, settings).encrypt("another")


def test_rekey_changes_the_key_and_the_old_one_stops_working(tmp_path: Path, doc: Path, settings: Settings) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    forget(kb)
    api.open_kb(kb, settings, key=KEY).rekey("a new key")
    forget(kb)
    with pytest.raises(InputError, match="wrong or missing key"):
        Store.open_existing(kb, key=KEY)
    with Store.open_existing(kb, key="a new key") as store:
        assert store.counts()["documents"] == 1
    assert leaked(kb) == [] and stat.S_IMODE(kb.stat().st_mode) == 0o600
    with pytest.raises(InputError, match="wrong or missing key"):  # rekey needs the current key
        api.open_kb(kb, settings, key=KEY).rekey("third")
    plain = tmp_path / "plain.kb"
    ingest(plain, doc, settings, None)
    with pytest.raises(InputError, match="not encrypted"):
        api.open_kb(plain, settings).rekey("x")


def test_encrypt_is_refused_while_the_kb_is_open_or_a_writer_holds_its_lease(
    tmp_path: Path, doc: Path, settings: Settings
) -> None:
    kb = tmp_path / "lib.kb"
    ingest(kb, doc, settings, None)
    with Store.open_existing(kb) as store:
        before = store.counts()
    with Store.open_existing(kb, readonly=False) as other:  # another writer (a TUI, a command) has it open
        with pytest.raises(StoreError, match="in use by another process or connection"):
            api.open_kb(kb, settings).encrypt(KEY)
        other.counts()
    assert keys.file_kind(kb) == "plain"
    with Store.open_existing(kb) as store:
        assert store.counts() == before
    # No connection open, but the writer's lease names a live process (one that lost its file handle, or one on
    # another host sharing the folder): refused as well, under the exclusive lock.
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        holder = Holder(sleeper.pid, socket.gethostname(), "ingest", "2026-01-01T00:00:00+00:00", time.time())
        with Store.open_existing(kb, readonly=False) as store:
            store.set_meta(LEASE_KEY, asdict(holder))
        with pytest.raises(StoreError, match=rf"ingest \(pid {sleeper.pid} on .*\) is writing it"):
            api.open_kb(kb, settings).encrypt(KEY)
    finally:
        sleeper.kill()
        sleeper.wait()
    api.open_kb(kb, settings).encrypt(KEY)  # its holder is gone: the stale lease no longer blocks
    assert keys.file_kind(kb) == "encrypted"


KILL_SCRIPT = """
import os, sys
from pathlib import Path
from pikelocal.store import db
from pikelocal.store.store import Store

real = db.vacuum_into
def vacuum_then_die(conn, dest, *, key):
    real(conn, dest, key=key)
    os._exit(9)  # killed after the encrypted copy is written, before it replaces the original
db.vacuum_into = vacuum_then_die
Store.reencrypt(Path(sys.argv[1]), "k2")
"""


def test_a_conversion_killed_midway_leaves_the_original_whole_and_a_rerun_finishes(
    tmp_path: Path, doc: Path, settings: Settings
) -> None:
    kb = tmp_path / "lib.kb"
    ingest(kb, doc, settings, None)
    with Store.open_existing(kb) as store:
        before = store.counts()
    env = {k: v for k, v in os.environ.items() if k != keys.ENV_KEY}
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(kb)], env=env, capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    assert keys.file_kind(kb) == "plain"
    with Store.open_existing(kb) as store:
        assert store.counts() == before and store.integrity_check() == []
    api.open_kb(kb, settings).encrypt("k2")  # the leftover copy is discarded and the conversion done again
    assert not kb.with_name(kb.name + ".encrypting").exists()
    forget(kb)
    with Store.open_existing(kb, key="k2") as store:
        assert store.counts() == before


def test_the_key_is_not_in_the_files(tmp_path: Path, doc: Path, settings: Settings) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    assert raw_files(kb) and all(KEY.encode() not in p.read_bytes() for p in raw_files(kb))


def test_the_env_key_leaves_a_plain_kb_plain_and_makes_only_a_new_kb_encrypted(
    tmp_path: Path, doc: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain.kb"
    ingest(plain, doc, settings, None)
    monkeypatch.setenv(keys.ENV_KEY, KEY)  # set for the user's encrypted KBs, say in a shell profile
    assert api.kb_problem(plain) is None and not api.kb_is_encrypted(plain)
    with api.open_kb(plain, settings, encoder=HashEncoder()) as knowledge_base:
        assert knowledge_base.encryption() == "plain"
        assert knowledge_base.stats().counts.documents == 1
        hits = knowledge_base.search("Ravensworth turbine", api.SearchRequest(mode="bm25"))
        assert "Ravensworth" in hits[0].chunk.text
        more = tmp_path / "more.txt"
        more.write_text("Ravensworth Holdings also ships the turbine spares.", encoding="utf-8")
        assert knowledge_base.add([more]).ingest.count("ingested") == 1  # writing, the WAL included
    with Store.open_existing(plain, readonly=False) as store:
        assert store.counts()["documents"] == 2
    assert keys.file_kind(plain) == "plain" and leaked(plain)  # not encrypted behind the user's back
    monkeypatch.delenv(keys.ENV_KEY)
    with Store.open_existing(plain) as store:  # and still opens without any key
        assert store.counts()["documents"] == 2

    monkeypatch.setenv(keys.ENV_KEY, KEY)  # a new KB: the documented rule, made encrypted with the env key
    new = tmp_path / "new.kb"
    ingest(new, doc, settings, None)
    assert keys.file_kind(new) == "encrypted" and leaked(new) == []
    monkeypatch.delenv(keys.ENV_KEY)
    with pytest.raises(InputError, match="wrong or missing key"):
        Store.open_existing(new)
    # A key given explicitly for a plain KB is still refused: whoever gave it thinks the KB is encrypted.
    with pytest.raises(InputError, match=r"not encrypted \(drop the key"):
        api.open_kb(plain, settings, key=KEY).documents()


def test_decrypt_makes_an_encrypted_kb_plain_in_place_keeping_everything(
    tmp_path: Path, doc: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    with Store.open_existing(kb, key=KEY) as store:
        before = store.counts()
    os.chmod(kb, 0o644)  # the plain copy is private whatever the original was
    forget(kb)
    api.open_kb(kb, settings, key=KEY).decrypt()
    assert keys.file_kind(kb) == "plain" and kb.read_bytes().startswith(keys.SQLITE_MAGIC)
    assert leaked(kb)  # its text is in clear now: it was really decrypted, not copied with the key
    assert stat.S_IMODE(kb.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(kb.name)] == [kb.name]  # no -wal, no copy
    with Store.open_existing(kb) as store:  # in this process too: the key it had is forgotten
        assert store.counts() == before and store.integrity_check() == []
    forget(kb)
    hits = api.open_kb(kb, settings, encoder=HashEncoder()).search("Quetzalcoatl-7781 store room")
    assert "Quetzalcoatl-7781" in hits[0].chunk.text
    monkeypatch.setenv(keys.ENV_KEY, KEY)  # the env key that opened it no longer matters
    with api.open_kb(kb, settings, encoder=HashEncoder()) as knowledge_base:
        more = tmp_path / "more.txt"
        more.write_text("Ravensworth Holdings also ships the zirconium turbine spares.", encoding="utf-8")
        assert knowledge_base.add([more]).ingest.count("ingested") == 1
    assert keys.file_kind(kb) == "plain"
    with pytest.raises(InputError) as exc:  # already plain: one line, nothing done
        api.open_kb(kb, settings).decrypt()
    assert str(exc.value) == f"{kb}: not encrypted, nothing to decrypt"
    with pytest.raises(InputError, match="no knowledge base to decrypt"):
        api.open_kb(tmp_path / "missing.kb", settings).decrypt()


def test_decrypt_needs_the_key_and_is_refused_while_the_kb_is_in_use(
    tmp_path: Path, doc: Path, settings: Settings
) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    forget(kb)
    original = kb.read_bytes()
    for key in (None, "not the key"):
        with pytest.raises(InputError) as exc:
            api.open_kb(kb, settings, key=key).decrypt()
        assert str(exc.value).startswith(f"{kb}: encrypted knowledge base: wrong or missing key")
        forget(kb)
    assert kb.read_bytes() == original and not kb.with_name(kb.name + ".decrypting").exists()
    with Store.open_existing(kb, readonly=False, key=KEY) as other:  # another writer has it open
        with pytest.raises(StoreError, match="in use by another process or connection"):
            api.open_kb(kb, settings, key=KEY).decrypt()
        other.counts()
    assert keys.file_kind(kb) == "encrypted"


WAL_SCRIPT = """
import os, sys
from pathlib import Path
from pikelocal.store.store import Store

with Store.open_existing(Path(sys.argv[1]), readonly=False, key=sys.argv[2]) as store:
    with store.transaction():
        store.set_meta("note", "Ravensworth Holdings, committed to the WAL only")
    os._exit(9)  # killed with the commit in the -wal, never checkpointed into the file
"""


def test_decrypt_takes_the_commits_left_in_the_wal_and_leaves_no_wal_or_shm(
    tmp_path: Path, doc: Path, settings: Settings
) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    env = {k: v for k, v in os.environ.items() if k != keys.ENV_KEY}
    proc = subprocess.run([sys.executable, "-c", WAL_SCRIPT, str(kb), KEY], env=env, capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    wal = kb.with_name(kb.name + "-wal")
    assert wal.stat().st_size > 0 and leaked(kb) == []
    forget(kb)
    api.open_kb(kb, settings, key=KEY).decrypt()
    assert not wal.exists() and not kb.with_name(kb.name + "-shm").exists()
    with Store.open_existing(kb) as store:
        assert store.meta()["note"] == "Ravensworth Holdings, committed to the WAL only"
        assert store.integrity_check() == []


DECRYPT_KILL_SCRIPT = """
import os, sys
from pathlib import Path
from pikelocal.store import db
from pikelocal.store.store import Store

real = db.vacuum_into
def vacuum_then_die(conn, dest, *, key):
    real(conn, dest, key=key)
    os._exit(9)  # killed after the plain copy is written, before it replaces the original
db.vacuum_into = vacuum_then_die
Store.reencrypt(Path(sys.argv[1]), None, key=sys.argv[2])
"""


def test_a_decrypt_killed_midway_leaves_the_encrypted_original_whole_and_a_rerun_finishes(
    tmp_path: Path, doc: Path, settings: Settings
) -> None:
    kb = tmp_path / "secret.kb"
    ingest(kb, doc, settings, KEY)
    forget(kb)
    with Store.open_existing(kb, key=KEY) as store:
        before = store.counts()
    env = {k: v for k, v in os.environ.items() if k != keys.ENV_KEY}
    args = [sys.executable, "-c", DECRYPT_KILL_SCRIPT, str(kb), KEY]
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    assert proc.returncode == 9, proc.stderr
    assert keys.file_kind(kb) == "encrypted" and leaked(kb) == []
    copy = kb.with_name(kb.name + ".decrypting")
    assert keys.file_kind(copy) == "plain"  # the half-done plain copy a SIGKILL leaves behind
    with Store.open_existing(kb, key=KEY) as store:
        assert store.counts() == before and store.integrity_check() == []
    forget(kb)
    api.open_kb(kb, settings, key=KEY).rekey("changed my mind")  # any later conversion removes that copy
    assert not copy.exists() and keys.file_kind(kb) == "encrypted"
    forget(kb)

    proc = subprocess.run([*args[:-1], "changed my mind"], env=env, capture_output=True, text=True)
    assert proc.returncode == 9 and copy.exists(), proc.stderr
    api.open_kb(kb, settings, key="changed my mind").decrypt()  # the rerun discards the copy and does it again
    assert not copy.exists() and keys.file_kind(kb) == "plain"
    forget(kb)
    with Store.open_existing(kb) as store:
        assert store.counts() == before
