"""Documents side by side written to a file, without a model: one row per checklist item, one column (or group of
columns) per document, and whether the documents agree; as Markdown, CSV, an XLSX workbook or a Word document.

Every cell keeps its quote and citation reachable: Markdown and Word put the quote and its citation under the value;
CSV and the workbook's first sheet give each document its own state, answer, value, quote, page and lines columns
(the first quote), and the workbook's second sheet lists every quote of every cell with its document, page and
lines. Text passes through ``review/escape.py``'s escapers and the file is written by the one writer of report
files (``review/report_file.py``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from pikelocal.domain.errors import InputError
from pikelocal.domain.review import ReviewQuote, ReviewRow
from pikelocal.domain.shown import shown_name
from pikelocal.domain.side_by_side import AGREEMENT_NAMES, ComparedDocument, SideBySide, SideBySideRow
from pikelocal.review.escape import csv_cell, markdown_text
from pikelocal.review.export import docx_tables, value_text, verdict_text
from pikelocal.review.report_file import write_file
from pikelocal.review.view_export import workbook_bytes

SIDE_FORMATS = (".md", ".csv", ".xlsx", ".docx")
NOT_ASKED = "not asked"  # a cell with no stored row: the item was never answered on that document
ROW_HEAD = ("section", "item", "label", "kind", "documents")
PER_DOCUMENT = ("state", "answer", "value", "quote", "page", "line_start", "line_end")
CITE_COLUMNS = ("item", "label", "document", "state", "value", "quote", "page", "line_start", "line_end")


def state_text(cell: ReviewRow | None) -> str:
    """A cell's state as a reader sees it: found, to check, not stated, CONFLICT, or not asked."""
    return NOT_ASKED if cell is None else verdict_text(cell)


def shown_value(cell: ReviewRow | None) -> str:
    """The value a cell shows: its normal value for a figure (350900 元), else its answer's words."""
    if cell is None or cell.verdict == "not_stated":
        return ""
    return value_text(cell) or cell.answer


def agreement_text(row: SideBySideRow) -> str:
    return AGREEMENT_NAMES[row.agreement]


def counts_line(compared: SideBySide) -> str:
    """``12 items on 3 documents: 4 same, 2 differ, 6 undecided (fewer than two documents state them).``"""
    rows = compared.rows
    same = sum(r.agreement == "same" for r in rows)
    differ = sum(r.agreement == "differs" for r in rows)
    rest = len(rows) - same - differ
    return (
        f"{len(rows)} items on {len(compared.documents)} documents: {same} same, {differ} differ, {rest} undecided"
        " (fewer than two documents state them)."
    )


def _lines(q: ReviewQuote) -> tuple[str, str]:
    w = q.where
    start = "" if w.line_start is None else str(w.line_start)
    return start, "" if w.line_end is None else str(w.line_end)


def cell_columns(cell: ReviewRow | None) -> list[str]:
    """A document's columns of one row (:data:`PER_DOCUMENT`), with its first quote."""
    q = cell.quotes[0] if cell is not None and cell.quotes else None
    where = ["", "", ""] if q is None else ["" if q.where.page is None else str(q.where.page), *_lines(q)]
    answer = "" if cell is None else cell.answer
    return [state_text(cell), answer, shown_value(cell), q.text if q else "", *where]


def _cell_lines(cell: ReviewRow | None) -> list[str]:
    """A cell as lines of plain text: the state and value, then each quote with its citation."""
    value = shown_value(cell)
    head = f"{state_text(cell)}: {value}" if value else state_text(cell)
    quotes = [] if cell is None else [f"“{q.text}” ({q.where.citation()})" for q in cell.quotes]
    return [head, *quotes]


def _headings(documents: Sequence[ComparedDocument]) -> list[str]:
    return [shown_name(d.heading) for d in documents]


# --- Markdown -------------------------------------------------------------------------------------------------------


