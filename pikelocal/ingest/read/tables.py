"""Tables as Markdown in a document's text: written by the parsers, found again by the splitter and the store.

Every parser that reads a table (DOCX, XLSX, OCR'd or text-layer PDFs) writes it with :func:`markdown_table`: one
line per row, ``| a | b |``, the header row followed by a ``|---|---|`` rule, and a blank line before and after.
The splitter never cuts inside a row and repeats the header row above every later part of a long table (in the
chunk's contextual header, so the stored text still rebuilds the document exactly); the store keeps each table's
span so that a viewer can render it (:func:`find_tables`).

Pure functions, no imports beyond the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

_RULE_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
_WS = re.compile(r"\s+")


def cell_text(value: object) -> str:
    """One cell as Markdown: whitespace (line breaks included) folded to one space, ``|`` escaped."""
    text = "" if value is None else str(value)
    return _WS.sub(" ", text).strip().replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[object]], *, header_rows: int = 1) -> str:
    """``rows`` as a Markdown table (no trailing newline); every row padded to the widest.

    The first ``header_rows`` rows (at least one) are folded into one header row: a two-line header such as
    "价格 / 单价 | 合价" becomes "价格 单价 | 价格 合价", so every column keeps its whole name. Rows with no text at all
    are left out. An empty table gives "".
    """
    grid = [[cell_text(c) for c in row] for row in rows]
    grid = [row for row in grid if any(row)]
    if not grid:
        return ""
    width = max(len(row) for row in grid)
    grid = [row + [""] * (width - len(row)) for row in grid]
    n_head = max(1, min(header_rows, len(grid)))
    head = [" ".join(dict.fromkeys(row[i] for row in grid[:n_head] if row[i])) for i in range(width)]
    lines = [_row_line(head), "|" + "---|" * width]
    lines += [_row_line(row) for row in grid[n_head:]]
    return "\n".join(lines)


def _row_line(cells: Iterable[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def is_row(line: str) -> bool:
    """A Markdown table row (or rule): starts and ends with ``|`` once trimmed."""
    stripped = line.strip()
    return len(stripped) >= 2 and stripped.startswith("|") and stripped.endswith("|")


def is_rule(line: str) -> bool:
    """The ``|---|---|`` line under a header row."""
    if not is_row(line):
        return False
    cells = line.strip()[1:-1].split("|")
    return bool(cells) and all(_RULE_CELL.match(c) for c in cells)


def split_cells(line: str) -> list[str]:
    """The cells of a row line, ``\\|`` unescaped."""
    inner = line.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


@dataclass(frozen=True)
class TableSpan:
    """A Markdown table in a text: [start, end) covers its rows (the last row's line end included)."""

    start: int
    end: int
    header: str  # the header row and its rule, two lines, as written in the text
    body_start: int  # offset of the first row after the rule
    n_rows: int  # body rows (the header row not counted)
    n_cols: int


_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def find_tables(text: str) -> list[TableSpan]:
    """Every Markdown table in ``text``: a header row, then its rule, then zero or more rows, line after line.

    The text is walked a line at a time (no list of its lines): a 50 MB text costs no more memory than itself.
    """
    if "|" not in text:
        return []
    tables: list[TableSpan] = []
    prev: tuple[int, str] | None = None  # the last row line, which a rule line would make a table's header
    table: TableSpan | None = None  # the open table; its end and n_rows are set as it ends
    n_rows, pos = 0, 0
    for match in _LINE.finditer(text):
        line, start, pos = match.group(0), match.start(), match.end()
        if table is not None:
            if is_row(line) and not is_rule(line):
                n_rows += 1
                continue
            tables.append(replace(table, end=start, n_rows=n_rows))
            table = None
        if prev is not None and is_rule(line):
            header = prev[1].rstrip("\n") + "\n" + line.rstrip("\n")
            table, n_rows, prev = TableSpan(prev[0], pos, header, pos, 0, len(split_cells(prev[1]))), 0, None
            continue
        prev = (start, line) if is_row(line) and not is_rule(line) else None
    if table is not None:
        tables.append(replace(table, end=pos, n_rows=n_rows))
    return tables


def table_header_lines(header: str) -> str:
    """The table header rows a chunk header carries (see ``context.chunk_header``), or "" when it has none."""
    return "\n".join(line for line in header.splitlines() if is_row(line))
