"""Read an Excel .xlsx into one unpaged text: each sheet a section, its cells a Markdown table.

- Each visible worksheet becomes ``# <sheet name>``, then its title lines, then its table
  (:func:`tables.markdown_table`). Hidden and very hidden sheets are left out, with a warning naming them: they
  hold lookup lists and workings more often than content. Chart sheets have no cells. Hidden rows and columns are
  read like the others.
- Rows with no value are left out, and so are columns with no value. Before the table, up to ``TITLE_ROWS_MAX``
  rows holding one value only (a title merged across the sheet, "单位：元") are written as plain lines. The header
  is the next row, or its next two rows when the first has cells merged across (a group name above its columns,
  "价格" over "单价 | 合价"); the header rows are folded into one.
- A merged range reads as its top-left value in every cell it covers (in the rows that hold any value).
- Values: formulas as the value Excel saved with them (``data_only``); a formula saved without one (a file written
  by a program that does not calculate) reads as blank, with one warning counting such cells. Whole numbers as
  integers ("45123", not "45123.0"), others to 15 significant digits, percentages as "15%", dates as ISO
  ("2024-03-15", with the time when it has one), booleans as TRUE/FALSE.
- A workbook has no pages: the text is unpaged (its citations name no page).
- Bounded: openpyxl reads in read-only mode, row by row, and only the cells a row stores are looked at (openpyxl's
  own rows are padded with empty cells up to their last column: one cell in Excel's last column made every row
  cost 16,384 cells). At most ``MAX_ROWS`` stored rows, ``MAX_CELLS`` non-empty cells, ``MAX_COLUMNS`` columns and
  ``max_chars`` characters are read, the rest left out with a warning. The characters are those of the Markdown
  the table becomes (each cell's bars and padding counted, at the widest row's width), so the text kept is never
  longer than ``max_chars``; a cell longer than what is left is cut where the limit falls. The package is checked
  in ``ooxml.py`` first; merged ranges and uncached formulas come from a streamed pass over each sheet's XML.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import warnings as py_warnings
import zipfile
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.parsers import expat

from pikelocal.ingest.read import ooxml
from pikelocal.ingest.read.ooxml import OfficeText
from pikelocal.ingest.read.tables import cell_text, markdown_table

MAX_CELLS = 1_000_000  # non-empty cells read from one workbook
# Stored rows read from one workbook. A row costs time to parse even when nothing in it is kept (a value past
# MAX_COLUMNS, an empty string): this bounds that time, as the character limit bounds the text of rows that are kept.
# What it costs: docs/RELIABILITY.md, "Air gap, Office files, links, damaged KBs and small gaps" (the million-row case).
MAX_ROWS = 100_000
MAX_COLUMNS = 256  # columns read from a sheet (Excel allows 16,384)
MAX_ROW_INDEX = 1_048_576  # Excel's last row; a row numbered past it is not Excel's
TITLE_ROWS_MAX = 3
_REF = re.compile(r"^\$?([A-Z]{1,3})\$?(\d{1,7})$")

Range = tuple[int, int, int, int]  # first row, first column, last row, last column (1-based, inclusive)


def read_xlsx(path: Path, data: bytes, max_chars: int = ooxml.MAX_CHARS) -> OfficeText:
    """The workbook as one unpaged text, its title and warnings; a DocumentError when it cannot be read.

    At most ``max_chars`` characters are kept (with a warning when a limit cut the text)."""
    zf = ooxml.open_package(path, data, "Excel")
    try:
        with zf:
            ooxml.main_part(path, zf, "Excel", "xl/workbook.xml")
            ooxml.check_prologs(path, zf)  # openpyxl reads the workbook's parts: none may declare entities
            return _read(path, zf, data, max_chars)
    except MemoryError:
        raise  # the reading process's to handle: its heap may be in any state
    except Exception as exc:  # whatever openpyxl, the zip or the XML raised: one line, never a traceback
        raise ooxml.library_error(path, "Excel", exc) from None


def _read(path: Path, zf: zipfile.ZipFile, data: bytes, max_chars: int) -> OfficeText:
    import openpyxl  # lazily: `import pikelocal.api` must stay light

    with py_warnings.catch_warnings():  # openpyxl warns of what it does not read (data validation, …)
        py_warnings.simplefilter("ignore")
        wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            budget = _Budget(max_chars)
            percent: dict[object, bool] = {}  # whether a style's number format is a percentage
            sections, hidden, uncached, notes = [], [], 0, []
            for ws in wb.worksheets:
                if ws.sheet_state != "visible":
                    hidden.append(ws.title)
                    continue
                if budget.spent():
                    notes.append(f"sheet '{ws.title}' left out")
                    continue
                merges, missing = _scan(zf, getattr(ws, "_worksheet_path", None))
                uncached += missing
                text, note = _sheet(ws, merges, budget, percent)
                if text:
                    section = f"# {ws.title}\n\n{text}"
                    room = budget.max_chars - budget.written
                    if len(section) > room:  # the budget counts the Markdown, but not bars escaped or the sheet's name
                        section, note = section[: max(room, 0)], note or f"sheet '{ws.title}' cut"
                        budget.chars = budget.max_chars
                    if section:
                        sections.append(section)
                        budget.written += len(section) + 2
                notes += [note] if note else []
        finally:
            wb.close()
    warnings = []
    if hidden:
        warnings.append(f"{path}: {len(hidden)} hidden sheet(s) left out: {', '.join(hidden[:5])}")
    if uncached:
        warnings.append(
            f"{path}: {uncached:,} formula cell(s) saved without a value read as blank (open and save the file in"
            " Excel to store them)"
        )
    if notes:
        warnings.append(f"{path}: over the reading limits ({budget.limits(budget.max_chars)}): " + "; ".join(notes[:5]))
    return OfficeText(("\n\n".join(sections),), False, ooxml.core_title(path, zf), tuple(warnings))


class _Budget:
    """What the workbook has cost so far: cells with a value, stored rows, and characters of Markdown."""

    def __init__(self, max_chars: int = ooxml.MAX_CHARS) -> None:
        self.max_chars = max_chars
        self.cells, self.rows, self.chars = 0, 0, 0
        self.written = 0  # characters of the sections written so far, with the blank lines between them

    def room(self) -> int:
        return self.max_chars - self.chars

    def spent(self) -> bool:
        return self.cells >= MAX_CELLS or self.rows >= MAX_ROWS or self.chars >= self.max_chars

    @staticmethod
    def limits(max_chars: int = ooxml.MAX_CHARS) -> str:
        return f"{MAX_CELLS:,} cells, {MAX_COLUMNS} columns, {max_chars:,} characters, {MAX_ROWS:,} rows"


def _stored_rows(ws: Any) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """(row number, the cells the row stores) for each row the sheet's XML holds, in order.

    openpyxl's parser of a read-only sheet, without the padding its ``iter_rows`` adds: each row there is a tuple
    as long as its last column, filled with empty cells (private names, kept to this one function)."""
    from openpyxl.worksheet._reader import WorkSheetParser

    wb = ws.parent
    with ws._get_source() as source:
        parser = WorkSheetParser(
            source,
            ws._shared_strings,
            data_only=wb.data_only,
            epoch=wb.epoch,
            date_formats=wb._date_formats,
            timedelta_formats=wb._timedelta_formats,
        )
        yield from parser.parse()


def _sheet(ws: Any, merges: list[Range], budget: _Budget, percent: dict[object, bool]) -> tuple[str, str | None]:
    """One sheet's title lines and table, and a note when a limit cut it."""
    grid, note = _grid(ws, budget, percent)
    _fill(grid, merges, budget)
    return _sheet_text(grid, merges), note


