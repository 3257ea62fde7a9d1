"""Expand the paths a user gives (files and folders, recursively) into the files to ingest, in a stable order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pikelocal.domain.errors import DocumentError

# Files an operating system or editor leaves in folders: never documents, never worth a failure line.
IGNORED_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini"}


def _ignored(path: Path, root: Path) -> bool:
    rel = path.relative_to(root).parts
    return path.name in IGNORED_NAMES or any(part.startswith(".") for part in rel) or path.name.startswith("~$")


def discover(paths: Sequence[Path], *, exclude: Path | None = None) -> tuple[list[Path], list[DocumentError]]:
    """Files under ``paths`` (folders walked recursively, hidden entries skipped) and the paths that do not exist.

    A file named explicitly is always returned, whatever its type, so an unsupported one gets its own error line.
    ``exclude`` is the KB file itself: it and its -wal/-shm/-journal files are never documents.
    """
    files: list[Path] = []
    missing: list[DocumentError] = []
    seen: set[Path] = set()
    if exclude is not None:
        kb = exclude.resolve()
        seen.update({kb, *(kb.with_name(kb.name + s) for s in ("-wal", "-shm", "-journal"))})

    def add(f: Path) -> None:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            files.append(f)

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                if f.is_file() and not _ignored(f, path):
                    add(f)
        elif path.exists():
            add(path)
        else:
            missing.append(DocumentError(path, "vanished", "no such file or folder"))
    return files, missing
