"""SQLite connections: the only module that opens one, and the one home of apsw and sqlite_vec besides
:mod:`pikelocal.store.sqlite` (apsw's connection type and error classes, a leaf, re-exported here).

A KB is one file. Writers run in WAL mode so a reader (the TUI, a second process) keeps working while
ingestion writes; :func:`close` checkpoints and switches back to ``journal_mode=DELETE`` when it is the last
user, so only the ``.kb`` file remains afterwards.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, cast
from urllib.parse import quote

import apsw
import sqlite_vec

from pikelocal.domain.errors import InputError, PikeError, StoreError
from pikelocal.store import damage, keys
from pikelocal.store.sqlite import DAMAGE_ERRORS as DAMAGE_ERRORS
from pikelocal.store.sqlite import BusyError as BusyError
from pikelocal.store.sqlite import Connection as Connection
from pikelocal.store.sqlite import ConstraintError as ConstraintError
from pikelocal.store.sqlite import FullError as FullError
from pikelocal.store.sqlite import SQLError as SQLError

if TYPE_CHECKING:  # type aliases of apsw's stubs only, not attributes of the module at run time
    from apsw import Bindings, SQLiteValue

logger = logging.getLogger(__name__)


BUSY_TIMEOUT_MS = 5000  # a writer in another process holds the lock for one transaction at most
CACHE_KIB = 32 * 1024
# Every page read from an encrypted file is decrypted and authenticated: KNN over vec0's large blobs was 3.6x slower
# than plain at 32 MiB of cache and on a par at 128 MiB (the cache holds decrypted pages).
CACHE_KIB_ENCRYPTED = 128 * 1024


def connect(path: Path, *, readonly: bool = False, key: str | None = None, check: bool = True) -> Connection:
    """Open ``path`` with sqlite-vec loaded and the KB PRAGMAs set; refuse files that are not a KB.

    A missing file is created unless ``readonly``. A SQLite file belonging to another application is
    refused *before* anything is written to it (switching it to WAL would already modify it). ``key`` (else the
    one :func:`keys.key_for` finds) opens an encrypted KB, or makes a new one encrypted; it is set before anything
    is read, so the WAL and journal are encrypted too. A missing or wrong key, or a key given or remembered for a
    plain KB (``$PIKELOCAL_KEY`` is not applied to one), is a one-line InputError.

    A damaged file (SQLite's quick_check, :mod:`pikelocal.store.damage`) is refused for writing with a
    CorruptKBError before anything is written; read-only (with ``check``) it is opened after one warning.
    """
    path = Path(path)
    if path.is_dir():
        raise StoreError(f"{path} is a directory, not a knowledge-base file")
    if readonly and not path.exists():
        raise StoreError(f"{path} does not exist")
    kind = keys.file_kind(path)
    key = keys.key_for(path, key)
    if key is not None and kind == "plain":
        raise keys.not_encrypted(path)
    if not readonly:
        create_private(path)
    flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    try:
        conn = apsw.Connection(str(path), flags=flags)
    except apsw.Error as e:
        raise _translate(e, path, kind) from e
    try:
        _prepare(conn, path, key, BUSY_TIMEOUT_MS)
        conn.execute("PRAGMA foreign_keys=ON")
        # vec0 keeps 1024 vectors per blob (1.5 MB at 384-d); a small page cache makes writes and deletes
        # that touch several vector tables thrash (20k-chunk delete: 29 s at 2 MiB, 4 s at 64 MiB).
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB if key is None else CACHE_KIB_ENCRYPTED}")
        if not readonly:
            damage.refuse_damaged(conn, path)  # before the switch to WAL, which already writes the file's header
            conn.execute("PRAGMA journal_mode=WAL")
        elif check:
            damage.warn_if_damaged(conn, path)
            conn.execute("PRAGMA synchronous=NORMAL")  # in WAL a power loss may drop the last commits, never corrupt
    except apsw.Error as e:
        conn.close()
        raise _translate(e, path, kind) from e
    except (StoreError, InputError):
        conn.close()
        raise
    return conn


def _prepare(conn: Connection, path: Path, key: str | None, busy_ms: int) -> None:
    """What every connection to a KB does first: the key (before any read, so every page, WAL frame and journal
    page is encrypted), the busy timeout, sqlite-vec, the check that the file is a KB, and trusted_schema."""
    if key is not None:
        conn.pragma("key", key)
    conn.set_busy_timeout(busy_ms)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    _check_is_kb(conn, path)
    # The schema's triggers delete vec0 rows; SQLite allows a non-"innocuous" virtual table in a
    # trigger only with trusted_schema on (the bundled default; pinned so a build default cannot flip it).
    conn.execute("PRAGMA trusted_schema=ON")


@contextmanager
def sole(path: Path, *, key: str | None) -> Iterator[Connection]:
    """A connection that alone has ``path`` open, for replacing the file: in DELETE journal mode (no ``-wal`` left)
    and holding an exclusive lock until it closes, so nobody reads or writes meanwhile. A file another connection
    has open (another process, or another connection of this one) is refused with a one-line StoreError.

    Opened with URI filenames on, so that ``VACUUM INTO`` may name its output with a key (:func:`vacuum_into`).
    """
    path = Path(path).resolve()  # absolute: never read as a "file:" URI
    kind = keys.file_kind(path)
    if kind not in ("plain", "encrypted"):
        raise StoreError(f"{path} is not a pikelocal knowledge base" + (" (it is empty)" if kind == "new" else ""))
    try:
        conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_URI)
    except apsw.Error as e:
        raise _translate(e, path, kind) from e
    busy = StoreError(f"{path} is in use by another process or connection; close it (the TUI, a running command)"
                      " and try again")  # fmt: skip
    try:
        _prepare(conn, path, key, 1000)
        damage.refuse_damaged(conn, path)  # VACUUM INTO would carry the damage, or stop half way
        try:
            mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()
        except (apsw.BusyError, apsw.LockedError):
            raise busy from None
        if mode is None or str(mode[0]).lower() != "delete":
            raise busy
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            conn.execute("BEGIN EXCLUSIVE; COMMIT")  # the lock stays until close in exclusive locking mode
        except (apsw.BusyError, apsw.LockedError):
            raise busy from None
    except apsw.Error as e:
        conn.close()
        raise _translate(e, path, kind) from e
    except (StoreError, InputError):
        conn.close()
        raise
    try:
        yield conn
    finally:
        conn.close()


def vacuum_into(conn: Connection, dest: Path, *, key: str | None) -> None:
    """Write a compact copy of ``conn``'s database to the empty file ``dest``, encrypted with ``key`` (plain with
    None). The key travels as a bound URI parameter (hex), never in the SQL text.

    A plain copy names an empty key: without one, SQLite3 Multiple Ciphers encrypts the copy of an encrypted
    database with that database's key. (A copy made plain keeps the encrypted file's reserved bytes per page, 32 of
    4096: harmless, any SQLite reads it.)"""
    uri = "file:" + quote(str(Path(dest).resolve()))
    if key is not None:
        uri += "?hexkey=" + keys.check_key(key).encode("utf-8").hex()
    else:
        uri += "?key="
    try:
        conn.execute("VACUUM INTO ?", (uri,))
    except apsw.Error as e:
        raise StoreError(f"cannot write {dest}: {e}") from e


def create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 when it does not exist: a KB holds confidential documents, questions and
    answers. SQLite gives the ``-wal``, ``-shm`` and ``-journal`` files the database file's permissions.

    Something already at ``path`` must be a regular file. O_EXCL's EEXIST also means a symbolic link, dangling or
    not, and SQLite would follow it: a dangling one had the KB created at its target with the umask's mode (0644),
    a live one wrote the KB wherever it points. So a link is refused, with its target as the way out."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        try:
            st = os.lstat(path)
        except OSError as e:  # gone again meanwhile: SQLite would create it with the umask's mode
            raise StoreError(f"{path}: cannot open or create the knowledge-base file: {e.strerror or e}") from None
        if stat.S_ISLNK(st.st_mode):
            target = os.path.realpath(path)
            raise StoreError(
                f"{path}: a symbolic link to {target}, not opened as a knowledge base (name {target} itself to use it)"
            ) from None
        if not stat.S_ISREG(st.st_mode):
            raise StoreError(
                f"{path}: not a regular file (a named pipe, device or socket), not a knowledge base"
            ) from None
    except OSError as e:
        raise StoreError(f"{path}: cannot open or create the knowledge-base file: {e.strerror or e}") from None


def close(conn: Connection, *, readonly: bool = False) -> None:
    """Close ``conn``; if it may write and nobody else has the file open, leave one file in DELETE mode.

    Leaving WAL needs an exclusive lock; when another connection (another process's reader) holds the file
    we keep WAL rather than wait, and the last writer to close cleans up. Nothing committed is ever lost:
    the WAL file is part of the database until it is checkpointed.
    """
    name = conn.filename
    try:
        if not readonly and not conn.in_transaction:
            conn.set_busy_timeout(0)  # do not wait on readers at exit
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
            mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()
            logger.debug("closing %s, journal_mode now %s", conn.filename, mode and mode[0])
    except apsw.Error as e:  # BusyError/LockedError: another connection still uses the file
        logger.debug("keeping WAL for %s: %s", conn.filename, e)
    finally:
        conn.close()
        if not readonly and name:
            damage.remember_sound(Path(name))


def _check_is_kb(conn: Connection, path: Path) -> None:
    """Raise unless the file is empty (a new KB) or has a ``kb_meta`` table (a pikelocal KB)."""
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    if names and "kb_meta" not in names:
        raise StoreError(f"{path} is a SQLite file but not a pikelocal knowledge base (it has no kb_meta table)")


def open_damaged(path: Path, *, key: str | None = None) -> Connection:
    """``path`` opened to read what can be read from it, never written: immutable (no lock, no journal, no -shm),
    or, when it has a -wal (commits not yet in the file), read-only so those are read too."""
    path = Path(path).resolve()
    kind = keys.file_kind(path)
    if kind not in ("plain", "encrypted"):
        raise StoreError(f"{path} is not a pikelocal knowledge base" + (" (it is empty)" if kind == "new" else ""))
    has_wal = path.with_name(path.name + "-wal").exists()
    uri = "file:" + quote(str(path)) + ("?mode=ro" if has_wal else "?immutable=1")
    try:
        conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    except apsw.Error as e:
        raise _translate(e, path, kind) from e
    try:
        _prepare(conn, path, key, BUSY_TIMEOUT_MS)
    except apsw.Error as e:
        conn.close()
        raise _translate(e, path, kind) from e
    except (StoreError, InputError):
        conn.close()
        raise
    return conn


def _translate(e: apsw.Error, path: Path, kind: keys.FileKind = "plain") -> PikeError:
    """A one-line error naming ``path`` for an apsw error met while opening it."""
    if isinstance(e, apsw.NotADBError):
        return keys.wrong_key(path) if kind == "encrypted" else StoreError(f"{path} is not a SQLite file")
    if isinstance(e, apsw.CorruptError):
        return damage.corrupt(path, str(e))
    if isinstance(e, apsw.CantOpenError | apsw.PermissionsError | apsw.AuthError):
        return StoreError(f"cannot open {path}: permission denied or its directory does not exist")
    if isinstance(e, apsw.ReadOnlyError):
        return StoreError(f"{path} is read-only; open it read-only or make it writable")
    if isinstance(e, apsw.BusyError | apsw.LockedError):
        return StoreError(f"{path} is locked by another process; try again when it has finished")
    return StoreError(f"cannot use {path}: {e}")


def int_of(value: SQLiteValue) -> int:
    """An INTEGER column (rowid, id, count) as an int; apsw types every column as any SQLite value."""
    return int(cast(int, value))


def float_of(value: SQLiteValue) -> float:
    """A REAL column (distance, score) as a float."""
    return float(cast(float, value))


def one_int(conn: Connection, sql: str, bindings: Bindings | None = None) -> int:
    """The first column of the first row of ``sql``, as an int (``count(*)``, ``PRAGMA user_version``)."""
    row = conn.execute(sql, bindings).fetchone()
    if row is None:
        raise StoreError(f"no row from: {sql}")
    return int_of(row[0])