def _grid(ws: Any, budget: _Budget, percent: dict[object, bool]) -> tuple[dict[int, list[str]], str | None]:
    """The sheet's rows that hold a value (row number → its cells' texts) within the budget's limits, and a note
    when a limit cut them."""
    from openpyxl.cell.read_only import ReadOnlyCell

    grid: dict[int, list[str]] = {}
    wide, stop = False, ""  # whether a value lay past MAX_COLUMNS; where the rows stopped (a limit's note)
    base = budget.chars + len(ws.title) + 6  # what the sheets before this one cost, and this one's "# name" line
    values_len, width, kept, last = 0, 0, 0, 0  # this sheet's characters of values, widest row, rows kept, last row

    def cost(values_len: int, width: int, rows: int) -> int:
        """The characters of this sheet's table: each row its values, 3 a cell ("| ", " ") at the widest row's
        width and 2 more ("|", a line break); and the line under the header."""
        return base + values_len + rows * (3 * width + 2) + (4 * width + 2 if rows else 0)

    for index, cells in _stored_rows(ws):
        if index > MAX_ROW_INDEX or budget.spent():
            stop = stop or f"at row {last:,}"
            break
        budget.rows += 1
        last = index
        values: list[str] = []
        for cell in cells:
            column = int(cell.get("column") or 0)
            if not 1 <= column <= MAX_COLUMNS:
                wide = wide or cell.get("value") is not None
                continue
            text = _value(ReadOnlyCell(ws, **cell), percent)
            if not text:
                continue
            room = budget.max_chars - cost(values_len, max(width, column), kept + (0 if any(values) else 1))
            cut = len(text) > room
            if cut:  # the limit falls in this cell: what fits of it is kept, and nothing after it
                stop, budget.chars = f"in row {index:,} (the character limit)", budget.max_chars
                text = text[: max(room, 0)]
            if text:
                values.extend([""] * (column - len(values)))
                values[column - 1] = text
                values_len, width, budget.cells = values_len + len(text), max(width, column), budget.cells + 1
            if cut:
                break
        if any(values):
            kept += 1
            grid[index] = values
        budget.chars = max(budget.chars, cost(values_len, width, kept))
    cuts = ([f"at column {MAX_COLUMNS}"] if wide else []) + ([stop] if stop else [])
    return grid, f"sheet '{ws.title}' cut " + " and ".join(cuts) if cuts else None


