"""Expand the paths a user gives (files and folders, recursively) into the files to ingest, in a stable order.

Nothing here reads a file's content: its type comes from its name and its kind and size from ``stat``, so a
1 GiB disk image, a named pipe or a device is refused before a byte of it is read. A folder walk never leaves
the folder: a symbolic link in it that points elsewhere is skipped with a warning, not followed, however the
command was given. A link named on the command line (``ingest KB folder/*`` names each link in the folder) is
followed only when the user asks (``--follow-links``): a shell glob names links nobody chose to trust.

Discovery and reading are separate steps, so what discovery decided is checked again when a file is read
(:func:`read_found`): it is opened without following a link, and the descriptor must be the very file discovery
saw (device and inode), so a file swapped for a link, or for another file, meanwhile is refused, not read.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pikelocal.domain.errors import DocumentError
from pikelocal.domain.shown import shown_name
from pikelocal.ingest.read.parse import size_error, unsupported_error

# Files an operating system or editor leaves in folders: never documents, never worth a failure line.
IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}


@dataclass(frozen=True)
class Found:
    """A file to read, as discovery saw it: where reading opens it and which file it must then be."""

    path: Path  # as named or found (a link inside a walked folder included): for messages and its type
    key: str  # the absolute path with links resolved, as the KB stores it (fixed now: a swap cannot move it)
    opened: str  # what reading opens without following a link: ``path``, or the resolved target of a link
    dev: int  # the file's identity at discovery; reading refuses any other file at ``opened``
    ino: int


@dataclass
class Discovered:
    files: list[Found] = field(default_factory=list)  # regular files of a supported type within the size limit
    failures: list[DocumentError] = field(default_factory=list)  # a failure line each (and a record in the KB)
    skipped: list[DocumentError] = field(default_factory=list)  # entries of a walked folder left out: a warning each


def file_key(path: Path) -> str:
    """The absolute path with symbolic links resolved, as the KB stores it; never raises (a link loop included)."""
    return os.path.realpath(path)


def link_key(path: Path) -> str:
    """The absolute path of ``path`` itself (its folder resolved, not the link): where a skipped link is named."""
    return os.path.join(os.path.realpath(path.parent), path.name)


def failure_key(path: Path) -> str:
    """Where a failure of discovery is recorded: a link under its own path (what the user named; the KB never
    records the path of a target it refused to read), anything else as :func:`file_key` has it."""
    return link_key(path) if os.path.islink(path) else file_key(path)


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
            return DocumentError(
                shown, "vanished", f"a symbolic link to {shown_name(os.readlink(path))}, which does not exist"
            )
        return DocumentError(shown, "vanished", "no such file or folder")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return DocumentError(shown, "unreadable", "cannot read it: permission denied")
    return DocumentError(shown, "unreadable", f"cannot read it: {exc.strerror or exc}")


def _inside(top: str, target: str) -> bool:
    return target == top or target.startswith(top if top.endswith(os.sep) else top + os.sep)


def discover(
    paths: Sequence[Path], *, exclude: Path | None = None, max_bytes: int | None = None, follow_links: bool = False
) -> Discovered:
    """Files under ``paths`` (folders walked recursively, hidden entries skipped) and why others are left out.

    A file named explicitly is always considered, whatever its type, so an unsupported one gets its own failure
    line; so is an unsupported file found in a folder. A file over ``max_bytes`` fails without being read.
    ``exclude`` is the KB file itself: it and its -wal/-shm/-journal files are never documents. A symbolic link
    named in ``paths`` fails with its reason unless ``follow_links``; a link out of a walked folder is skipped
    whatever ``follow_links`` says.
    """
    found = Discovered()
    seen: set[str] = set()
    if exclude is not None:
        kb = file_key(exclude)
        seen.update({kb, *(kb + s for s in ("-wal", "-shm", "-journal"))})

    def consider(path: Path, st: os.stat_result, *, named: bool, opened: Path | str | None = None) -> None:
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
            found.files.append(Found(path, key, os.fspath(path if opened is None else opened), st.st_dev, st.st_ino))

    for raw in paths:
        path = Path(raw)
        try:
            st = os.stat(path)  # follows a link: a loop or a dangling link fails here, with its own reason
            is_link = os.path.islink(path)
        except OSError as exc:
            found.failures.append(_stat_error(path, exc))
            continue
        if is_link and not follow_links:
            found.failures.append(_named_link_error(path))
            continue
        if stat.S_ISDIR(st.st_mode):
            for f, f_st, f_opened in _walk(path, found):
                consider(f, f_st, named=False, opened=f_opened)
        else:
            # a followed link is read at its target, so that reading, which never follows a link, can open it
            consider(path, st, named=True, opened=file_key(path) if is_link else None)
    return found


def _named_link_error(path: Path) -> DocumentError:
    """The failure of a symbolic link named without ``--follow-links``: where it points and the two ways on."""
    target = shown_name(os.path.realpath(path))
    return DocumentError(
        link_key(path),
        "link",
        f"a symbolic link to {target}: not followed (name {target} itself, or use --follow-links)",
    )


def _walk(root: Path, found: Discovered) -> list[tuple[Path, os.stat_result, str]]:
    """Every non-hidden file under ``root`` in path order with its ``stat`` and the path reading opens (a link's
    resolved target, so that reading never follows a link); links leaving ``root`` are skipped."""
    top = os.path.realpath(root)
    out: list[tuple[Path, os.stat_result, str]] = []
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
                                f"a symbolic link to {shown_name(target)}, outside {shown_name(top)}: not followed"
                                f" (name {shown_name(target)} to ingest it)",
                            )
                        )
                        continue
                    st = os.stat(path)
                    if stat.S_ISDIR(st.st_mode):
                        continue  # a folder inside this one: walked where it really is
                    out.append((path, st, target))
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(path)
                else:
                    out.append((path, entry.stat(follow_symlinks=False), entry.path))
            except OSError as exc:
                found.skipped.append(_stat_error(path, exc, shown=link_key(path)))
    out.sort(key=lambda item: item[0])
    return out


# O_NOFOLLOW: a link at the path now is refused, never followed (what discovery saw was no link: ``Found.opened``).
# O_NONBLOCK: a file swapped for a named pipe is opened without waiting for a writer, then refused by its fstat.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def read_found(found: Found, *, max_bytes: int | None = None) -> bytes:
    """The bytes of the file discovery found, or a DocumentError saying why not (swapped, vanished, unreadable,
    empty, too large), named by ``found.path``.

    The check and the read are one step: the path is opened without following a link, and the descriptor's
    ``fstat`` must be the file discovery saw (device and inode). A file swapped for a link after discovery (to
    /etc/shadow, say), or for another file, or reached through a folder swapped for a link, is refused; what is
    read is read from that descriptor, so nothing can be swapped in between.
    """
    path = found.path
    try:
        fd = os.open(found.opened, _READ_FLAGS)
    except OSError as exc:
        raise _open_error(found, exc) from None
    try:
        with os.fdopen(fd, "rb") as fh:  # closes fd, whatever happens below
            st = os.fstat(fh.fileno())
            if (st.st_dev, st.st_ino) != (found.dev, found.ino):
                raise _swapped(found, "changed", "another file")
            if not stat.S_ISREG(st.st_mode):
                raise DocumentError(path, "unsupported", "not a regular file (a named pipe, device or socket)")
            if (too_large := size_error(path, st.st_size, max_bytes)) is not None:
                raise too_large
            # bounded even if the file grows after the fstat: one byte past the limit is enough to refuse it
            data = fh.read(-1 if max_bytes is None else max_bytes + 1)
    except OSError as exc:
        raise DocumentError(path, "unreadable", f"cannot read the file: {exc.strerror or exc}") from None
    if max_bytes is not None and (too_large := size_error(path, len(data), max_bytes)) is not None:
        raise too_large
    if not data:
        raise DocumentError(path, "empty", "the file is empty (0 bytes)")
    return data


def _swapped(found: Found, reason: str, now: str) -> DocumentError:
    return DocumentError(
        found.path, reason, f"replaced by {now} after it was found: not read (ingest it again if that is expected)"
    )


def _open_error(found: Found, exc: OSError) -> DocumentError:
    """Why opening a found file failed. ELOOP (EMLINK on the BSDs) from O_NOFOLLOW: the path is a link now."""
    path = found.path
    if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(found.opened):
        try:
            target = os.readlink(found.opened)
        except OSError:
            target = "?"
        return _swapped(found, "link", f"a symbolic link (to {shown_name(target)})")
    if exc.errno in (errno.ENOENT, errno.ENOTDIR):
        return DocumentError(path, "vanished", "the file is gone (moved or deleted while pikelocal ran?)")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return DocumentError(path, "unreadable", "cannot read the file: permission denied")
    if exc.errno == errno.EISDIR:
        return DocumentError(path, "unreadable", "is a directory, not a file")
    return DocumentError(path, "unreadable", f"cannot read the file: {exc.strerror or exc}")
