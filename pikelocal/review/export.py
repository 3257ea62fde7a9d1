"""A review's report to hand over, written from the stored rows without a model: Markdown and CSV
for tools, DOCX for Word users (python-docx), an XLSX workbook for spreadsheet users (openpyxl) whose mark and note
columns the reviewer fills in and ``pikelocal review --import-marks`` reads back (``review/marks_import.py``), and
one self-contained HTML file (no external asset: it opens on an air-gapped machine) whose every quote links to its
page's text, the quoted lines marked.

Each format holds, per item: the label, the answer, its normal value, the verdict, every quote with document, page
and lines, the reviewer's mark and note; then the audit trail, every mark ever made with its time.

A report carries a document's words into a spreadsheet, a word processor and a browser, so every piece of text
passes through its format's escaper (``review/escape.py``: a formula-looking CSV cell is prefixed, Markdown's HTML
and ``|`` escaped, HTML escaped, DOCX text kept to what XML allows), and the file is written by the one writer of
report files (``review/report_file.py``: a private temporary file, never through a link, renamed into place).

The words of each verdict and mark, the count line and each table's columns are tables here (:data:`VERDICTS`,
:data:`MARK_TEXT`, :data:`CSV_COLUMNS`, :data:`MARKDOWN_COLUMNS`, :data:`ROW_COLUMNS`), so a new verdict is a row in
:data:`VERDICTS`, shown by every format.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.domain.documents import PageRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.review import MARK_NAMES, REVIEW_MARKS, VERDICT_NAMES, Checklist, Located, ReviewQuote, ReviewRow
from pikelocal.domain.shown import shown_name
from pikelocal.review.escape import csv_cell, html_text, markdown_text, xml_text
from pikelocal.review.report_file import write_file
from pikelocal.store.reviews import StoredMark

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from openpyxl.worksheet.worksheet import Worksheet

FORMATS = (".md", ".csv", ".html", ".docx", ".xlsx")


@dataclass(frozen=True)
class VerdictText:
    """How a verdict reads: in a row (``shown``), in the count line (``counted``: "3 in conflict"), and its colour
    in the HTML report."""

    shown: str
    counted: str
    css: str


VERDICTS: Mapping[str, VerdictText] = {
    "found": VerdictText(VERDICT_NAMES["found"], "found", "color:#064"),
    # the answer stands in a sentence not clearly about the item: shown with its quote, for the reviewer to decide
    "to_check": VerdictText(VERDICT_NAMES["to_check"], "to check", "color:#a60;font-style:italic"),
    "not_stated": VerdictText(VERDICT_NAMES["not_stated"], "not stated", "color:#666"),
    "conflicting": VerdictText(VERDICT_NAMES["conflicting"], "in conflict", "color:#b00;font-weight:bold"),
}
VERDICT_TEXT = {name: v.shown for name, v in VERDICTS.items()}
MARK_TEXT = MARK_NAMES
CSV_COLUMNS = (
    "section", "item", "label", "kind", "question", "answer", "value", "verdict", "quote", "document", "page",
    "lines", "mark", "note", "marked_at", "answered_at",
)  # fmt: skip
AUDIT_COLUMNS = ("time (UTC)", "item", "mark", "note")


@dataclass(frozen=True)
class Report:
    """What an export writes: the checklist, its rows, the marks' history, the KB's name and, for HTML, the text
    of every page a quote stands on."""

    checklist: Checklist
    rows: Sequence[ReviewRow]
    marks: Sequence[StoredMark]
    kb_name: str
    pages: Mapping[tuple[int, int], PageRecord]


def write_report(report: Report, out: Path, mode: int = 0o600) -> Path:
    """Write ``report`` in the format ``out``'s suffix names, with permissions ``mode`` (the KB file's); the file is
    written whole or not at all, never through a link (``review/report_file.py``)."""
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"{shown_name(str(out))}: the report's format is named by its suffix: {', '.join(FORMATS)}")
    if not out.parent.is_dir():
        raise InputError(f"{shown_name(str(out.parent))}: no such folder")
    binary = BINARY_WRITERS.get(suffix)
    data = binary(report) if binary is not None else TEXT_WRITERS[suffix](report).encode("utf-8")
    return write_file(out, data, mode)


# Kinds whose normal form says more than the answer's words (a name's or a text's is the answer itself).
SHOWN_VALUE_KINDS = frozenset({"amount", "date", "duration", "count", "percentage", "yesno"})


def value_text(row: ReviewRow) -> str:
    """The row's normal values ("350900 TWD / 380000 TWD"); empty for a name, list or text."""
    if row.kind not in SHOWN_VALUE_KINDS:
        return ""
    return " / ".join(dict.fromkeys(v.normal for v in row.values))


