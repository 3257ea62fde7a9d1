"""The reviewer's first views written to a file: rejection risks by stage, requirements, the timeline and a bid
checked against its tender (each requirement with the bid's answer, both cited), as Markdown, CSV or an XLSX
workbook (openpyxl; one sheet per view). Every quote has its document, page, first and last line in their own
columns, so a reviewer sorts and filters them in a spreadsheet. A risk, a requirement and a timeline entry carry
their row id and the reviewer's mark and note; in the workbook the mark and note cells are the reviewer's to fill in,
and ``pikelocal review KB --import-marks views.xlsx`` (``review/marks_import.py``) reads them back by row id.

Text passes through ``review/escape.py`` (``csv_cell`` for every CSV and XLSX cell: a cell that starts like a
formula is prefixed, so a spreadsheet shows it as text; ``markdown_text`` for Markdown) and the file is written by
the one writer of report files (``review/report_file.py``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pikelocal.domain.errors import InputError
from pikelocal.domain.obligations import (
    BID_CHECK_NAMES,
    PARTY_NAMES,
    STAGE_NAMES,
    VIEW_NAMES,
    BidCheck,
    Clause,
    Requirement,
    Risk,
    TimelineEntry,
)
from pikelocal.domain.shown import shown_name
from pikelocal.review.escape import csv_cell, markdown_text
from pikelocal.review.export import EDITABLE_COLUMNS, unlock_marks
from pikelocal.review.report_file import write_file
from pikelocal.review.risks import by_stage

VIEW_FORMATS = (".md", ".csv", ".xlsx")
WHERE_COLUMNS = ("quote", "document", "page", "line_start", "line_end")
# A marked view's row: its stable id first (what ``--import-marks`` matches a row by), the reviewer's mark, note and
# its time last; in the workbook only mark and note are unlocked (``review/export.py``'s ``unlock_marks``).
MARK_COLUMNS = ("mark", "note", "marked_at")
RISK_COLUMNS = ("id", "stage", "triggers", *WHERE_COLUMNS, *MARK_COLUMNS)
REQUIREMENT_COLUMNS = ("id", "who", "kind", "binding word", "figures", *WHERE_COLUMNS, *MARK_COLUMNS)
TIMELINE_COLUMNS = ("id", "date", "ROC date", "as printed", "what", *WHERE_COLUMNS, *MARK_COLUMNS)
MARKED_SHEETS = frozenset(VIEW_NAMES)  # the sheets a reviewer marks (not the bid checked against its tender)
AGAINST_COLUMNS = (
    "state", "requirement", "tender document", "tender page", "tender line_start", "tender line_end", "required",
    "bid quote", "bid document", "bid page", "bid line_start", "bid line_end", "offered",
)  # fmt: skip
NUMERIC_COLUMNS = frozenset(
    {"page", "line_start", "line_end", *(f"{side} {c}" for side in ("tender", "bid") for c in ("page", "line_start",
     "line_end"))}
)  # fmt: skip


@dataclass(frozen=True)
class ViewsReport:
    """What a views export writes: the KB's name and each view's rows (an empty view is left out)."""

    kb_name: str
    risks: Sequence[Risk] = ()
    requirements: Sequence[Requirement] = ()
    timeline: Sequence[TimelineEntry] = ()
    bid_checks: Sequence[BidCheck] = ()


def _where(c: Clause) -> list[str]:
    w = c.where
    return [
        c.text, shown_name(w.title), "" if w.page is None else str(w.page),
        "" if w.line_start is None else str(w.line_start), "" if w.line_end is None else str(w.line_end),
    ]  # fmt: skip


def _marks(r: Risk | Requirement | TimelineEntry) -> list[str]:
    return [r.mark, r.note, r.marked_at]


def risk_cells(r: Risk) -> list[str]:
    return [r.row_id, STAGE_NAMES[r.stage], ", ".join(r.triggers), *_where(r.clause), *_marks(r)]


def requirement_cells(r: Requirement) -> list[str]:
    figures = "; ".join(dict.fromkeys(v.normal for v in r.figures))
    return [r.row_id, PARTY_NAMES[r.party], r.kind, r.modal, figures, *_where(r.clause), *_marks(r)]


def timeline_cells(e: TimelineEntry) -> list[str]:
    return [e.row_id, e.date or "(relative)", e.roc, e.value, e.what, *_where(e.clause), *_marks(e)]


def bid_check_cells(b: BidCheck) -> list[str]:
    """The state, the requirement and where it stands, what it requires; the bid's answer, where, what it offers
    (empty when the bid has no sentence about it)."""
    tender = _where(b.requirement.clause)
    required = "; ".join(dict.fromkeys(figure_text(f.required.normal, f.bound) for f in b.figures))
    offered = "; ".join(dict.fromkeys(f.offered.normal for f in b.figures if f.offered is not None))
    bid = _where(b.answer) if b.answer is not None else ["", "", "", "", ""]
    return [BID_CHECK_NAMES[b.state], *tender, required, *bid, offered]


def figure_text(normal: str, bound: str) -> str:
    """A required figure with its direction: "≥ 90 days", "≤ 30%", "50000 CNY"."""
    return {"min": "≥ ", "max": "≤ "}.get(bound, "") + normal


def sheets(report: ViewsReport) -> list[tuple[str, tuple[str, ...], list[list[str]]]]:
    """Each non-empty view as (name, columns, rows of plain text), risks grouped by stage."""
    out: list[tuple[str, tuple[str, ...], list[list[str]]]] = []
    if report.risks:
        ordered = [r for _s, group in by_stage(report.risks) for r in group]
        out.append(("risks", RISK_COLUMNS, [risk_cells(r) for r in ordered]))
    if report.requirements:
        out.append(("requirements", REQUIREMENT_COLUMNS, [requirement_cells(r) for r in report.requirements]))
    if report.timeline:
        out.append(("timeline", TIMELINE_COLUMNS, [timeline_cells(e) for e in report.timeline]))
    if report.bid_checks:
        out.append(("against", AGAINST_COLUMNS, [bid_check_cells(b) for b in report.bid_checks]))
    return out


def markdown(report: ViewsReport) -> str:
    lines = [f"# Review views of {markdown_text(report.kb_name)}", ""]
    for name, columns, rows in sheets(report):
        lines += [f"## {name} ({len(rows)})", ""]
        lines.append("| " + " | ".join(markdown_text(c) for c in columns) + " |")
        lines.append("|" + "---|" * len(columns))
        lines += ["| " + " | ".join(markdown_text(c) for c in row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)


def csv_text(report: ViewsReport) -> str:
    """One table: a ``view`` column, then every view's columns (each row fills its own)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    views = sheets(report)
    columns = list(dict.fromkeys(c for _n, cols, _r in views for c in cols))
    writer.writerow(["view", *columns])
    for name, cols, rows in views:
        for row in rows:
            cells = dict(zip(cols, row, strict=True))
            writer.writerow([csv_cell(name), *(csv_cell(cells.get(c, "")) for c in columns)])
    return buf.getvalue()


