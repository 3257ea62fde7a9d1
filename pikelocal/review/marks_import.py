"""The reviewer's marks and notes read back from a workbook filled in in a spreadsheet: a review workbook
(``pikelocal review --checklist C --export review.xlsx``: one mark per row of its ``review`` sheet, matched to its
item by the item id written in the row) or the views' workbook (``pikelocal review --risks --requirements --timeline
--export views.xlsx``: one mark per row of each view sheet, matched by the row id in its ``id`` column). Never by the
row's position, so the reviewer may sort, filter or delete rows.

A workbook is a zip of XML anyone can craft, and this reads one a user was handed, so it is judged before openpyxl
reads it and read within bounds:

- at most :data:`MAX_BYTES` on disk and :data:`MAX_UNZIPPED_BYTES` declared uncompressed (the zip module never
  inflates a member past its declared size, so this bounds what openpyxl reads), the package checked as ingest
  checks one (``ingest/read/ooxml.py``: a legacy or encrypted file, a damaged zip, odd packing, a DTD in any part);
- openpyxl in read-only mode, the saved values of formulas (a note typed as ``=A1`` is what the spreadsheet showed);
- at most :data:`MAX_ROWS` rows on the ``review`` sheet (one per checklist item: ``review/checklist_file.py``'s
  :data:`MAX_ITEMS`), :data:`MAX_VIEW_ROWS` on a view sheet, and :data:`MAX_COLUMNS` columns; an item or row id of
  at most :data:`MAX_ID_CHARS` and a note of at most :data:`MAX_NOTE_CHARS` characters.

A fault of the whole file (not an .xlsx, damaged, none of the sheets, a sheet without its id, mark or note column,
too large) is an :class:`InputError` naming the file; a fault of one row (an unknown mark, a note too long, an id
twice) is one line in :attr:`MarksSheet.errors` naming the file, the sheet (a view's) and the row, and the other rows
are read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.domain.errors import DocumentError, InputError
from pikelocal.domain.obligations import VIEW_NAMES, ViewName
from pikelocal.domain.review import REVIEW_MARKS, ReviewMark
from pikelocal.domain.shown import shown_name
from pikelocal.ingest.read.ooxml import OLE_MAGIC, check_prologs, first_line, open_package
from pikelocal.review.bounded_read import read_bounded
from pikelocal.review.checklist_file import MAX_ITEMS
from pikelocal.review.escape import cell_text
from pikelocal.review.export import MARK_TEXT, REVIEW_SHEET, XLSX_MARKS

if TYPE_CHECKING:
    from openpyxl.workbook.workbook import Workbook
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

MAX_BYTES = 8 << 20  # a review of 1,000 items with their quotes is a few megabytes
MAX_UNZIPPED_BYTES = 8 << 20  # parsed in a few seconds however its cells and strings are laid out
MAX_ROWS = MAX_ITEMS  # one row per item of the checklist
MAX_VIEW_ROWS = 20_000  # a view sheet: one row per clause found, in a few hundred pages of tenders
MAX_COLUMNS = 64  # the export writes 18
MAX_ID_CHARS = 200
MAX_NOTE_CHARS = 4_000
# A mark as a reviewer may type it: the stored name, or as the reports show it ("to check"), in any case.
_MARKS: dict[str, ReviewMark] = {
    **{m: m for m in REVIEW_MARKS},
    **{MARK_TEXT[m]: m for m in REVIEW_MARKS},
}


@dataclass(frozen=True)
class SheetMark:
    """One row's mark and note, and the row's number in the sheet."""

    row: int
    item_id: str
    mark: ReviewMark
    note: str


@dataclass(frozen=True)
class MarksSheet:
    """What one sheet holds: the checklists its ``checklist`` column names (a ``review`` sheet's), the rows' marks
    in sheet order (``SheetMark.item_id``: a view sheet's row id), and one line per row that could not be read."""

    checklists: frozenset[str]
    marks: tuple[SheetMark, ...]
    errors: tuple[str, ...]


@dataclass(frozen=True)
class WorkbookMarks:
    """What a workbook holds: its ``review`` sheet's marks (None: it has none), each view sheet's, and its sheets'
    names."""

    review: MarksSheet | None
    views: dict[ViewName, MarksSheet]
    sheetnames: tuple[str, ...]


@dataclass(frozen=True)
class _SheetKind:
    """A sheet read for marks: its key column, the most rows it may have, what it is, and what a row is called."""

    key: str
    max_rows: int
    what: str
    noun: str


_REVIEW = _SheetKind("item", MAX_ROWS, "review", "item")
_VIEW = _SheetKind("id", MAX_VIEW_ROWS, "view", "row")


def read_workbook(path: Path) -> WorkbookMarks:
    """The marks and notes of ``path``'s ``review`` sheet and of its view sheets (``risks``, ``requirements``,
    ``timeline``), each one there (the caller says what a workbook without the sheets it wants is)."""
    shown = shown_name(str(path))
    data = _read_bytes(path, shown)
    _check_package(path, data, shown)
    from openpyxl import load_workbook

    try:
        book = load_workbook(BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises what its parts' readers raise: KeyError, ValueError, ParseError…
        raise InputError(f"{shown}: not a readable .xlsx workbook ({first_line(exc)})") from None
    try:
        names = tuple(book.sheetnames)
        review = _sheet(book, REVIEW_SHEET, shown, _REVIEW) if REVIEW_SHEET in names else None
        views = {v: _sheet(book, v, shown, _VIEW) for v in VIEW_NAMES if v in names}
    finally:
        book.close()
    return WorkbookMarks(review, views, names)


def _sheet(book: Workbook, name: str, shown: str, kind: _SheetKind) -> MarksSheet:
    try:
        return _read_sheet(book[name], name, shown, kind)
    except InputError:
        raise
    except Exception as exc:  # a damaged sheet part is met only when its rows are read
        raise InputError(f"{shown}: sheet '{name}' cannot be read ({first_line(exc)})") from None


def _read_bytes(path: Path, shown: str) -> bytes:
    return read_bounded(
        path, shown, MAX_BYTES, missing="file", kind="workbook (.xlsx)",
        too_large=f"{MAX_BYTES >> 20} MiB, which no review workbook is", error=InputError,
    )  # fmt: skip


def _check_package(path: Path, data: bytes, shown: str) -> None:
    """The zip judged whole before openpyxl opens it: not legacy or encrypted, a readable zip of bounded size, no
    DTD in any part."""
    if data.startswith(OLE_MAGIC):
        raise InputError(f"{shown}: a password-protected or legacy (.xls) Excel file, not an .xlsx workbook")
    try:
        package = open_package(path, data, "Excel")
        declared = sum(m.file_size for m in package.infolist())
        if declared > MAX_UNZIPPED_BYTES:
            raise InputError(
                f"{shown}: the workbook declares {declared >> 20} MiB uncompressed (limit {MAX_UNZIPPED_BYTES >> 20}"
                " MiB), which no review workbook holds"
            )
        check_prologs(path, package)
    except DocumentError as err:
        raise InputError(f"{shown}: not an .xlsx workbook: {err.detail}") from None


def _read_sheet(sheet: ReadOnlyWorksheet, name: str, shown: str, kind: _SheetKind) -> MarksSheet:
    rows = _rows(sheet, kind.max_rows)
    header = next(rows, None)
    columns = {_text(v).strip().lower(): i for i, v in reversed(list(enumerate(header or ())))}
    required = (kind.key, "mark", "note")
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(
            f"{shown}: sheet '{name}' has no column {', '.join(repr(c) for c in missing)} in its first row"
            f" (it needs {', '.join(required)})"
        )
    where = f"{shown}: row" if kind.key == "item" else f"{shown}: sheet '{name}' row"
    checklists: set[str] = set()
    marks: list[SheetMark] = []
    errors: list[str] = []
    first_row: dict[str, int] = {}
    for number, row in enumerate(rows, start=2):
        if number > kind.max_rows + 1:
            if any(v is not None and v != "" for v in row):
                raise InputError(f"{shown}: sheet '{name}' has over {kind.max_rows:,} rows, which no {kind.what} has")
            break

        def cell(column: str, row: Sequence[object] = row) -> object:
            i = columns.get(column)
            return row[i] if i is not None and i < len(row) else None

        if kind.key == "item" and "checklist" in columns and (checklist := _text(cell("checklist")).strip()):
            checklists.add(checklist)
        read = _row_mark(number, cell(kind.key), cell("mark"), cell("note"), kind.noun)
        if isinstance(read, str):
            if read:
                errors.append(f"{where} {number}: {read}")
            continue
        if (seen := first_row.get(read.item_id)) is not None:
            errors.append(f"{where} {number}: {kind.noun} '{read.item_id}' again (first on row {seen}): not taken")
            continue
        first_row[read.item_id] = number
        marks.append(read)
    return MarksSheet(frozenset(checklists), tuple(marks), tuple(errors))


def _rows(sheet: ReadOnlyWorksheet, max_rows: int) -> Iterator[tuple[object, ...]]:
    """The sheet's rows as values, at most ``max_rows`` + 2 (the header, the rows, one more to tell there are too
    many) of :data:`MAX_COLUMNS` cells; what lies below is never parsed."""
    yield from sheet.iter_rows(min_row=1, max_row=max_rows + 2, max_col=MAX_COLUMNS, values_only=True)


def _row_mark(number: int, key: object, mark: object, note: object, noun: str) -> SheetMark | str:
    """The row's mark, or why it cannot be taken ("" for an empty row, which is skipped without a word)."""
    item_id, mark_text = cell_text(_text(key).strip()), _text(mark).strip()
    note_text = cell_text(_text(note).strip())
    an_id = "an item id" if noun == "item" else "a row id"
    if not item_id:
        return f"a mark or note without {an_id}: not taken" if mark_text or note_text else ""
    if len(item_id) > MAX_ID_CHARS:
        return f"{an_id} of {len(item_id):,} characters (at most {MAX_ID_CHARS}): not taken"
    if mark is not None and not isinstance(mark, str):
        return f"{noun} '{item_id}': the mark is a {type(mark).__name__}, not one of {', '.join(XLSX_MARKS)}"
    value = _MARKS.get(mark_text.lower())
    if value is None:
        shown_mark = mark_text[:40] + ("…" if len(mark_text) > 40 else "")
        return f"{noun} '{item_id}': mark '{shown_mark}' is not one of {', '.join(XLSX_MARKS)} (or empty)"
    if len(note_text) > MAX_NOTE_CHARS:
        return f"{noun} '{item_id}': a note of {len(note_text):,} characters (at most {MAX_NOTE_CHARS:,}): not taken"
    return SheetMark(number, item_id, value, note_text)


def _text(value: object) -> str:
    """A cell's value as text: a number as a spreadsheet shows it (``30``, not ``30.0``), a date in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    return str(value)
