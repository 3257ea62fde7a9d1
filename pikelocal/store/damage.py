"""Whether a KB file is damaged: SQLite's quick_check, the one-line error and warning, and what this process already
knows to be sound.

A damaged KB is never written to: a writer would spread the damage (a b-tree page written back from a bad one, an
FTS5 segment merged with a broken one) and make it harder to recover. Writers are refused (:func:`refuse_damaged`,
called by :func:`db.connect` before the switch to WAL, which already writes the file's header); readers warn once and
go on (:func:`warn_if_damaged`), since most of a damaged KB usually still reads, and a read that meets a damaged page
fails with the same one-line error. ``pikelocal recover`` (:mod:`pikelocal.kb.recover`) is the way out.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.domain.errors import DAMAGE_LOGGER, CorruptKBError
from pikelocal.store.sqlite import DAMAGE_ERRORS

if TYPE_CHECKING:
    from pikelocal.store.sqlite import Connection

logger = logging.getLogger(DAMAGE_LOGGER)  # this module's name: a front end holds its warning (see there)

# quick_check's cost grows with the file, and its FTS5 part (SQLite runs each full-text index's own integrity check
# in it) faster than the file. Above this size only the b-trees are walked, so the check stays near the cost of
# reading the file once. Measured in docs/RELIABILITY.md, "The cost of the damage check".
FULL_CHECK_MAX_BYTES = 512 * 1024 * 1024
CHECK_LINES = 5  # quick_check stops after this many problems: one is enough to refuse, a few tell the user more

# Resolved path → the file's stamp (:func:`_stamp`) when this process last found it sound, or closed it after a write
# on a connection that found it sound: a file unchanged since then is not checked again (the TUI opens its KB for
# every question). A reader warns once per damaged state of a file.
_sound: dict[str, tuple[int, ...]] = {}
_warned: set[tuple[str, tuple[int, ...]]] = set()
_memo_lock = threading.Lock()


def _stamp(path: Path) -> tuple[int, ...]:
    """Identity and last change of the file and its -wal: a replaced, written or grown file has a new stamp."""
    out: list[int] = []
    for p in (path, path.with_name(path.name + "-wal")):
        try:
            st = os.stat(p)
        except OSError:
            out += [0, 0, 0, 0]
        else:
            out += [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]
    return tuple(out)


def damage(conn: Connection, path: Path) -> list[str]:
    """What SQLite's quick_check finds wrong with the file (at most :data:`CHECK_LINES` lines); empty when sound.

    quick_check walks every b-tree page (not the contents of rows or blobs: flipped bits inside a text or a vector
    go unseen, SQLite keeps no checksums) and runs each FTS5 index's integrity check; files over
    :data:`FULL_CHECK_MAX_BYTES` get the b-tree walk of each table only (see there). A walk that stops at a page it
    cannot read is done again table by table, so that the lines name the damaged tables."""
    try:
        whole = os.path.getsize(path) <= FULL_CHECK_MAX_BYTES
    except OSError:  # gone meanwhile: the checks below then fail in one line
        whole = True
    try:
        if whole:
            try:
                return _problems(conn, f"PRAGMA quick_check({CHECK_LINES})")
            except DAMAGE_ERRORS:
                pass
        virtual = "" if whole else " AND rootpage > 0"  # rootpage 0: a virtual table (FTS5's check: see above)
        names = [str(r[0]) for r in conn.execute(f"SELECT name FROM sqlite_schema WHERE type = 'table'{virtual}")]
    except DAMAGE_ERRORS as e:  # not even the schema reads
        return [str(e)]
    lines: list[str] = []
    for name in names:
        try:
            lines += _problems(conn, "PRAGMA quick_check(" + '"' + name.replace('"', '""') + '")')
        except DAMAGE_ERRORS as e:
            lines.append(f"table {name}: {e}")
        if len(lines) >= CHECK_LINES:
            break
    return lines[:CHECK_LINES]


def _problems(conn: Connection, pragma: str) -> list[str]:
    """quick_check's lines, each on one line, its b-trees named by their tables ("Tree 7" is a root page number)."""
    lines = [" ".join(str(r[0]).replace("*** in database main ***", "").split()) for r in conn.execute(pragma)]
    lines = [line for line in lines if line != "ok"]
    if not lines:
        return []
    try:
        roots = {int(r[0]): str(r[1]) for r in conn.execute("SELECT rootpage, name FROM sqlite_schema WHERE rootpage")}
    except DAMAGE_ERRORS:
        return lines
    return [_TREE.sub(lambda m: f"{m.group()} ({roots.get(int(m.group(1)), '?')})", line) for line in lines]


_TREE = re.compile(r"\bTree (\d+)")


def corrupt(path: Path, reason: str) -> CorruptKBError:
    """The one-line error of a damaged KB, with the way out."""
    return CorruptKBError(
        f"{path} is damaged ({reason}); nothing is written to it: copy what can still be read to a new KB with"
        f" `pikelocal recover {path} NEW.kb`"
    )


def _found(conn: Connection, path: Path) -> tuple[tuple[int, ...], list[str]]:
    """The file's stamp and its damage, checked unless this process found this very state sound before."""
    key, stamp = str(path.resolve()), _stamp(path)
    with _memo_lock:
        if _sound.get(key) == stamp:
            return stamp, []
    problems = damage(conn, path)
    if not problems:
        with _memo_lock:
            _sound[key] = stamp
    return stamp, problems


def _summary(problems: list[str]) -> str:
    more = f"; {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""
    return " ".join(problems[0].split()) + more


def refuse_damaged(conn: Connection, path: Path) -> None:
    """Raise CorruptKBError when the file is damaged: a writer would spread the damage (a b-tree page written back
    from a bad one, an FTS5 segment merged with a broken one) and make it harder to recover."""
    _, problems = _found(conn, path)
    if problems:
        raise corrupt(path, _summary(problems))


def warn_if_damaged(conn: Connection, path: Path) -> None:
    """Log one warning (once per damaged state of the file in this process) when it is damaged; reading goes on,
    since most of a damaged KB usually still reads (and a failed read is then a CorruptKBError)."""
    stamp, problems = _found(conn, path)
    if not problems:
        return
    with _memo_lock:
        if (str(path.resolve()), stamp) in _warned:
            return
        _warned.add((str(path.resolve()), stamp))
    logger.warning(
        "%s is damaged (%s); reading what can be read, writing nothing: `pikelocal recover %s NEW.kb` copies it to"
        " a new KB",
        path,
        _summary(problems),
        path,
    )


def remember_sound(path: Path) -> None:
    """After a writer whose file was found sound closed: this process need not check the state it left."""
    key = str(path.resolve())
    with _memo_lock:
        if key in _sound:
            _sound[key] = _stamp(path)