def xlsx_bytes(report: ViewsReport) -> bytes:
    """A workbook of one sheet per view, the header row frozen; page and lines as numbers; on the risks,
    requirements and timeline sheets the mark and note cells unlocked for the reviewer (the rest locked), the mark a
    drop-down, as on a checklist's review sheet."""
    return workbook_bytes(sheets(report) or [("risks", RISK_COLUMNS, [])], marked=MARKED_SHEETS)


def workbook_bytes(
    tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]]]],
    numeric: Callable[[str], bool] = NUMERIC_COLUMNS.__contains__,
    marked: frozenset[str] = frozenset(),
) -> bytes:
    """A workbook of one sheet per (name, columns, rows of plain text), the header row frozen; a cell of a column
    ``numeric`` names (page, lines) written as a number when it is one, an empty mark or note cell left empty, every
    other cell through ``csv_cell`` (openpyxl writes a cell starting with ``=`` as a formula). The sheets ``marked``
    names are made for the reviewer to fill in (:func:`~pikelocal.review.export.unlock_marks`)."""
    from openpyxl import Workbook

    book = Workbook()
    if book.active is not None:
        book.remove(book.active)
    for name, columns, rows in tables:
        sheet = book.create_sheet(name)
        sheet.append([csv_cell(c) for c in columns])
        for row in rows:
            cells = zip(columns, row, strict=True)
            sheet.append([_xlsx_cell(c, v, numeric, editable=name in marked) for c, v in cells])
        sheet.freeze_panes = "A2"
        if name in marked:
            unlock_marks(sheet, columns, len(rows))
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def _xlsx_cell(column: str, text: str, numeric: Callable[[str], bool], *, editable: bool) -> str | int | None:
    if numeric(column) and text.isdigit():
        return int(text)
    if editable and column in EDITABLE_COLUMNS and not text:
        return None  # an empty cell for the reviewer to fill in
    return csv_cell(text)


def write_views(report: ViewsReport, out: Path, mode: int = 0o600) -> Path:
    """Write ``report`` in the format ``out``'s suffix names (.md, .csv, .xlsx), whole or not at all."""
    suffix = out.suffix.lower()
    if suffix not in VIEW_FORMATS:
        raise InputError(f"{shown_name(str(out))}: the views' format is named by its suffix: {', '.join(VIEW_FORMATS)}")
    if suffix == ".xlsx":
        data = xlsx_bytes(report)
    else:
        data = (markdown(report) if suffix == ".md" else csv_text(report)).encode("utf-8")
    return write_file(out, data, mode)
