"""The review screen's drawing: a checklist row's cells (the value, the verdict with conflicts marked,
the reviewer's mark and note), the highlighted row in full with each quote's citation, the counts above the table,
and a quote as a source the viewer opens."""

from __future__ import annotations

from rich.text import Text

from pikelocal.api import printable
from pikelocal.domain.answers import Source
from pikelocal.domain.obligations import ViewRow
from pikelocal.domain.review import Checklist, ChecklistItem, ReviewQuote, ReviewReport, ReviewRow
from pikelocal.tui.render import clip

COLUMNS = ("section", "item", "answer", "verdict", "mark")
VERDICT_TEXT = {
    "found": ("✓ found", "green"),
    "not_stated": ("– not stated", "dim"),
    "conflicting": ("⚠ conflict", "bold red"),
    "to_check": ("? to check", "yellow"),  # the answer stands in a sentence not clearly about the item: `a` accepts
}
PENDING = ("…", "dim")  # an item not answered yet
MARK_TEXT = {
    "accepted": ("✓ accepted", "green"),
    "wrong": ("✗ wrong", "bold red"),
    "to_check": ("? to check", "yellow"),
}


def verdict_cell(row: ReviewRow | None) -> Text:
    """The verdict as the table shows it; a conflict counts its quotes (``⚠ conflict 2``)."""
    if row is None:
        return Text(*PENDING)
    text, style = VERDICT_TEXT.get(row.verdict, (row.verdict, ""))
    if row.verdict == "conflicting":
        text += f" {len(row.quotes)}"
    return Text(text, style=style)


def answer_cell(row: ReviewRow | None, width: int) -> Text:
    """The value in its normal form (the values side by side with ≠ when the documents disagree), else the answer."""
    if row is None:
        return Text("")
    if row.verdict == "conflicting" and len(row.values) > 1:
        return Text(clip(printable(" ≠ ".join(dict.fromkeys(v.normal for v in row.values))), width), style="red")
    if row.values:
        return Text(clip(printable(row.values[0].normal), width))
    if row.verdict == "not_stated":
        return Text("—", style="dim")
    return Text(clip(printable(row.answer), width))


def mark_cell(row: ReviewRow | ViewRow | None, width: int) -> Text:
    """The reviewer's mark and, after it, the note (``✗ wrong · 8万 in the rules``), on a checklist's row or a
    view's."""
    if row is None:
        return Text("")
    text, style = MARK_TEXT.get(row.mark, ("", ""))
    out = Text(text, style=style)
    if row.note:
        out.append((" · " if text else "✎ ") + clip(printable(row.note), max(4, width - len(text) - 3)), style="italic")
    return out


def detail_text(row: ReviewRow | None, label: str) -> Text:
    """The highlighted row in full: question, answer, each quote with its citation (the digit opens it), the mark."""
    if row is None:
        return Text(f"{label}: not answered yet.", style="dim")
    out = Text()
    out.append(printable(row.question) + "\n", style="bold")
    out.append(printable(row.answer or "(no answer)"))
    if row.values:
        out.append("  [" + ", ".join(printable(v.normal) for v in row.values) + "]", style="dim")
    for n, quote in enumerate(row.quotes, start=1):
        out.append(f"\n{n} ", style="bold")
        out.append(printable(quote.where.citation()), style="cyan")
        if quote.value is not None and row.verdict == "conflicting":
            out.append(f" ({printable(quote.value.normal)})", style="red")
        out.append(": " + clip(printable(quote.text), 300))
    if row.mark or row.note:
        out.append("\n")
        out.append_text(mark_text(row))
    return out


def mark_text(row: ReviewRow | ViewRow) -> Text:
    """``✓ accepted at 2026-01-02 10:00 · the note``: a row's mark in full, for the row's detail."""
    out = Text()
    out.append(MARK_TEXT.get(row.mark, ("no mark", ""))[0], style=MARK_TEXT.get(row.mark, ("", "dim"))[1])
    if row.marked_at:
        out.append(f" at {row.marked_at.replace('T', ' ')[:16]}", style="dim")
    if row.note:
        out.append(" · " + printable(row.note), style="italic")
    return out


def column_widths(screen_width: int) -> dict[str, int]:
    """Each column's width in cells: section and verdict fixed, the rest shared by item, answer and mark."""
    rest = max(40, screen_width - 4 - 10 - 12 - 13)  # less the cells' padding, the section and the verdict
    widths = {"section": 12, "item": rest * 3 // 10, "answer": rest * 7 // 20, "verdict": 13}
    widths["mark"] = rest - widths["item"] - widths["answer"]
    return widths


def row_cells(item: ChecklistItem, row: ReviewRow | None, widths: dict[str, int]) -> tuple[Text, ...]:
    """One table row: section, item, answer, verdict, mark (``row`` None: the item is not answered yet)."""
    return (
        Text(clip(printable(item.section), widths["section"]), style="dim"),
        Text(clip(printable(item.label), widths["item"])),
        answer_cell(row, widths["answer"]),
        verdict_cell(row),
        mark_cell(row, widths["mark"]),
    )


def head_text(checklist: Checklist | None, rows: list[ReviewRow]) -> str:
    """``Tender (tender-en) · 12/40 answered · 2 conflicting · 1 to check · 5 not stated · 3 marked``; empty without
    a checklist."""
    if checklist is None:
        return ""
    counts = [f"{len(rows)}/{len(checklist.items)} answered"]
    for verdict, name in (("conflicting", "conflicting"), ("to_check", "to check"), ("not_stated", "not stated")):
        if n := sum(r.verdict == verdict for r in rows):
            counts.append(f"{n} {name}")
    if n := sum(bool(r.mark) for r in rows):
        counts.append(f"{n} marked")
    return f"{printable(checklist.title or checklist.name)} ({printable(checklist.name)}) · " + " · ".join(counts)


def report_text(report: ReviewReport) -> str:
    """What a finished run did: ``tender-en: 3 item(s) asked, 37 kept, 1 conflicting (42 s).``"""
    text = f"{printable(report.checklist.name)}: {report.asked} item(s) asked, {report.kept} kept"
    if conflicts := sum(r.verdict == "conflicting" for r in report.rows):
        text += f", {conflicts} conflicting"
    return text + f" ({report.seconds:.0f} s)."


def quote_source(quote: ReviewQuote, number: int, path: str) -> Source:
    """Quote ``number`` of a row as the source the document viewer opens: its page, its lines highlighted."""
    where = quote.where
    return Source(
        number=number, doc_id=where.doc_id, path=path, title=where.title, chunk_ids=(), page_start=where.page,
        page_end=where.page, line_start=where.line_start, line_end=where.line_end, section=(), text=quote.text,
    )  # fmt: skip
