"""A user's file read whole but bounded (a checklist, a review workbook): at most ``limit`` bytes, and every way it
can fail as one line naming the file, in the caller's error class."""

from __future__ import annotations

from pathlib import Path

from pikelocal.domain.errors import InputError


def read_bounded(
    path: Path, shown: str, limit: int, *, missing: str, kind: str, too_large: str, error: type[InputError]
) -> bytes:
    """``path``'s bytes, or ``error`` saying why not: not there ("no such ``missing``"), a folder ("is a directory,
    not a ``kind``"), unreadable, or over ``limit`` ("larger than ``too_large``")."""
    if not path.exists():
        raise error(f"{shown}: no such {missing}")
    if path.is_dir():
        raise error(f"{shown}: is a directory, not a {kind}")
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as err:
        raise error(f"{shown}: cannot be read ({err.strerror or err})") from None
    if len(data) > limit:
        raise error(f"{shown}: larger than {too_large}")
    return data
