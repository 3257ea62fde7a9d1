"""Documents side by side (from the review screen, p): the checklist answered once per document, a row per item and
a column per document, items whose values differ marked; Enter on a cell opens the viewer at that document's quote.

The table is read from the rows stored per document (no model) when the screen opens; s runs the checklist on every
document still missing an answer as a background job (one at a time; Escape stops it after the item being asked,
finished items are kept); e writes the table to a file (.md, .csv, .xlsx or .docx).
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, Static

from pikelocal.api import AGREEMENT_NAMES, printable
from pikelocal.domain.errors import PikeError
from pikelocal.domain.events import Notice, StageAdvanced, StageFinished
from pikelocal.domain.review import ChecklistScript, ReviewRow
from pikelocal.domain.side_by_side import SideBySide, SideBySideRequest, SideBySideRow
from pikelocal.tui.jobs import WorkDone, WorkEvent, WorkFailed
from pikelocal.tui.messages import CancelJob, JobStarted, StartJob
from pikelocal.tui.render import clip
from pikelocal.tui.review_render import VERDICT_TEXT, quote_source
from pikelocal.tui.screens.dialogs import PathDialog
from pikelocal.tui.screens.viewer import DocumentViewer

if TYPE_CHECKING:
    from pikelocal.tui.app import PikeApp

JOB = "side by side"
ITEM_WIDTH = 18
AGREEMENT_WIDTH = 9
AGREEMENT_STYLE = {"same": "green", "differs": "bold red", "": "dim"}


def cell_text(cell: ReviewRow | None, width: int) -> Text:
    """A document's cell: the found value (a figure in its normal form), else its state."""
    if cell is None:
        return Text("…", style="dim")  # not answered on this document yet
    if cell.verdict == "found":
        value = cell.values[0].normal if cell.values else cell.answer
        return Text(clip(printable(value), width))
    text, style = VERDICT_TEXT.get(cell.verdict, (cell.verdict, ""))
    return Text(clip(text, width), style=style)


def agreement_text(row: SideBySideRow) -> Text:
    return Text(AGREEMENT_NAMES[row.agreement] or "–", style=AGREEMENT_STYLE[row.agreement])


def detail_text(row: SideBySideRow, heading: str, cell: ReviewRow | None) -> Text:
    """The highlighted cell in full: the item, the document, the answer and state, each quote with its citation."""
    out = Text()
    out.append(f"{printable(row.label)} · {printable(heading)}\n", style="bold")
    if cell is None:
        out.append("not answered on this document yet: s runs the checklist", style="dim")
        return out
    state, style = VERDICT_TEXT.get(cell.verdict, (cell.verdict, ""))
    out.append(state, style=style)
    out.append("  " + printable(cell.answer or "(no answer)"))
    if cell.values:
        out.append("  [" + ", ".join(printable(v.normal) for v in cell.values) + "]", style="dim")
    for n, quote in enumerate(cell.quotes, start=1):
        out.append(f"\n{n} ", style="bold")
        out.append(printable(quote.where.citation()), style="cyan")
        out.append(": " + clip(printable(quote.text), 300))
    return out


