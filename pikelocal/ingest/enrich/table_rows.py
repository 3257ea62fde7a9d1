"""Markdown table rows on a page (as every parser writes tables, ``ingest/read/tables.py``): each cell's span, the
table's header (carried over a page break), the row's label cell, the row as one line, and a bare number read in the
unit its column's header names. The statements of a document (``statements.py``) read a row's values with these.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.domain.review import Value
from pikelocal.ingest.read.tables import is_row, is_rule
from pikelocal.text.sentences import clean_sentence, line_spans
from pikelocal.text.subjects import clean_subject
from pikelocal.text.values import SPAN_KINDS, values_in

_WORDS = re.compile(r"[A-Za-z\u3400-\u9fff]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_BARE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# A column header that names the unit of the bare numbers below it.
_HEADER_UNIT = re.compile(
    r"[（(]\s*(万元|萬元|元|新台币元|新臺幣元|天|日|日历天|日曆天|个月|個月|年|%|％|分|份|人|页|頁)\s*[)）]"
)
_HEADER_POINTS = re.compile(r"配分|分值|分數|分数|得分|权重|權重|(?i:\b(?:points|score|weight(?:ing)?)\b)")


@dataclass(frozen=True)
class Row:
    """A Markdown table row on a page: its line's span, each cell's span (trimmed) and the table's header cells."""

    start: int
    end: int
    cells: tuple[tuple[int, int], ...]
    header: tuple[str, ...]


def table_rows(text: str, carried: list[str]) -> tuple[list[Row], list[str]]:
    """The body rows of the page's Markdown tables, and the header of the last table (for a table that runs on to
    the next page). A table at the top of a page without a header row of its own takes ``carried``."""
    rows: list[Row] = []
    header: list[str] = []
    block: list[tuple[int, int]] = []
    lines = line_spans(text)
    top = next((i for i, (a, b) in enumerate(lines) if text[a:b].strip()), 0)

    def close(first_line: int) -> None:
        nonlocal header
        if not block:
            return
        a0, b0 = block[0]
        if len(block) > 1 and is_rule(text[block[1][0] : block[1][1]]):
            header = [text[s:e] for s, e in cells_of(text, a0, b0)]
            body = block[2:]
        else:
            header = carried if first_line == top else []
            body = block
        for a, b in body:
            if not is_rule(text[a:b]):
                rows.append(Row(a, b, tuple(cells_of(text, a, b)), tuple(header)))
        block.clear()

    first = 0
    for i, (a, b) in enumerate(lines):
        if is_row(text[a:b]):
            if not block:
                first = i
            block.append((a, b))
        else:
            close(first)
    close(first)
    return rows, header


def cells_of(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The trimmed spans of a row line's cells (``\\|`` is no separator)."""
    line = text[start:end]
    bars = [i for i, c in enumerate(line) if c == "|" and (i == 0 or line[i - 1] != "\\")]
    out: list[tuple[int, int]] = []
    for left, right in zip(bars, bars[1:], strict=False):
        a, b = start + left + 1, start + right
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


def label_cell(text: str, cells: Sequence[tuple[int, int]]) -> str:
    """The row's label: the first cell before the value's that has words (a row number is no label)."""
    for a, b in cells:
        cell = text[a:b]
        if _WORDS.search(cell) and (label := clean_subject(cell, tail=False)):
            return label
    return ""


def row_sentence(text: str, row: Row) -> str:
    """A table row as one line: each cell after its column's name ("项目：投标保证金；金额（元）：50000")."""
    cells = [clean_sentence(text[a:b]) for a, b in row.cells]
    cjk = any(_CJK.search(c) for c in (*cells, *row.header))
    colon, sep = ("：", "；") if cjk else (": ", "; ")
    parts = []
    for j, cell in enumerate(cells):
        if not cell:
            continue
        name = clean_sentence(row.header[j]) if j < len(row.header) else ""
        parts.append(f"{name}{colon}{cell}" if name and name != cell else cell)
    return sep.join(parts)


def bare_value(cell: str, column: str) -> list[tuple[int, int, Value]]:
    """A cell that is a bare number, read in the unit its column's header names ("配分" 30 → 30 points, "金额（万元）"
    35 → 350,000 元); empty when the header names none."""
    number = _BARE_NUMBER.fullmatch(cell)
    if number is None or not column:
        return []
    unit = m.group(1) if (m := _HEADER_UNIT.search(column)) else ("分" if _HEADER_POINTS.search(column) else "")
    if not unit:
        return []
    read = values_in(cell + unit, SPAN_KINDS)
    if len(read) != 1 or read[0][0] != 0 or read[0][1] < len(cell):
        return []
    value = read[0][2]
    return [(0, len(cell), Value(value.kind, cell, value.normal, value.number, value.unit))]