def verdict_text(row: ReviewRow) -> str:
    """The row's verdict as a reader sees it (a verdict this module does not know is shown as stored)."""
    known = VERDICTS.get(row.verdict)
    return known.shown if known else row.verdict


def mark_text(mark: str) -> str:
    return MARK_TEXT.get(mark, mark)


def _lines(where: Located) -> str:
    if where.line_start is None:
        return ""
    return (
        str(where.line_start) if where.line_end in (None, where.line_start) else f"{where.line_start}-{where.line_end}"
    )


def _quote_line(q: ReviewQuote) -> str:
    return f"“{q.text}” ({q.where.citation()})"


def _sections(rows: Sequence[ReviewRow]) -> list[tuple[str, list[ReviewRow]]]:
    out: dict[str, list[ReviewRow]] = {}
    for row in rows:
        out.setdefault(row.section, []).append(row)
    return list(out.items())


def _counts_line(rows: Sequence[ReviewRow]) -> str:
    """``5 items answered: 3 found, 1 not stated, 1 in conflict; 2 marked by the reviewer.``: one count per verdict
    of :data:`VERDICTS`."""
    counts = ", ".join(f"{sum(r.verdict == name for r in rows)} {v.counted}" for name, v in VERDICTS.items())
    marked = sum(bool(r.mark) for r in rows)
    return f"{len(rows)} items answered: {counts}; {marked} marked by the reviewer."


def _title(checklist: Checklist) -> str:
    return checklist.title or checklist.name


# The columns of a row in Markdown, HTML and Word: a heading and the cell's lines of plain text (each format escapes
# them and joins them its own way).
Cell = Callable[[ReviewRow], Sequence[str]]
ROW_COLUMNS: tuple[tuple[str, Cell], ...] = (
    ("item", lambda r: [r.label]),
    ("answer", lambda r: [r.answer, *([f"({value_text(r)})"] if value_text(r) else [])]),
    ("verdict", lambda r: [verdict_text(r)]),
    ("quotes", lambda r: [_quote_line(q) for q in r.quotes]),
    ("mark / note", lambda r: [x for x in (mark_text(r.mark), r.note) if x]),
)
# Markdown keeps the value and the note in columns of their own (a tool reading the table finds them there).
MARKDOWN_COLUMNS: tuple[tuple[str, Cell], ...] = (
    ("item", lambda r: [r.label]),
    ("answer", lambda r: [r.answer]),
    ("value", lambda r: [value_text(r)]),
    ("verdict", lambda r: [verdict_text(r)]),
    ("quotes", lambda r: [_quote_line(q) for q in r.quotes]),
    ("mark", lambda r: [mark_text(r.mark)]),
    ("note", lambda r: [r.note]),
)


def _audit_cells(m: StoredMark) -> tuple[str, str, str, str]:
    return (m.at, m.item_id, mark_text(m.mark), m.note)


# --- Markdown ---------------------------------------------------------------------------------------------------


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _md_cell(lines: Sequence[str]) -> str:
    """A cell's lines, each escaped, joined by the one tag the report itself writes."""
    return "<br>".join(markdown_text(line) for line in lines)


def markdown(report: Report) -> str:
    c = report.checklist
    out = [f"# {markdown_text(_title(c))}", ""]
    out += [f"Knowledge base: {markdown_text(shown_name(report.kb_name))} · checklist {markdown_text(c.name)}", ""]
    out += [_counts_line(report.rows), ""]
    for section, rows in _sections(report.rows):
        out += [f"## {markdown_text(section or c.name)}", "", _md_row([h for h, _ in MARKDOWN_COLUMNS])]
        out.append(_md_row(["---"] * len(MARKDOWN_COLUMNS)))
        out += [_md_row([_md_cell(cell(r)) for _, cell in MARKDOWN_COLUMNS]) for r in rows]
        out.append("")
    if report.marks:
        out += ["## Audit trail", "", _md_row(AUDIT_COLUMNS), _md_row(["---"] * len(AUDIT_COLUMNS))]
        out += [_md_row([markdown_text(x) for x in _audit_cells(m)]) for m in report.marks]
        out.append("")
    return "\n".join(out) + "\n"


# --- CSV --------------------------------------------------------------------------------------------------------