def _sheet_text(grid: dict[int, list[str]], merges: list[Range]) -> str:
    """The rows as a Markdown table under the title lines above it (rows with one value across a wide sheet), the
    columns that hold nothing left out."""
    rows = [grid[i] for i in sorted(grid)]
    used = sorted({c for row in rows for c, text in enumerate(row) if cell_text(text)})
    rows = [[row[c] if c < len(row) else "" for c in used] for row in rows]
    keys = sorted(grid)
    titles: list[str] = []
    while rows and len(titles) < TITLE_ROWS_MAX and len(used) > 1 and len({t for t in rows[0] if t}) == 1:
        titles.append(next(t for t in rows[0] if t))
        rows, keys = rows[1:], keys[1:]
    parts = ["\n\n".join(titles)] if titles else []
    if rows:
        head = 2 if len(rows) > 2 and _merged_across(keys[0], merges) else 1
        parts.append(markdown_table(rows, header_rows=head))
    return "\n\n".join(parts)


def _merged_across(row: int, merges: list[Range]) -> bool:
    return any(r0 == row and c1 > c0 for r0, c0, _, c1 in merges)


def _fill(grid: dict[int, list[str]], merges: list[Range], budget: _Budget) -> None:
    """Each merged range's top-left value into every cell it covers, in the rows that hold any value."""
    keys = sorted(grid)
    work = MAX_CELLS  # bounded: a range may claim a whole sheet
    for r0, c0, r1, c1 in merges:
        top = grid.get(r0)
        value = top[c0 - 1] if top is not None and c0 - 1 < len(top) else ""
        if not value:
            continue
        for r in keys[bisect_left(keys, r0) : bisect_right(keys, r1)]:
            row = grid[r]
            last = min(c1, MAX_COLUMNS)
            if len(row) < last:
                row.extend([""] * (last - len(row)))
            for c in range(c0 - 1, last):
                budget.chars += len(value) - len(row[c])  # a long value copied over many cells is text too
                row[c] = value
            work -= last - c0 + 1
            if work <= 0 or budget.chars >= budget.max_chars:
                return


def _value(cell: Any, percent: dict[object, bool]) -> str:
    """A cell's value as text, the way a reader expects it."""
    value = getattr(cell, "value", None)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="minutes" if value.second == 0 else "seconds")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, (int, float)):
        style = getattr(cell, "_style_id", None)  # openpyxl's index of the cell's style: its format looked up once
        if style not in percent:
            percent[style] = "%" in _number_format(cell)
        if percent[style]:
            return f"{value * 100:.10g}%"
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.15g}" if isinstance(value, float) else str(value)
    return str(value)


def _number_format(cell: Any) -> str:
    try:
        return str(cell.number_format)
    except Exception:  # a style index the workbook does not define: the value still reads
        return "General"


def _scan(zf: zipfile.ZipFile, part: str | None) -> tuple[list[Range], int]:
    """A sheet's merged ranges and its count of formulas saved without a value, in one streamed pass (expat's
    callbacks, no tree: memory does not grow with the sheet; its prolog was checked by ``ooxml.check_prologs``)."""
    if part is None or not ooxml.has(zf, part):
        return [], 0
    merges: list[Range] = []
    state = {"missing": 0, "f": False, "v": False}

    def start(tag: str, attrs: dict[str, str]) -> None:
        name = tag.rsplit(":", 1)[-1]
        if name == "c":
            state["f"] = state["v"] = False
        elif name == "f":
            state["f"] = True
        elif name == "v":
            parser.CharacterDataHandler = value
        elif name == "mergeCell" and (found := _range(attrs.get("ref", ""))) is not None:
            merges.append(found)

    def value(text: str) -> None:
        state["v"] = state["v"] or bool(text.strip())

    def end(tag: str) -> None:
        name = tag.rsplit(":", 1)[-1]
        if name == "v":
            parser.CharacterDataHandler = None
        elif name == "c" and state["f"] and not state["v"]:
            state["missing"] += 1

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartElementHandler, parser.EndElementHandler = start, end
    with zf.open(part) as stream:
        while chunk := stream.read(1 << 20):
            parser.Parse(chunk, False)
    parser.Parse(b"", True)
    return merges, int(state["missing"])


def _range(ref: str) -> Range | None:
    """``B2:D4`` as (2, 2, 4, 4); None for what is not a range of cells."""
    ends = [_REF.match(part) for part in ref.upper().split(":")]
    if len(ends) != 2 or ends[0] is None or ends[1] is None:
        return None
    (c0, r0), (c1, r1) = ((_column(m.group(1)), int(m.group(2))) for m in ends if m is not None)
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


def _column(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - ord("A") + 1
    return n
