"""A review's report to hand over (issue 45 step 5), written from the stored rows without a model: Markdown and CSV
for tools, DOCX for Word users (python-docx), and one self-contained HTML file (no external asset: it opens on an
air-gapped machine) whose every quote links to its page's text, the quoted lines marked.

Each format holds, per item: the label, the answer, its normal value, the verdict, every quote with document, page
and lines, the reviewer's mark and note; then the audit trail, every mark ever made with its time.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pikelocal.domain.documents import PageRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.review import Checklist, Located, ReviewQuote, ReviewRow
from pikelocal.domain.shown import shown_name
from pikelocal.store.reviews import StoredMark

FORMATS = (".md", ".csv", ".html", ".docx")
VERDICT_TEXT = {"found": "found", "not_stated": "not stated", "conflicting": "CONFLICT"}
MARK_TEXT = {"": "", "accepted": "accepted", "wrong": "wrong", "to_check": "to check"}
CSV_COLUMNS = (
    "section", "item", "label", "kind", "question", "answer", "value", "verdict", "quote", "document", "page",
    "lines", "mark", "note", "marked_at", "answered_at",
)  # fmt: skip


@dataclass(frozen=True)
class Report:
    """What an export writes: the checklist, its rows, the marks' history, the KB's name and, for HTML, the text
    of every page a quote stands on."""

    checklist: Checklist
    rows: Sequence[ReviewRow]
    marks: Sequence[StoredMark]
    kb_name: str
    pages: Mapping[tuple[int, int], PageRecord]


def write_report(report: Report, out: Path) -> Path:
    """Write ``report`` in the format ``out``'s suffix names; the file is written whole or not at all."""
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"{out}: the report's format is named by its suffix: {', '.join(FORMATS)}")
    if not out.parent.is_dir():
        raise InputError(f"{out.parent}: no such folder")
    data = docx_bytes(report) if suffix == ".docx" else TEXT_WRITERS[suffix](report).encode("utf-8")
    partial = out.with_name(out.name + ".partial")
    partial.write_bytes(data)
    partial.replace(out)
    return out


# Kinds whose normal form says more than the answer's words (a name's or a text's is the answer itself).
SHOWN_VALUE_KINDS = frozenset({"amount", "date", "duration", "count", "percentage", "yesno"})


def value_text(row: ReviewRow) -> str:
    """The row's normal values ("350900 TWD / 380000 TWD"); empty for a name, list or text."""
    if row.kind not in SHOWN_VALUE_KINDS:
        return ""
    return " / ".join(dict.fromkeys(v.normal for v in row.values))


def _lines(where: Located) -> str:
    if where.line_start is None:
        return ""
    return (
        str(where.line_start) if where.line_end in (None, where.line_start) else f"{where.line_start}-{where.line_end}"
    )


def _sections(rows: Sequence[ReviewRow]) -> list[tuple[str, list[ReviewRow]]]:
    out: dict[str, list[ReviewRow]] = {}
    for row in rows:
        out.setdefault(row.section, []).append(row)
    return list(out.items())


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


# --- Markdown ---------------------------------------------------------------------------------------------------


def markdown(report: Report) -> str:
    c = report.checklist
    out = [f"# {c.title or c.name}", "", f"Knowledge base: {report.kb_name} · checklist `{c.name}` ({c.source})", ""]
    out += [_counts_line(report.rows), ""]
    for section, rows in _sections(report.rows):
        out += [f"## {section or c.name}", "", "| item | answer | value | verdict | quotes | mark | note |"]
        out.append("|---|---|---|---|---|---|---|")
        for r in rows:
            quotes = "<br>".join(f"“{_cell(q.text)}” ({q.where.citation()})" for q in r.quotes)
            cells = (r.label, r.answer, value_text(r), VERDICT_TEXT[r.verdict], quotes, MARK_TEXT[r.mark], r.note)
            out.append("| " + " | ".join(_cell(x) if i != 4 else x for i, x in enumerate(cells)) + " |")
        out.append("")
    out += _audit_markdown(report.marks)
    return "\n".join(out) + "\n"


def _counts_line(rows: Sequence[ReviewRow]) -> str:
    n = {v: sum(r.verdict == v for r in rows) for v in VERDICT_TEXT}
    marked = sum(bool(r.mark) for r in rows)
    return (
        f"{len(rows)} items answered: {n['found']} found, {n['not_stated']} not stated, "
        f"{n['conflicting']} in conflict; {marked} marked by the reviewer."
    )


def _audit_markdown(marks: Sequence[StoredMark]) -> list[str]:
    if not marks:
        return []
    out = ["## Audit trail", "", "| time (UTC) | item | mark | note |", "|---|---|---|---|"]
    out += [f"| {m.at} | {_cell(m.item_id)} | {MARK_TEXT.get(m.mark, m.mark)} | {_cell(m.note)} |" for m in marks]
    return [*out, ""]


# --- CSV --------------------------------------------------------------------------------------------------------


def csv_text(report: Report) -> str:
    """One line per quote (an item without a quote: one line with the quote's columns empty)."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(CSV_COLUMNS)
    for r in report.rows:
        quotes: Sequence[ReviewQuote | None] = r.quotes or (None,)
        for q in quotes:
            where = q.where if q else None
            writer.writerow([
                r.section, r.item_id, r.label, r.kind, r.question, r.answer, value_text(r), r.verdict,
                q.text if q else "", where.title if where else "", where.page if where and where.page else "",
                _lines(where) if where else "", r.mark, r.note, r.marked_at, r.answered_at,
            ])  # fmt: skip
    return buf.getvalue()


# --- HTML -------------------------------------------------------------------------------------------------------

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}
table{border-collapse:collapse;width:100%;margin-bottom:2em}
td,th{border:1px solid #bbb;padding:.3em .5em;vertical-align:top;text-align:left}
th{background:#eee}.found{color:#064}.not_stated{color:#666}.conflicting{color:#b00;font-weight:bold}
blockquote{margin:.2em 0;padding-left:.6em;border-left:3px solid #aaa}
pre{white-space:pre-wrap;font-size:90%}.hit{background:#ff8}.ln{color:#888;user-select:none}
"""


