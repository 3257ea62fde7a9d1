"""The review views' drawing (rejection risks, requirements, the timeline): each view's columns and a row's cells
(the reviewer's mark and note last, drawn as on a checklist's row), the highlighted row in full with its citation,
id and mark, what an empty view says, and a row's clause as the source the document viewer opens at its page and
lines."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.text import Text

from pikelocal.api import printable
from pikelocal.domain.answers import Source
from pikelocal.domain.obligations import (
    PARTY_NAMES,
    RISK_STAGES,
    STAGE_NAMES,
    Clause,
    Requirement,
    Risk,
    TimelineEntry,
    ViewName,
    ViewRow,
)
from pikelocal.domain.shown import shown_name
from pikelocal.tui.render import clip
from pikelocal.tui.review_render import mark_cell, mark_text


@dataclass(frozen=True)
class ViewText:
    """How a view is named in its heading (``title``), and what it says when it finds nothing (``empty``)."""

    title: str
    empty: str


VIEW_TEXT: dict[ViewName, ViewText] = {
    "risks": ViewText("Rejection risks", "No clause that rejects a bid, voids it or zeroes a score was found"),
    "requirements": ViewText("Requirements", "No sentence that binds someone was found"),
    "timeline": ViewText("Timeline", "No dated or relative deadline was found"),
}
# Each view's columns: (heading, width in cells; 0: the clause's, which takes what the others leave; -1: the
# citation's, wider when the rows come from several documents and it names the document too). The reviewer's mark
# (and note) is last, as on the checklist's rows.
MARK_WIDTH = 14  # "✓ accepted · n…"
COLUMNS: dict[ViewName, tuple[tuple[str, int], ...]] = {
    "risks": (("stage", 20), ("clause", 0), ("cited", -1), ("mark", MARK_WIDTH)),
    "requirements": (("who", 14), ("kind", 11), ("clause", 0), ("figures", 14), ("cited", -1), ("mark", MARK_WIDTH)),
    "timeline": (("date", 10), ("ROC date", 17), ("what", 16), ("clause", 0), ("cited", -1), ("mark", MARK_WIDTH)),
}
MIN_CLAUSE = 20
CITED_WIDTH = 16  # "p. 102, l. 23–24"
TITLE_WIDTH = 10  # the document's title before it, when the rows come from several documents


def column_widths(view: ViewName, screen_width: int, *, titled: bool = False) -> list[int]:
    """Each column's width: the fixed ones as declared, the citation's (wider when ``titled``), the clause's the
    rest (less each cell's padding and the scroll bar)."""
    cited = CITED_WIDTH + (TITLE_WIDTH + 2 if titled else 0)
    widths = [cited if w < 0 else w for _h, w in COLUMNS[view]]
    clause = max(MIN_CLAUSE, screen_width - 4 - sum(widths) - 2 * len(widths))
    return [w or clause for w in widths]


def several_documents(rows: Sequence[ViewRow]) -> bool:
    """Whether the rows come from more than one document (their citations then name it)."""
    return len({r.clause.where.doc_id for r in rows}) > 1


def ordered(view: ViewName, rows: Sequence[ViewRow]) -> list[ViewRow]:
    """The rows as the view lists them: risks by stage in the order a bid meets them (each stage in document
    order), the others as found (requirements in document order, the timeline by date then relative)."""
    if view == "risks":
        return sorted(rows, key=lambda r: RISK_STAGES.index(r.stage) if isinstance(r, Risk) else 0)
    return list(rows)


def cited_cell(clause: Clause, titled: bool) -> str:
    """``p. 2, l. 3–4`` (``rfp, p. 2, l. 3–4`` when ``titled``): where the clause stands, short enough for a column;
    the row's detail below the table gives the whole citation."""
    w = clause.where
    parts = [clip(printable(shown_name(w.title)), TITLE_WIDTH)] if titled else []
    if w.page is not None:
        parts.append(f"p. {w.page}")
    if w.line_start is not None:
        parts.append(f"l. {w.line_start}" + ("" if w.line_end in (None, w.line_start) else f"–{w.line_end}"))
    return ", ".join(parts)


def _risk(r: Risk, widths: Sequence[int], titled: bool) -> tuple[Text, ...]:
    return (
        Text(clip(STAGE_NAMES[r.stage], widths[0]), style="bold red"),
        Text(clip(printable(r.clause.text), widths[1])),
        Text(cited_cell(r.clause, titled), style="cyan"),
        mark_cell(r, widths[3]),
    )


def _requirement(r: Requirement, widths: Sequence[int], titled: bool) -> tuple[Text, ...]:
    figures = "; ".join(dict.fromkeys(v.normal for v in r.figures))
    return (
        Text(clip(PARTY_NAMES[r.party] or "—", widths[0]), style="" if r.party else "dim"),
        Text(clip(r.kind, widths[1]), style="red" if r.kind == "prohibition" else ""),
        Text(clip(printable(r.clause.text), widths[2])),
        Text(clip(printable(figures), widths[3])),
        Text(cited_cell(r.clause, titled), style="cyan"),
        mark_cell(r, widths[5]),
    )


def _entry(e: TimelineEntry, widths: Sequence[int], titled: bool) -> tuple[Text, ...]:
    return (
        Text(e.date or "relative", style="bold" if e.date else "dim"),
        Text(clip(printable(e.roc or ("" if e.date else e.value)), widths[1])),
        Text(clip(printable(e.what), widths[2])),
        Text(clip(printable(e.clause.text), widths[3])),
        Text(cited_cell(e.clause, titled), style="cyan"),
        mark_cell(e, widths[5]),
    )


_CELLS: dict[type, Callable[..., tuple[Text, ...]]] = {Risk: _risk, Requirement: _requirement, TimelineEntry: _entry}


def row_cells(row: ViewRow, widths: Sequence[int], titled: bool = False) -> tuple[Text, ...]:
    """One table row of its view, in :data:`COLUMNS`' order (``titled``: its citation names the document)."""
    return _CELLS[type(row)](row, widths, titled)


def detail_text(row: ViewRow) -> Text:
    """The highlighted row in full: what it is (stage and triggers, who and kind with the binding word and figures,
    the date in both calendars), the clause, its citation, and how to open it; its id, and its mark and note."""
    out = Text()
    if isinstance(row, Risk):
        out.append(f"{STAGE_NAMES[row.stage]}", style="bold red")
        out.append(f" · {', '.join(row.triggers)}", style="dim")
    elif isinstance(row, Requirement):
        out.append(f"{PARTY_NAMES[row.party] or 'no party named'} · {row.kind}", style="bold")
        out.append(f" · “{printable(row.modal)}”", style="dim")
        if row.figures:
            out.append(" · " + "; ".join(printable(v.normal) for v in row.figures))
    else:
        when = f"{row.date} · {row.roc}" if row.date and row.roc else row.date or f"relative: {row.value}"
        out.append(printable(when), style="bold")
        out.append(f" · {printable(row.what)}")
    out.append("\n" + printable(row.clause.text))
    out.append("\n" + printable(row.clause.where.citation()), style="cyan")
    out.append("  (Enter opens it in the viewer)", style="dim")
    out.append(f"\n{row.row_id}  ", style="dim")
    if row.mark or row.note:
        out.append_text(mark_text(row))
    else:
        out.append("a, w, c mark it; n adds a note", style="dim")
    return out


def head_text(view: ViewName, rows: Sequence[ViewRow] | None, docs: Sequence[str]) -> Text:
    """``Rejection risks · 12 rows · all documents · Enter opens the cited line · v: next view``; while the rows are
    being found, says so; an empty view says what was not found, and where it was looked for."""
    title = VIEW_TEXT[view].title
    if rows is None:
        scope = ", ".join(docs) if docs else "all documents"
        return Text(f"{title} · finding them in {printable(scope)}, without the model…", style="italic")
    if not rows:
        scope = ", ".join(docs) if docs else "any document"
        return Text(f"{title} · {VIEW_TEXT[view].empty} in {printable(scope)}. v: next view", style="yellow")
    scope = ", ".join(docs) if docs else "all documents"
    return Text(f"{title} · {len(rows)} rows · {printable(scope)} · Enter opens the cited line · v: next view")


def clause_source(clause: Clause, path: str) -> Source:
    """A row's clause as the source the document viewer opens: its page, its lines highlighted."""
    where = clause.where
    return Source(
        number=1, doc_id=where.doc_id, path=path, title=where.title, chunk_ids=(), page_start=where.page,
        page_end=where.page, line_start=where.line_start, line_end=where.line_end, section=(), text=clause.text,
    )  # fmt: skip