def markdown(compared: SideBySide, kb_name: str) -> str:
    c = compared.checklist
    title = c.title or c.name
    out = [f"# {markdown_text(title)}: documents side by side", ""]
    out += [f"Knowledge base: {markdown_text(shown_name(kb_name))} · checklist {markdown_text(c.name)}", ""]
    out += [counts_line(compared), ""]
    columns = ["item", *_headings(compared.documents), "documents"]
    out += ["| " + " | ".join(markdown_text(h) for h in columns) + " |", "|" + "---|" * len(columns)]
    for row in compared.rows:
        cells = [markdown_text(row.label)]
        cells += ["<br>".join(markdown_text(line) for line in _cell_lines(cell)) for cell in row.cells]
        mark = agreement_text(row)
        cells.append(f"**{mark}**" if row.agreement == "differs" else mark)
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "## Documents", ""]
    out += [
        f"- {markdown_text(shown_name(d.heading))}: {markdown_text(shown_name(d.path))}" for d in compared.documents
    ]
    return "\n".join(out) + "\n"


# --- CSV and the workbook -------------------------------------------------------------------------------------------


def wide_columns(compared: SideBySide) -> list[str]:
    """The header of the wide table: the item's columns, then ``HEADING: state`` … for each document."""
    return [*ROW_HEAD, *(f"{h}: {col}" for h in _headings(compared.documents) for col in PER_DOCUMENT)]


def wide_rows(compared: SideBySide) -> list[list[str]]:
    """One line per item: its columns, whether the documents agree, then each document's columns."""
    out = []
    for row in compared.rows:
        line = [row.section, row.item_id, row.label, row.kind, agreement_text(row)]
        for cell in row.cells:
            line += cell_columns(cell)
        out.append(line)
    return out


def cite_rows(compared: SideBySide) -> list[list[str]]:
    """Every quote of every cell, one per line (:data:`CITE_COLUMNS`)."""
    out = []
    for row in compared.rows:
        for doc, cell in zip(compared.documents, row.cells, strict=True):
            for q in () if cell is None else cell.quotes:
                page = "" if q.where.page is None else str(q.where.page)
                value = shown_value(cell)
                out.append([row.item_id, row.label, shown_name(doc.heading), state_text(cell), value, q.text, page,
                            *_lines(q)])  # fmt: skip
    return out


def csv_text(compared: SideBySide) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow([csv_cell(c) for c in wide_columns(compared)])
    for line in wide_rows(compared):
        writer.writerow([csv_cell(cell) for cell in line])
    return buf.getvalue()


def _numeric(column: str) -> bool:
    return column.rsplit(": ", 1)[-1] in ("page", "line_start", "line_end")


def xlsx_bytes(compared: SideBySide) -> bytes:
    """Two sheets: ``side by side`` (the wide table) and ``cites`` (every quote); page and lines as numbers."""
    return workbook_bytes(
        [("side by side", wide_columns(compared), wide_rows(compared)), ("cites", CITE_COLUMNS, cite_rows(compared))],
        _numeric,
    )


# --- Word -----------------------------------------------------------------------------------------------------------


def docx_bytes(compared: SideBySide, kb_name: str) -> bytes:
    c = compared.checklist
    columns = ["item", *_headings(compared.documents), "documents"]
    rows = [
        [row.label, *("\n".join(_cell_lines(cell)) for cell in row.cells), agreement_text(row)] for row in compared.rows
    ]
    paragraphs = [f"Knowledge base: {shown_name(kb_name)} · checklist {c.name}", counts_line(compared)]
    return docx_tables(f"{c.title or c.name}: documents side by side", paragraphs, [(c.name, columns, rows)])


def write_side_by_side(compared: SideBySide, kb_name: str, out: Path, mode: int = 0o600) -> Path:
    """Write the table in the format ``out``'s suffix names (.md, .csv, .xlsx, .docx), whole or not at all."""
    suffix = out.suffix.lower()
    if suffix not in SIDE_FORMATS:
        raise InputError(
            f"{shown_name(str(out))}: the table's format is named by its suffix: {', '.join(SIDE_FORMATS)}"
        )
    if suffix == ".xlsx":
        data = xlsx_bytes(compared)
    elif suffix == ".docx":
        data = docx_bytes(compared, kb_name)
    else:
        data = (markdown(compared, kb_name) if suffix == ".md" else csv_text(compared)).encode("utf-8")
    return write_file(out, data, mode)
