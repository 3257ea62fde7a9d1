"""The one reader of checklist files: the bytes read within a size limit, decoded, scanned once for what tomllib
cannot bear and for the lines errors point at, then parsed.

A checklist is a few kilobytes of TOML; a file made to hurt (a 1 MiB file of ``[[[[…``, a key of 100,000 dotted
parts, 13,000 items) must fail in one line naming the file and the line, in well under a second, not with a
RecursionError, a gigabyte of memory (tomllib's dotted keys cost the square of their length) or minutes of work.
So before tomllib sees the text, one pass over it (:func:`scan`) does three things:

- bounds nesting: arrays and inline tables at most :data:`MAX_DEPTH` deep, a key of at most :data:`MAX_DEPTH`
  dotted parts;
- counts the ``[[items]]`` headers, at most :data:`MAX_ITEMS`;
- keeps the line of each ``[[items]]`` header (not counting one inside a multi-line string), so an error in the
  n-th item names its line at once (:class:`TomlLines`).

The pass skips strings and comments with one regular expression each and looks only at the characters that make
TOML's structure, so it is linear in the file and never slower than tomllib itself.
"""

from __future__ import annotations

import re
import tomllib
from bisect import bisect_left
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pikelocal.domain.errors import ChecklistError
from pikelocal.domain.shown import shown_name
from pikelocal.review.bounded_read import read_bounded

MAX_BYTES = 1 << 20  # a checklist is a few kilobytes; a larger file is not one
MAX_DEPTH = 32  # arrays and inline tables inside each other, or the parts of one dotted key: a checklist uses 2
MAX_ITEMS = 1_000  # the built-in checklists hold 25 to 41 items; each item is a question to the model

ITEMS_HEADER = re.compile(r"[ \t]*\[\[[ \t]*(?:items|\"items\"|'items')[ \t]*\]\][ \t]*(?:#.*)?$", re.M)
_TOML_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
# What makes TOML's structure, outside strings and comments.
_SIGNIFICANT = re.compile(r"\"\"\"|'''|[\"'#\[\]{}=,.\n]")
# The rest of a string after its opening quotes, through its closing ones (possessive: no backtracking).
_STRING_END = {
    '"': re.compile(r'(?:[^"\\\n]|\\.)*+"'),
    "'": re.compile(r"[^'\n]*+'"),
    '"""': re.compile(r'(?:[^"\\]|\\.|"{1,2}(?!"))*+"{3,5}', re.S),
    "'''": re.compile(r"(?:[^']|'{1,2}(?!'))*+'{3,5}", re.S),
}


@dataclass(frozen=True)
class TomlLines:
    """Where things are in a checklist's text: the line of each ``[[items]]`` header, and the line of a top-level
    key (looked for only when an error names one)."""

    text: str
    item_lines: tuple[int, ...]

    def item_line(self, index: int) -> int:
        """The line of the ``index``-th (0-based) ``[[items]]`` header; the ``items =`` line for an inline array."""
        if index < len(self.item_lines):
            return self.item_lines[index]
        return self.top_key_line("items")

    def top_key_line(self, key: str) -> int:
        """The line where top-level ``key`` is set (``key = …`` before the first table, or a ``[key]`` header); 1
        when it cannot be told."""
        assign = re.compile(rf"^[ \t]*(?:{re.escape(key)}|\"{re.escape(key)}\")[ \t]*[=.]")
        header = re.compile(rf"^[ \t]*\[\[?[ \t]*{re.escape(key)}[ \t]*[\].]")
        in_tables = False
        for n, line in enumerate(self.text.splitlines(), 1):
            if header.match(line):
                return n
            in_tables = in_tables or line.lstrip().startswith("[")
            if not in_tables and assign.match(line):
                return n
        return 1


@dataclass(frozen=True)
class ChecklistToml:
    """A checklist file parsed: its TOML data, and where its parts are for the errors."""

    data: dict[str, Any]
    lines: TomlLines


