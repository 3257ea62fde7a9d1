"""The one writer of report files: a file written whole or not at all, private like the KB it comes from, and never
through a link someone planted.

The bytes go to a new temporary file in the target's folder, with a random name, opened with ``O_CREAT | O_EXCL |
O_NOFOLLOW``: a name planted beforehand (a symbolic link to a file the attacker wants overwritten, dangling or not)
makes the open fail instead of being followed, and the random name means no name can be planted for it. The file
gets the KB file's mode (a report holds the same confidential text: a 0600 KB gives a 0600 report, whatever the
umask); it is written, synced and renamed over the target (``os.replace``: atomic; a link at the target is
replaced, not followed). Every failure, a full disk (ENOSPC) too, removes the temporary file and is one line
naming the target: :class:`~pikelocal.domain.errors.DiskFullError` when the disk or quota is full, else
:class:`~pikelocal.domain.errors.InputError`.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path

from pikelocal.domain.errors import DiskFullError, InputError
from pikelocal.domain.shown import shown_name

_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FULL = (errno.ENOSPC, errno.EDQUOT)
TEMP_SUFFIX = ".partial"


def file_mode(path: Path) -> int:
    """The permission bits of the file at ``path`` (a KB), for the files made from it (less any execute bit)."""
    return stat.S_IMODE(os.stat(path).st_mode)


def temp_name(out: Path) -> Path:
    """A fresh, unguessable name in ``out``'s folder: ``.NAME.<16 hex>.partial`` (hidden, and plainly a leftover
    should a power cut leave it)."""
    return out.with_name(f".{out.name}.{secrets.token_hex(8)}{TEMP_SUFFIX}")


def write_file(out: Path, data: bytes, mode: int) -> Path:
    """Write ``data`` to ``out`` with permissions ``mode``, whole or not at all (see the module's docstring)."""
    shown = shown_name(str(out))
    if not out.parent.is_dir():
        raise InputError(f"{shown_name(str(out.parent))}: no such folder")
    if out.is_dir():
        raise InputError(f"{shown}: is a folder; name the report's file")
    tmp = temp_name(out)
    try:
        fd = os.open(tmp, _OPEN_FLAGS, mode & 0o666)
    except OSError as err:
        raise _error(out, err) from None
    try:
        try:
            os.fchmod(fd, mode & 0o666)  # the umask may have taken bits away; the KB's mode is what is meant
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, out)
    except BaseException as err:
        tmp.unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise _error(out, err) from None
        raise
    _sync_folder(out.parent)
    return out


def _error(out: Path, err: OSError) -> InputError | DiskFullError:
    """One line naming the target, never the temporary file."""
    shown = shown_name(str(out))
    if err.errno in _FULL:
        return DiskFullError(f"{shown}: the disk is full; nothing was written: free some space and export again")
    return InputError(f"{shown}: cannot be written ({err.strerror or err}); nothing was written")


def _sync_folder(folder: Path) -> None:
    """The rename made durable; a folder that cannot be opened for it (some network file systems) is left be."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
