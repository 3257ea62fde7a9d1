"""Reading evaluation files: UTF-8 lines, JSON Lines, JSON lists of objects and their string fields.

Every problem is a one-line :class:`InputError` naming the file (and line or item), never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pikelocal.domain.errors import InputError


def open_error(path: Path, err: OSError | UnicodeDecodeError) -> InputError:
    """The one-line InputError for a file that cannot be read."""
    if isinstance(err, FileNotFoundError):
        return InputError(f"{path}: file not found")
    if isinstance(err, IsADirectoryError):
        return InputError(f"{path}: is a folder, expected a file")
    if isinstance(err, UnicodeDecodeError):
        return InputError(f"{path}: not UTF-8 text")
    return InputError(f"{path}: cannot read ({err.strerror or err})")


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, line without its newline) for each non-blank line of a UTF-8 text file."""
    try:
        with path.open(encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, start=1):
                line = line.rstrip("\r\n")
                if line.strip():
                    yield lineno, line
    except (OSError, UnicodeDecodeError) as err:
        raise open_error(path, err) from err


def iter_jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """("path:line", object) for each non-blank line of a JSON Lines file; each line must be a JSON object."""
    for lineno, line in iter_lines(path):
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{where}: malformed JSON ({err.msg})") from err
        if not isinstance(record, dict):
            raise InputError(f"{where}: expected a JSON object, got {type(record).__name__}")
        yield where, record


def load_json_list(path: Path) -> list[dict[str, Any]]:
    """A JSON file holding a list of objects."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise open_error(path, err) from err
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as err:
        raise InputError(f"{path}: malformed JSON at line {err.lineno} ({err.msg})") from err
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of objects, got {type(data).__name__}")
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(f"{path}: item {index} is {type(item).__name__}, expected an object")
    return data


def text_field(record: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
    """``record[key]`` as a string (ints become their decimal string); ``default`` when missing or null.

    Without a ``default`` the field is required: missing or null is an InputError.
    """
    value = record.get(key)
    if value is None:
        if default is None:
            raise InputError(f"{where}: missing field {key!r}")
        return default
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(f"{where}: field {key!r} must be a string, got {type(value).__name__}")
    return str(value)


def check_folder(folder: Path, what: str) -> None:
    """Raise InputError unless ``folder`` is an existing folder."""
    if not folder.is_dir():
        raise InputError(f"{folder}: {'not found' if not folder.exists() else 'not a folder'} (expected {what})")