def read_text(path: Path) -> str:
    """The text of a user's checklist file (at most :data:`MAX_BYTES`, UTF-8), every failure one line naming it."""
    shown = shown_name(str(path))
    data = read_bounded(
        path, shown, MAX_BYTES, missing="checklist file", kind="checklist file (.toml)",
        too_large=f"{MAX_BYTES // 1024} KiB, which no checklist is", error=ChecklistError,
    )  # fmt: skip
    try:
        return data.decode("utf-8-sig")  # a BOM (Windows editors) is dropped, not a TOML error
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        byte = data[err.start]
        raise ChecklistError(f"{shown}:{line}: not UTF-8 text (byte 0x{byte:02x}); save it as UTF-8") from None


def parse_toml(text: str, source: str) -> ChecklistToml:
    """``text`` scanned (:func:`scan`) and parsed by tomllib; ``source`` names it in every error."""
    lines = scan(text, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise _syntax_error(err, text, source) from None
    except RecursionError:  # the scan bounds nesting; this is the last guard, should it miss a form
        raise ChecklistError(f"{source}:1: nested too deeply to read, which no checklist is") from None
    return ChecklistToml(data, lines)


def scan(text: str, source: str) -> TomlLines:
    """One pass over ``text``: nesting and dotted keys within :data:`MAX_DEPTH`, at most :data:`MAX_ITEMS`
    ``[[items]]`` headers, and each header's line. A string or comment is skipped whole; an unterminated one ends
    the scan (tomllib names that error)."""
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos: int) -> int:
        return bisect_left(newlines, pos) + 1

    def too_deep(pos: int, what: str) -> ChecklistError:
        return ChecklistError(f"{source}:{line_of(pos)}: {what} deeper than {MAX_DEPTH} levels, which no checklist is")

    stack: list[str] = []  # the open arrays and inline tables of a value
    header = 0  # brackets open in a [table] or [[array]] header
    in_key, key_parts = True, 0  # reading a key (a line's start, after { or a , in an inline table), its dots
    items: list[int] = []
    pos = 0
    while (m := _SIGNIFICANT.search(text, pos)) is not None:
        token, pos = m.group(), m.end()
        if token in _STRING_END:
            end = _STRING_END[token].match(text, pos)
            if end is None:
                break
            pos = end.end()
        elif token == "#":
            stop = text.find("\n", pos)
            pos = len(text) if stop < 0 else stop
        elif token == "\n":
            if not stack:
                in_key, key_parts, header = True, 0, 0
        elif token == "=":
            in_key = False
        elif token == ".":
            if in_key:
                key_parts += 1
                if key_parts >= MAX_DEPTH:
                    raise too_deep(m.start(), "a dotted key")
        elif token == "," and stack and stack[-1] == "{":
            in_key, key_parts = True, 0
        elif token == "[" and not stack and in_key:
            header += 1
            if header == 1 and ITEMS_HEADER.match(text, text.rfind("\n", 0, m.start()) + 1):
                items.append(line_of(m.start()))
                if len(items) > MAX_ITEMS:
                    raise ChecklistError(f"{source}:{items[-1]}: more than {MAX_ITEMS:,} items, which no checklist has")
        elif token == "]" and header:
            header -= 1
        elif token in "[{":
            stack.append(token)
            in_key, key_parts = token == "{", 0
            if len(stack) > MAX_DEPTH:
                raise too_deep(m.start(), "arrays and tables nested")
        elif token in "]}" and stack:
            stack.pop()
            in_key = False
    return TomlLines(text, tuple(items))


def _syntax_error(err: tomllib.TOMLDecodeError, text: str, source: str) -> ChecklistError:
    """tomllib's message with its line moved to the front (``file:LINE: …``); "at end of document" is the last line."""
    message = str(err)
    where = _TOML_WHERE.search(message)
    if where:
        line, column = int(where.group(1)), int(where.group(2))
        return ChecklistError(f"{source}:{line}: not valid TOML: {message[: where.start()]} (column {column})")
    line = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    return ChecklistError(f"{source}:{line}: not valid TOML: {message}")