def html_text(report: Report) -> str:
    c = report.checklist
    e = html.escape
    out = [
        "<!DOCTYPE html>", '<html><head><meta charset="utf-8">', f"<title>{e(c.title or c.name)}</title>",
        f"<style>{_STYLE}</style></head><body>", f"<h1>{e(c.title or c.name)}</h1>",
        f"<p>Knowledge base: {e(report.kb_name)} · checklist <code>{e(c.name)}</code></p>",
        f"<p>{e(_counts_line(report.rows))}</p>",
    ]  # fmt: skip
    for section, rows in _sections(report.rows):
        out.append(f"<h2>{e(section or c.name)}</h2>")
        out.append("<table><tr><th>item</th><th>answer</th><th>verdict</th><th>quotes</th><th>mark</th></tr>")
        out += [_html_row(r, report.pages) for r in rows]
        out.append("</table>")
    out += _html_audit(report.marks)
    out += _html_pages(report)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _anchor(where: Located) -> str:
    return f"d{where.doc_id}-p{where.page}"


def _html_row(r: ReviewRow, pages: Mapping[tuple[int, int], PageRecord]) -> str:
    e = html.escape
    quotes = []
    for q in r.quotes:
        cite = e(q.where.citation())
        if q.where.page is not None and (q.where.doc_id, q.where.page) in pages:
            cite = f'<a href="#{_anchor(q.where)}">{cite}</a>'
        quotes.append(f"<blockquote>{e(q.text)}<br><small>{cite}</small></blockquote>")
    value = f"<br><small>{e(value_text(r))}</small>" if value_text(r) else ""
    note = f"<br><small>{e(r.note)}</small>" if r.note else ""
    return (
        f"<tr><td>{e(r.label)}</td><td>{e(r.answer)}{value}</td>"
        f'<td class="{r.verdict}">{VERDICT_TEXT[r.verdict]}</td><td>{"".join(quotes)}</td>'
        f"<td>{MARK_TEXT[r.mark]}{note}</td></tr>"
    )


def _html_audit(marks: Sequence[StoredMark]) -> list[str]:
    if not marks:
        return []
    e = html.escape
    out = ["<h2>Audit trail</h2>", "<table><tr><th>time (UTC)</th><th>item</th><th>mark</th><th>note</th></tr>"]
    out += [
        f"<tr><td>{e(m.at)}</td><td>{e(m.item_id)}</td><td>{MARK_TEXT.get(m.mark, e(m.mark))}</td>"
        f"<td>{e(m.note)}</td></tr>"
        for m in marks
    ]
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
        out.append(f'<h3 id="d{doc_id}-p{page_no}">{html.escape(shown_name(titles[doc_id]))}, p. {page_no}</h3><pre>')
        for n, line in enumerate(page.lines(), start=1):
            text = f'<span class="ln">{n:>4}</span> {html.escape(line)}'
            out.append(f'<span class="hit">{text}</span>' if n in marked else text)
        out.append("</pre>")
    return out


TEXT_WRITERS = {".md": markdown, ".csv": csv_text, ".html": html_text}


# --- DOCX -------------------------------------------------------------------------------------------------------


def docx_bytes(report: Report) -> bytes:
    """A Word document: a heading per checklist section, a table per section (item, answer, verdict, quotes with
    their citations, the reviewer's mark and note), then the audit trail."""
    import docx  # python-docx: its one home

    document = docx.Document()
    c = report.checklist
    document.add_heading(c.title or c.name, level=0)
    document.add_paragraph(f"Knowledge base: {report.kb_name} · checklist {c.name}")
    document.add_paragraph(_counts_line(report.rows))
    for section, rows in _sections(report.rows):
        document.add_heading(section or c.name, level=1)
        table = document.add_table(rows=1, cols=5)
        table.style = "Table Grid"
        titles = ("item", "answer", "verdict", "quotes", "mark / note")
        for cell, title in zip(table.rows[0].cells, titles, strict=True):
            cell.text = title
        for r in rows:
            cells = table.add_row().cells
            cells[0].text = r.label
            cells[1].text = r.answer + (f"\n({value_text(r)})" if value_text(r) else "")
            cells[2].text = VERDICT_TEXT[r.verdict]
            cells[3].text = "\n".join(f"“{q.text}” ({q.where.citation()})" for q in r.quotes)
            cells[4].text = "\n".join(x for x in (MARK_TEXT[r.mark], r.note) if x)
    if report.marks:
        document.add_heading("Audit trail", level=1)
        table = document.add_table(rows=1, cols=4)
        table.style = "Table Grid"
        for cell, title in zip(table.rows[0].cells, ("time (UTC)", "item", "mark", "note"), strict=True):
            cell.text = title
        for m in report.marks:
            cells = table.add_row().cells
            cells[0].text, cells[1].text, cells[2].text, cells[3].text = (
                m.at,
                m.item_id,
                MARK_TEXT.get(m.mark, m.mark),
                m.note,
            )
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()
