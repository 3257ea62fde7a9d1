"""Expand the paths a user gives (files and folders, recursively) into the files to ingest, in a stable order.

Nothing here reads a file's content: its type comes from its name and its kind and size from ``stat``, so a
1 GiB disk image, a named pipe or a device is refused before a byte of it is read. A folder walk never leaves
the folder: a symbolic link in it that points elsewhere is skipped with a warning, not followed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.parse import size_error, unsupported_error

# Files an operating system or editor leaves in folders: never documents, never worth a failure line.
IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}


@dataclass
class Discovered:
    files: list[Path] = field(default_factory=list)  # regular files of a supported type within the size limit
    failures: list[DocumentError] = field(default_factory=list)  # a failure line each (and a record in the KB)
    skipped: list[DocumentError] = field(default_factory=list)  # entries of a walked folder left out: a warning each


def file_key(path: Path) -> str:
    """The absolute path with symbolic links resolved, as the KB stores it; never raises (a link loop included)."""
    return os.path.realpath(path)


def link_key(path: Path) -> str:
    """The absolute path of ``path`` itself (its folder resolved, not the link): where a skipped link is named."""
    return os.path.join(os.path.realpath(path.parent), path.name)


def _ignored(name: str) -> bool:
    return name in IGNORED_NAMES or name.startswith((".", "~$"))


def _special(mode: int) -> str | None:
    """What a file that is not a regular one is, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _stat_error(path: Path, exc: OSError, *, shown: object = None) -> DocumentError:
    """Why ``stat`` failed, as a failure of ``shown`` (default: ``path``)."""
    shown = path if shown is None else shown
    if exc.errno == errno.ELOOP:
        return DocumentError(shown, "unreadable", "a symbolic link loop: it never reaches a file")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        if os.path.islink(path):
            return DocumentError(shown, "vanished", f"a symbolic link to {os.readlink(path)}, which does not exist")
        return DocumentError(shown, "vanished", "no such file or folder")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return DocumentError(shown, "unreadable", "cannot read it: permission denied")
    return DocumentError(shown, "unreadable", f"cannot read it: {exc.strerror or exc}")


def _inside(top: str, target: str) -> bool:
    return target == top or target.startswith(top if top.endswith(os.sep) else top + os.sep)


def discover(paths: Sequence[Path], *, exclude: Path | None = None, max_bytes: int | None = None) -> Discovered:
    """Files under ``paths`` (folders walked recursively, hidden entries skipped) and why others are left out.

    A file named explicitly is always considered, whatever its type, so an unsupported one gets its own failure
    line; so is an unsupported file found in a folder. A file over ``max_bytes`` fails without being read.
    ``exclude`` is the KB file itself: it and its -wal/-shm/-journal files are never documents.
    """
    found = Discovered()
    seen: set[str] = set()
    if exclude is not None:
        kb = file_key(exclude)
        seen.update({kb, *(kb + s for s in ("-wal", "-shm", "-journal"))})

    def consider(path: Path, st: os.stat_result, *, named: bool) -> None:
        key = file_key(path)
        if key in seen:
            return
        seen.add(key)
        special = _special(st.st_mode)
        if special is not None:
            err = DocumentError(path, "unsupported", f"{special}, not a document file")
            (found.failures if named else found.skipped).append(err)
        elif (err_or_none := unsupported_error(path) or size_error(path, st.st_size, max_bytes)) is not None:
            found.failures.append(err_or_none)
        else:
            found.files.append(path)

    for raw in paths:
        path = Path(raw)
        try:
            st = os.stat(path)  # follows a link: a named link to a file is that file
        except OSError as exc:
            found.failures.append(_stat_error(path, exc))
            continue
        if stat.S_ISDIR(st.st_mode):
            for f, f_st in _walk(path, found):
                consider(f, f_st, named=False)
        else:
            consider(path, st, named=True)
    return found


def _walk(root: Path, found: Discovered) -> list[tuple[Path, os.stat_result]]:
    """Every non-hidden file under ``root`` in path order with its ``stat``; links leaving ``root`` are skipped."""
    top = os.path.realpath(root)
    out: list[tuple[Path, os.stat_result]] = []
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError as exc:
            found.skipped.append(DocumentError(folder, "unreadable", f"cannot list the folder: {exc.strerror}"))
            continue
        for entry in entries:
            if _ignored(entry.name):
                continue
            path = Path(entry.path)
            try:
                if entry.is_symlink():
                    target = os.path.realpath(path)
                    if not _inside(top, target):
                        found.skipped.append(
                            DocumentError(
                                link_key(path),
                                "outside",
                                f"a symbolic link to {target}, outside {top}: not followed (name it to ingest it)",
                            )
                        )
                        continue
                    st = os.stat(path)
                    if stat.S_ISDIR(st.st_mode):
                        continue  # a folder inside this one: walked where it really is
                    out.append((path, st))
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(path)
                else:
                    out.append((path, entry.stat(follow_symlinks=False)))
            except OSError as exc:
                found.skipped.append(_stat_error(path, exc, shown=link_key(path)))
    out.sort(key=lambda item: item[0])
    return out