class SideBySideScreen(Screen[None]):
    DEFAULT_CSS = """
    #side-head { height: 1; padding: 0 1; background: $boost; }
    #side-rows { height: 1fr; }
    #side-detail-box { height: auto; max-height: 35%; border-top: solid $primary 50%; padding: 0 1; }
    #side-progress { height: 1; padding: 0 1; }
    """

    BINDINGS = [
        Binding("s", "start", "Run per document"),
        Binding("e", "export", "Export"),
        Binding("r", "refresh", "Refresh", show=False),
        Binding("escape", "back", "Back / cancel"),
    ]

    app: PikeApp

    def __init__(self, checklist: str, docs: tuple[str, ...] = (), script: ChecklistScript | None = None) -> None:
        super().__init__()
        self.request = SideBySideRequest(checklist, docs, script)
        self.table: SideBySide | None = None
        self._working = False
        self._paths: dict[int, str] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="side-head")
        yield DataTable(id="side-rows", cursor_type="cell", zebra_stripes=True)
        with VerticalScroll(id="side-detail-box"):
            yield Static("", id="side-detail")
        yield Label(Text("s runs the checklist on each document (finished items are kept) · e exports"),
                    id="side-progress")  # fmt: skip
        yield Footer()

    def on_mount(self) -> None:
        self._load()
        self.query_one("#side-rows", DataTable).focus()

    def action_refresh(self) -> None:
        self._load()

    def _load(self) -> None:
        """The table from the rows stored per document (no model), the cursor kept where it was."""
        try:
            self.table = self.app.kb.side_by_side_table(self.request) if self.app.kb.exists() else None
        except PikeError as exc:
            self.notify(str(exc), title="Side by side", severity="error")
            self.table = None
        self._draw()

    def _draw(self) -> None:
        grid = self.query_one("#side-rows", DataTable)
        cursor = grid.cursor_coordinate
        grid.clear(columns=True)
        head = self.query_one("#side-head", Static)
        if self.table is None:
            head.update(Text("No documents to compare: add some in the Library (F3)."))
            self._detail()
            return
        n = len(self.table.documents)
        width = max(10, (self.size.width - ITEM_WIDTH - AGREEMENT_WIDTH - 2 * (n + 2) - 2) // max(n, 1))
        grid.add_column("item", key="item", width=ITEM_WIDTH)
        for d in self.table.documents:
            grid.add_column(clip(printable(d.heading), width), key=f"doc-{d.doc_id}", width=width)
        grid.add_column("documents", key="agreement", width=AGREEMENT_WIDTH)
        for row in self.table.rows:
            grid.add_row(
                Text(clip(printable(row.label), ITEM_WIDTH)), *(cell_text(c, width) for c in row.cells),
                agreement_text(row), key=row.item_id,
            )  # fmt: skip
        if self.table.rows:
            grid.cursor_coordinate = grid.validate_cursor_coordinate(cursor)
        differ = sum(r.agreement == "differs" for r in self.table.rows)
        same = sum(r.agreement == "same" for r in self.table.rows)
        c = self.table.checklist
        head.update(Text(f"{printable(c.title or c.name)} ({printable(c.name)}) · {n} documents · {differ} differ"
                         f" · {same} same"))  # fmt: skip
        self._detail()

    def _at_cursor(self) -> tuple[SideBySideRow, int | None] | None:
        """The row under the cursor and the index of the document column it is on (None: the item or agreement)."""
        if self.table is None or not self.table.rows:
            return None
        grid = self.query_one("#side-rows", DataTable)
        coordinate = grid.cursor_coordinate
        row = self.table.rows[min(coordinate.row, len(self.table.rows) - 1)]
        column = coordinate.column - 1
        return row, column if 0 <= column < len(self.table.documents) else None

    def _detail(self) -> None:
        box = self.query_one("#side-detail-box")
        here = self._at_cursor()
        row, column = here if here is not None else (None, None)
        box.display = row is not None and column is not None and self.table is not None
        if row is None or column is None or self.table is None:
            return
        heading = self.table.documents[column].heading
        self.query_one("#side-detail", Static).update(detail_text(row, heading, row.cells[column]))

    def on_data_table_cell_highlighted(self, _event: DataTable.CellHighlighted) -> None:
        self._detail()

    def on_data_table_cell_selected(self, _event: DataTable.CellSelected) -> None:
        self.open_quote()

    def open_quote(self) -> None:
        """Open the viewer at the first quote of the cell under the cursor: its page, its lines highlighted."""
        here = self._at_cursor()
        if here is None or self.table is None:
            return
        row, column = here
        if column is None:
            self.notify("Move to a document's column: Enter opens its quote.", severity="warning")
            return
        cell = row.cells[column]
        if cell is None or not cell.quotes:
            self.notify(f"{row.label} has no quote in this document.", severity="warning")
            return
        quote = cell.quotes[0]
        source = quote_source(quote, 1, self._path(quote.where.doc_id, quote.where.title))
        try:
            viewer = DocumentViewer(self.app.kb, source, quote.text)
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.app.push_screen(viewer)

    def _path(self, doc_id: int, title: str) -> str:
        if doc_id not in self._paths and self.table is not None:
            self._paths = {d.doc_id: d.path for d in self.table.documents if d.path}
        if doc_id not in self._paths:
            with suppress(PikeError):
                self._paths = {d.record.id: d.record.path for d in self.app.kb.documents().documents}
        return self._paths.get(doc_id, title)

    # --- running the checklist per document ----------------------------------------------------------

    def action_start(self) -> None:
        kb = self.app.kb
        if not kb.exists():
            self.notify("This knowledge base holds no documents yet: add some in the Library (F3).", severity="error")
            return
        request = self.request
        self.post_message(StartJob(JOB, lambda sink: kb.side_by_side(request, sink), self))

    def on_job_started(self, message: JobStarted) -> None:
        if message.job == JOB:
            self._working = True
            self._status("Starting… (the model loads on first use; Esc cancels)")

    def action_back(self) -> None:
        if self._working:
            self.post_message(CancelJob(JOB))
        else:
            self.app.pop_screen()

    def _status(self, text: str) -> None:
        self.query_one("#side-progress", Label).update(Text(text))

    def on_work_event(self, message: WorkEvent) -> None:
        if message.job != JOB:
            return
        event = message.event
        if isinstance(event, Notice):
            self._status(printable(event.message) + " (Esc cancels)")
        elif isinstance(event, StageAdvanced):
            label = f" · {clip(printable(event.detail), 24)}" if event.detail else ""
            self._status(f"{event.done}/{event.total}{label} (Esc cancels)")
            self._load()
        elif isinstance(event, StageFinished):
            self._load()

    def on_work_done(self, message: WorkDone) -> None:
        if message.job != JOB:
            return
        self._working = False
        result = message.result
        if isinstance(result, SideBySide):
            self.table = result
            self._draw()
            self._status(f"{result.asked} asked, {result.kept} kept ({result.seconds:.0f} s).")

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job != JOB:
            return
        self._working = False
        self._load()
        self._status(f"Stopped: {message.error}")
        self.notify(message.error, title="Side by side", severity="warning" if message.cancelled else "error")

    # --- export --------------------------------------------------------------------------------------

    def action_export(self) -> None:
        if self.table is None:
            return
        self.app.push_screen(PathDialog("Write the table to (.md, .csv, .xlsx, .docx):", must_exist=False),
                             self._export)  # fmt: skip

    def _export(self, path: Path | None) -> None:
        if path is None or self.table is None:
            return
        try:
            written = self.app.kb.export_side_by_side(self.table, path)
        except PikeError as exc:
            self.notify(str(exc), title="Export", severity="error")
            return
        self.notify(printable(f"Wrote {written}"), title="Export")
