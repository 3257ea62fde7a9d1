"""Encryption keys of KB files (SQLite3 Multiple Ciphers): what a file is, which key opens it, the one-line errors.

A KB is encrypted by choice (``pikelocal ingest --encrypt``, ``pikelocal encrypt``); its key is never stored,
logged or put in a trace. The key of a connection is, in order: the one passed to the opener, the one remembered
for that file in this process (:func:`remember`: ``open_kb(path, key=...)`` does it, so every later opener of the
same file, the TUI's and the benchmarks' included, finds it), then the ``PIKELOCAL_KEY`` environment variable.
Prompting and key files are the front end's business.

Whether a file is encrypted is read from its first bytes, never by trying keys: a plain SQLite file begins with
``SQLite format 3\\0``; an encrypted one begins with a random salt but keeps bytes 16-23 of the SQLite header in
clear (page size, versions, reserved bytes, fixed payload fractions 64/32/32), which SQLite reads before the key.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Literal

from pikelocal.domain.errors import InputError

ENV_KEY = "PIKELOCAL_KEY"
SQLITE_MAGIC = b"SQLite format 3\x00"
HEADER_CLEAR = b"\x40\x20\x20"  # bytes 21-23 of every SQLite header (max/min embedded payload, leaf payload)

FileKind = Literal["new", "plain", "encrypted", "other"]

_remembered: dict[str, str] = {}  # resolved KB path → key, for this process only
_lock = threading.Lock()


def file_kind(path: Path) -> FileKind:
    """``new`` (missing or empty), ``plain`` (SQLite), ``encrypted`` (an SQLite3MC file) or ``other``."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(24)
    except FileNotFoundError:
        return "new"
    except OSError:
        return "other"  # a directory or unreadable: the opener reports it
    if not head:
        return "new"
    if head.startswith(SQLITE_MAGIC):
        return "plain"
    if len(head) == 24 and head[21:24] == HEADER_CLEAR:
        return "encrypted"
    return "other"


def _slot(path: Path) -> str:
    return str(Path(path).resolve())


def remember(path: Path, key: str) -> None:
    """Use ``key`` for every connection this process opens to ``path`` without a key of its own."""
    check_key(key)
    with _lock:
        _remembered[_slot(path)] = key


def forget(path: Path) -> None:
    with _lock:
        _remembered.pop(_slot(path), None)


def key_for(path: Path, given: str | None = None) -> str | None:
    """The key to open ``path`` with: ``given``, else the one remembered for it, else ``$PIKELOCAL_KEY``, else None.

    ``$PIKELOCAL_KEY`` is not for one KB but for every encrypted one (set once, in a shell profile say), so a plain
    KB ignores it: it opens as it is and stays plain. A new KB still takes it and is made encrypted. A key given or
    remembered for ``path`` says that KB is meant to be encrypted: a plain one is then refused by the opener.
    """
    if given is not None:
        return check_key(given)
    with _lock:
        known = _remembered.get(_slot(path))
    if known is not None:
        return known
    env = os.environ.get(ENV_KEY) or None
    return None if env is not None and file_kind(path) == "plain" else env


def check_key(key: str) -> str:
    if not key or "\x00" in key:
        raise InputError("an encryption key must be a non-empty string without NUL characters")
    return key


def wrong_key(path: Path) -> InputError:
    return InputError(
        f"{path}: encrypted knowledge base: wrong or missing key"
        " (give --key-file, set PIKELOCAL_KEY, or type it when asked)"
    )


def not_encrypted(path: Path) -> InputError:
    return InputError(f"{path}: not encrypted (drop the key, or run `pikelocal encrypt`)")