def csv_rows(report: Report) -> list[list[str]]:
    """One line per quote (an item without a quote: one line with the quote's columns empty), in
    :data:`CSV_COLUMNS`' order, as plain text (:func:`csv_text` escapes it)."""
    out = []
    for r in report.rows:
        quotes: Sequence[ReviewQuote | None] = r.quotes or (None,)
        for q in quotes:
            where = q.where if q else None
            out.append([
                r.section, r.item_id, r.label, r.kind, r.question, r.answer, value_text(r), r.verdict,
                q.text if q else "", shown_name(where.title) if where else "",
                str(where.page) if where and where.page else "", _lines(where) if where else "", r.mark, r.note,
                r.marked_at, r.answered_at,
            ])  # fmt: skip
    return out


def csv_text(report: Report) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CSV_COLUMNS)
    for row in csv_rows(report):
        writer.writerow([csv_cell(cell) for cell in row])
    return buf.getvalue()


# --- HTML -------------------------------------------------------------------------------------------------------

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse;width:100%;margin-bottom:2em}
td,th{border:1px solid #bbb;padding:.3em .5em;vertical-align:top;text-align:left}
th{background:#eee}
blockquote{margin:.2em 0;padding-left:.6em;border-left:3px solid #aaa}
pre{white-space:pre-wrap;font-size:90%}.hit{background:#ff8}.ln{color:#888;user-select:none}
"""


def _verdict_style() -> str:
    return "".join(f".v-{name}{{{v.css}}}" for name, v in VERDICTS.items())


def html_report(report: Report) -> str:
    c = report.checklist
    e = html_text
    out = [
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8">', f"<title>{e(_title(c))}</title>",
        f"<style>{_STYLE}{_verdict_style()}</style></head><body>", f"<h1>{e(_title(c))}</h1>",
        f"<p>Knowledge base: {e(shown_name(report.kb_name))} · checklist <code>{e(c.name)}</code></p>",
        f"<p>{e(_counts_line(report.rows))}</p>",
    ]  # fmt: skip
    headings = "".join(f"<th>{e(h)}</th>" for h, _ in ROW_COLUMNS)
    for section, rows in _sections(report.rows):
        out.append(f"<h2>{e(section or c.name)}</h2>")
        out.append(f"<table><tr>{headings}</tr>")
        out += [_html_row(r, report.pages) for r in rows]
        out.append("</table>")
    out += _html_audit(report.marks)
    out += _html_pages(report)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _anchor(where: Located) -> str:
    return f"d{where.doc_id}-p{where.page}"


def _html_quotes(r: ReviewRow, pages: Mapping[tuple[int, int], PageRecord]) -> str:
    """Each quote as a blockquote, its citation a link to the page's text when the report holds that page."""
    out = []
    for q in r.quotes:
        cite = html_text(q.where.citation())
        if q.where.page is not None and (q.where.doc_id, q.where.page) in pages:
            cite = f'<a href="#{_anchor(q.where)}">{cite}</a>'
        out.append(f"<blockquote>{html_text(q.text)}<br><small>{cite}</small></blockquote>")
    return "".join(out)


def _html_row(r: ReviewRow, pages: Mapping[tuple[int, int], PageRecord]) -> str:
    cells = []
    for heading, cell in ROW_COLUMNS:
        if heading == "quotes":
            cells.append(f"<td>{_html_quotes(r, pages)}</td>")
            continue
        lines = list(cell(r)) or [""]
        rest = "".join(f"<br><small>{html_text(x)}</small>" for x in lines[1:])
        css = f' class="v-{html_text(r.verdict)}"' if heading == "verdict" else ""
        cells.append(f"<td{css}>{html_text(lines[0])}{rest}</td>")
    return "<tr>" + "".join(cells) + "</tr>"


def _html_audit(marks: Sequence[StoredMark]) -> list[str]:
    if not marks:
        return []
    e = html_text
    out = ["<h2>Audit trail</h2>", "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in AUDIT_COLUMNS) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{e(x)}</td>" for x in _audit_cells(m)) + "</tr>" for m in marks]
    return [*out, "</table>"]


def _html_pages(report: Report) -> list[str]:
    """Each quoted page's text, its lines numbered as the citations count them, the quoted lines marked."""
    quoted: dict[tuple[int, int], set[int]] = {}
    titles: dict[int, str] = {}
    for r in report.rows:
        for q in r.quotes:
            w = q.where
            if w.page is None or (w.doc_id, w.page) not in report.pages:
                continue
            titles[w.doc_id] = w.title
            lines = quoted.setdefault((w.doc_id, w.page), set())
            if w.line_start is not None:
                lines.update(range(w.line_start, (w.line_end or w.line_start) + 1))
    if not quoted:
        return []
    out = ["<h2>Quoted pages</h2>"]
    for (doc_id, page_no), marked in sorted(quoted.items()):
        page = report.pages[(doc_id, page_no)]
        out.append(f'<h3 id="d{doc_id}-p{page_no}">{html_text(shown_name(titles[doc_id]))}, p. {page_no}</h3><pre>')
        for n, line in enumerate(page.lines(), start=1):
            text = f'<span class="ln">{n:>4}</span> {html_text(line)}'
            out.append(f'<span class="hit">{text}</span>' if n in marked else text)
        out.append("</pre>")
    return out


TEXT_WRITERS: Mapping[str, Callable[[Report], str]] = {".md": markdown, ".csv": csv_text, ".html": html_report}


# --- DOCX -------------------------------------------------------------------------------------------------------


def docx_bytes(report: Report) -> bytes:
    """A Word document: a heading per checklist section, a table per section (:data:`ROW_COLUMNS`), then the audit
    trail; every text kept to what XML allows (python-docx refuses the rest)."""
    import docx  # python-docx: its one home

    x = xml_text
    document = docx.Document()
    c = report.checklist
    document.add_heading(x(_title(c)), level=0)
    document.add_paragraph(x(f"Knowledge base: {shown_name(report.kb_name)} · checklist {c.name}"))
    document.add_paragraph(_counts_line(report.rows))
    for section, rows in _sections(report.rows):
        document.add_heading(x(section or c.name), level=1)
        _docx_table(document, [h for h, _ in ROW_COLUMNS], [[x("\n".join(cell(r))) for _, cell in ROW_COLUMNS]
                                                             for r in rows])  # fmt: skip
    if report.marks:
        document.add_heading("Audit trail", level=1)
        _docx_table(document, AUDIT_COLUMNS, [[x(cell) for cell in _audit_cells(m)] for m in report.marks])
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def _docx_table(document: WordDocument, headings: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    table = document.add_table(rows=1, cols=len(headings))
    table.style = "Table Grid"
    for cell, title in zip(table.rows[0].cells, headings, strict=True):
        cell.text = title
    for row in rows:
        for cell, text in zip(table.add_row().cells, row, strict=True):
            cell.text = text


# --- XLSX -------------------------------------------------------------------------------------------------------

# The workbook's sheets and columns. ``review`` holds one row per item, keyed by its id (``item``): the reviewer
# edits ``mark`` and ``note`` (the only unlocked cells) and ``--import-marks`` matches rows by that key, so rows may
# be sorted, filtered or deleted.
REVIEW_SHEET = "review"
QUOTES_SHEET = "quotes"
AUDIT_SHEET = "audit trail"
XLSX_REVIEW_COLUMNS = (
    "checklist", "item", "section", "label", "kind", "question", "answer", "value", "verdict", "quotes", "quote",
    "document", "page", "line_start", "line_end", "mark", "note", "marked_at",
)  # fmt: skip
XLSX_QUOTE_COLUMNS = ("item", "n", "quote", "value", "document", "page", "line_start", "line_end")
EDITABLE_COLUMNS = ("mark", "note")
# What the mark column's drop-down offers: the marks as ``pikelocal mark`` takes them (empty: no mark).
XLSX_MARKS = tuple(m for m in REVIEW_MARKS if m)
_NUMERIC = frozenset({"page", "line_start", "line_end", "n", "quotes"})
_WIDTHS = {"question": 40, "answer": 30, "quote": 60, "label": 24, "note": 40, "mark": 12, "document": 20}


def _where_cells(q: ReviewQuote | None) -> list[str]:
    """A quote's text, document, page, first and last line (empty cells for no quote)."""
    if q is None:
        return ["", "", "", "", ""]
    w = q.where
    last = w.line_start if w.line_end is None else w.line_end
    return [
        q.text, shown_name(w.title), "" if w.page is None else str(w.page),
        "" if w.line_start is None else str(w.line_start), "" if last is None else str(last),
    ]  # fmt: skip


def xlsx_review_rows(report: Report) -> list[list[str]]:
    """One row per item in :data:`XLSX_REVIEW_COLUMNS`' order, its first quote in the quote's columns (the others
    are on the quotes sheet), as plain text."""
    return [
        [
            report.checklist.name, r.item_id, r.section, r.label, r.kind, r.question, r.answer, value_text(r),
            r.verdict, str(len(r.quotes)), *_where_cells(r.quotes[0] if r.quotes else None), r.mark, r.note,
            r.marked_at,
        ]
        for r in report.rows
    ]  # fmt: skip


def xlsx_quote_rows(report: Report) -> list[list[str]]:
    """Every quote of every item, numbered as the TUI's digits and the other reports number them."""
    out = []
    for r in report.rows:
        for n, q in enumerate(r.quotes, start=1):
            text, *where = _where_cells(q)
            out.append([r.item_id, str(n), text, q.value.normal if q.value else "", *where])
    return out


def _cell(column: str, text: str) -> str | int | None:
    """A cell's value: page, line and count columns as numbers, an empty text as an empty cell, everything else as
    text a spreadsheet keeps as text (``csv_cell``: a formula-looking text is prefixed)."""
    if not text:
        return None
    return int(text) if column in _NUMERIC and text.isdigit() else csv_cell(text)


def xlsx_bytes(report: Report) -> bytes:
    """The review as a workbook: the ``review`` sheet (one row per item; only mark and note unlocked, the mark a
    drop-down of :data:`XLSX_MARKS`; protected without a password, so filtering works and Unprotect Sheet lets a
    user sort), every quote on ``quotes``, every mark ever made on ``audit trail``; each header row frozen."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    book = Workbook()
    if book.active is not None:
        book.remove(book.active)
    tables = (
        (REVIEW_SHEET, XLSX_REVIEW_COLUMNS, xlsx_review_rows(report)),
        (QUOTES_SHEET, XLSX_QUOTE_COLUMNS, xlsx_quote_rows(report)),
        (AUDIT_SHEET, AUDIT_COLUMNS, [list(_audit_cells(m)) for m in report.marks]),
    )
    for name, columns, rows in tables:
        sheet = book.create_sheet(name)
        sheet.append(list(columns))
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in rows:
            sheet.append([_cell(c, v) for c, v in zip(columns, row, strict=True)])
        sheet.freeze_panes = "A2"
        for i, column in enumerate(columns, start=1):
            sheet.column_dimensions[get_column_letter(i)].width = _WIDTHS.get(column, 12)
    unlock_marks(book[REVIEW_SHEET], XLSX_REVIEW_COLUMNS, len(report.rows))
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()


def unlock_marks(sheet: Worksheet, columns: Sequence[str], n_rows: int) -> None:
    """Make ``sheet`` (``columns``, a header row and ``n_rows`` rows) one a reviewer fills in: only the cells of
    :data:`EDITABLE_COLUMNS` unlocked, the mark a drop-down of :data:`XLSX_MARKS`, the sheet protected without a
    password (filtering allowed, Unprotect Sheet lets a user sort), a filter over the header row."""
    from openpyxl.styles import Protection
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    last = max(n_rows + 1, 2)
    sheet.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{n_rows + 1}"
    for column in EDITABLE_COLUMNS:
        letter = get_column_letter(list(columns).index(column) + 1)
        for (cell,) in sheet[f"{letter}2:{letter}{last}"]:
            cell.protection = Protection(locked=False)
    mark_letter = get_column_letter(list(columns).index("mark") + 1)
    marks = ", ".join(XLSX_MARKS)
    choice = DataValidation(type="list", formula1=f'"{",".join(XLSX_MARKS)}"', allow_blank=True,
                            showErrorMessage=True, error=f"A mark is {marks}, or empty.")  # fmt: skip
    choice.add(f"{mark_letter}2:{mark_letter}{last}")
    sheet.add_data_validation(choice)
    sheet.protection.sheet = True
    sheet.protection.autoFilter = False  # filtering stays allowed on the protected sheet
    sheet.protection.formatColumns = False


BINARY_WRITERS: Mapping[str, Callable[[Report], bytes]] = {".docx": docx_bytes, ".xlsx": xlsx_bytes}


def docx_tables(
    title: str, paragraphs: Sequence[str], tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]]]]
) -> bytes:
    """A Word document of a title, paragraphs, then a heading and a table per (heading, columns, rows of plain
    text) (another report's layout: documents side by side), every text kept to what XML allows."""
    import docx  # python-docx: its one home

    x = xml_text
    document = docx.Document()
    document.add_heading(x(title), level=0)
    for paragraph in paragraphs:
        document.add_paragraph(x(paragraph))
    for heading, columns, rows in tables:
        document.add_heading(x(heading), level=1)
        _docx_table(document, [x(c) for c in columns], [[x(cell) for cell in row] for row in rows])
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()
