"""The review screen (F5): a checklist run over the KB in the background, its rows filling in as items are answered,
conflicts between documents marked; Enter opens the viewer at a row's quote; the reviewer marks rows accepted,
wrong or to-check and adds notes, stored in the KB with their time. ``v`` turns to the views found without the
model (rejection risks, requirements, the timeline: ``screens/review_views.py``) and back; there the same keys mark
the view's rows.

The run is a job like ingestion: it goes on while the user asks questions on the ask screen, one run at a time, and
Escape (here) or Ctrl+C (anywhere) stops it after the item being asked; finished items are kept, so starting again
continues with the rest.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Footer, Header, Input, Label, ProgressBar, Select, Static

from pikelocal.api import builtin_checklists, printable
from pikelocal.domain.errors import PikeError
from pikelocal.domain.events import Notice, StageAdvanced, StageFinished, StageStarted
from pikelocal.domain.obligations import VIEW_NAMES, ViewName
from pikelocal.domain.review import Checklist, ChecklistScript, ReviewReport, ReviewRequest, ReviewRow
from pikelocal.tui.jobs import WorkDone, WorkEvent, WorkFailed
from pikelocal.tui.messages import CancelJob, JobStarted, StartJob
from pikelocal.tui.render import clip
from pikelocal.tui.review_render import (
    COLUMNS,
    column_widths,
    detail_text,
    head_text,
    quote_source,
    report_text,
    row_cells,
)
from pikelocal.tui.screens.dialogs import ConfirmDialog, NoteDialog, PathDialog
from pikelocal.tui.screens.review_views import ReviewViews
from pikelocal.tui.screens.viewer import DocumentViewer

if TYPE_CHECKING:
    from pikelocal.tui.app import PikeApp

JOB = "review"


class ScopeDialog(ModalScreen[tuple[str, ...] | None]):
    """Which documents a run reviews: ids, file names or paths, separated by commas (empty: every document)."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, docs: tuple[str, ...]) -> None:
        super().__init__()
        self.docs = docs

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Review only these documents (ids, file names or paths, comma-separated):")
            yield Input(", ".join(self.docs), placeholder="empty: every document", id="scope")
            yield Label("Enter keeps it · Esc cancels · the Library (F3) lists the documents", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(tuple(d.strip() for d in event.value.split(",") if d.strip()))


# The questions' script, in the order t cycles through it (None: the documents' own).
SCRIPTS: tuple[ChecklistScript | None, ...] = (None, "hans", "hant", "en")
# What the screen shows, in the order v cycles through it: the checklist's rows, then each view.
SHOWN: tuple[ViewName | None, ...] = (None, *VIEW_NAMES)


class ReviewScreen(Screen[None]):
    DEFAULT_CSS = """
    #review-bar { height: 1; margin: 0 1; }
    #checklist { width: 1fr; }
    #checklist-hint { width: auto; }
    #review-head { height: 1; padding: 0 1; background: $boost; }
    #review-rows { height: 1fr; }
    #review-detail-box { height: auto; max-height: 35%; border-top: solid $primary 50%; padding: 0 1; }
    #review-progress-row { height: 1; padding: 0 1; }
    #review-progress-label { width: 1fr; }
    #review-progress { width: 30; }
    """

    BINDINGS = [
        Binding("s", "start", "Start"),
        Binding("a", "mark('accepted')", "Accept"),
        Binding("w", "mark('wrong')", "Wrong"),
        Binding("c", "mark('to_check')", "To check"),
        Binding("x", "mark('')", "Clear mark", show=False),
        Binding("n", "note", "Note"),
        Binding("v", "next_view", "View"),
        Binding("o", "open_file", "Checklist file", show=False),
        Binding("d", "scope", "Documents", show=False),
        Binding("t", "script", "Script", show=False),
        Binding("f", "start_fresh", "Ask again", show=False),
        Binding("r", "refresh", "Refresh", show=False),
        Binding("p", "side_by_side", "Per document", show=False),
        Binding("escape", "cancel", "Cancel"),
        *(Binding(str(n), f"open_quote({n})", f"Quote {n}", show=False) for n in range(1, 10)),
    ]

    app: PikeApp

    def __init__(self) -> None:
        super().__init__()
        self.ref = ""  # the checklist shown: a built-in name or a TOML file's path
        self.running_ref = ""  # the checklist the running job answers
        self._working = False  # the review job is running (JobStarted until it is done or failed)
        self.checklist: Checklist | None = None
        self.rows: dict[str, ReviewRow] = {}  # answered items by id
        self._paths: dict[int, str] = {}  # doc id → path, for the viewer's heading
        self.files: list[str] = []  # the users' checklist files picked with o, offered after the built-ins
        self.docs: tuple[str, ...] = ()  # the documents a run reviews (d; empty: all)
        self.script: ChecklistScript | None = None  # the questions' script (t; None: the documents' own)
        self.view: ViewName | None = None  # the view shown (v), None: the checklist's rows

    def compose(self) -> ComposeResult:
        names = builtin_checklists()
        yield Header()
        with Horizontal(id="review-bar"):
            yield Select([(n, n) for n in names], value=names[0], allow_blank=False, id="checklist", compact=True)
            yield Label(Text("  o: a checklist file of your own", style="dim"), id="checklist-hint")
        yield Static("", id="review-head")
        yield DataTable(id="review-rows", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="review-detail-box"):
            yield Static("", id="review-detail")
        yield ReviewViews(id="review-views")
        with Horizontal(id="review-progress-row"):
            yield Label(self._idle_text(), id="review-progress-label")
            yield ProgressBar(id="review-progress", show_eta=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#review-progress", ProgressBar).display = False
        self.query_one(ReviewViews).display = False
        self.ref = self._first_with_rows()
        select = self.query_one("#checklist", Select)
        if select.value != self.ref:
            select.value = self.ref
        self._load()
        self.query_one("#review-rows", DataTable).focus()

    def on_screen_resume(self) -> None:
        self._load()

    def _first_with_rows(self) -> str:
        """The first built-in checklist this KB has answers for, else the first one."""
        names = builtin_checklists()
        if self.app.kb.exists():
            for name in names:
                try:
                    if self.app.kb.review_rows(name)[1]:
                        return name
                except PikeError:
                    break
        return names[0]

    # --- the rows ------------------------------------------------------------------------------------

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "checklist" and isinstance(event.value, str) and event.value != self.ref:
            self.ref = event.value
            self._load()

    def action_refresh(self) -> None:
        if self.view is not None:
            self.query_one(ReviewViews).find_again()
            return
        self._load()

    def action_next_view(self) -> None:
        """The next of: the checklist's rows, rejection risks, requirements, the timeline."""
        self.view = SHOWN[(SHOWN.index(self.view) + 1) % len(SHOWN)]
        views = self.query_one(ReviewViews)
        on_checklist = self.view is None
        for widget in ("#review-head", "#review-rows", "#review-detail-box"):
            self.query_one(widget).display = on_checklist
        views.display = not on_checklist
        if self.view is None:
            self._detail()
            self.query_one("#review-rows", DataTable).focus()
            return
        views.show(self.view, self.docs)
        views.query_one(DataTable).focus()

    def _load(self) -> None:
        """Read the checklist's stored rows (no model) and redraw the table, keeping the cursor where it was."""
        if not self.ref:
            return
        kb = self.app.kb
        try:
            if kb.exists():
                self.checklist, answered = kb.review_rows(self.ref)
            else:
                self.checklist, answered = None, []
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.rows = {r.item_id: r for r in answered}
        self._draw()

    def _draw(self) -> None:
        table = self.query_one("#review-rows", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        widths = column_widths(self.size.width)
        for name in COLUMNS:
            table.add_column(name, key=name, width=widths[name])
        items = self.checklist.items if self.checklist else ()
        for item in items:
            table.add_row(*row_cells(item, self.rows.get(item.id), widths), key=item.id)
        if items:
            table.move_cursor(row=min(max(cursor, 0), len(items) - 1))
        self._head()
        self._detail()

    def _head(self) -> None:
        text = head_text(self.checklist, list(self.rows.values()))
        self.query_one("#review-head", Static).update(Text(text or "No documents yet: add some in the Library (F3)."))

    def _detail(self) -> None:
        item = self._item()
        detail = self.query_one("#review-detail", Static)
        box = self.query_one("#review-detail-box")
        box.display = item is not None and self.view is None
        if item is not None:
            detail.update(detail_text(self.rows.get(item[0]), item[1]))

    def _item(self) -> tuple[str, str] | None:
        """(id, label) of the item under the cursor."""
        table = self.query_one("#review-rows", DataTable)
        if self.checklist is None or not table.row_count:
            return None
        item = self.checklist.items[min(table.cursor_row, len(self.checklist.items) - 1)]
        return item.id, item.label

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_quote(1)

    # --- running the checklist ------------------------------------------------------------------------

    def action_start(self) -> None:
        self._start(fresh=False)

    def action_start_fresh(self) -> None:
        def confirmed(yes: bool | None) -> None:
            if yes:
                self._start(fresh=True)

        self.app.push_screen(ConfirmDialog(f"Ask every item of {self.ref} again (stored answers are replaced)?"),
                             confirmed)  # fmt: skip

    def _start(self, *, fresh: bool) -> None:
        kb = self.app.kb
        if not kb.exists():
            self.notify("This knowledge base holds no documents yet: add some in the Library (F3).", severity="error")
            return
        request = ReviewRequest(self.ref, docs=self.docs, script=self.script, fresh=fresh)
        self.post_message(StartJob(JOB, lambda sink: kb.review(request, sink), self, (self.ref,)))

    def on_job_started(self, message: JobStarted) -> None:
        if message.job != JOB:
            return
        self._working = True
        self.running_ref = message.detail[0]
        self._progress(f"Starting {self.running_ref}… (the model loads on first use; Esc cancels)", None)

    def action_cancel(self) -> None:
        self.post_message(CancelJob(JOB))

    def _idle_text(self) -> str:
        docs = ", ".join(self.docs) if self.docs else "every document"
        return f"Idle. s starts the checklist (finished items are kept) · d: {docs} · t: {self.script or 'auto'} script"

    def action_scope(self) -> None:
        def chosen(docs: tuple[str, ...] | None) -> None:
            if docs is not None and not self._working:
                self.docs = docs
                self._progress(self._idle_text(), None, running=False)
                if self.view is not None:
                    self.query_one(ReviewViews).show(self.view, docs)

        self.app.push_screen(ScopeDialog(self.docs), chosen)

    def action_script(self) -> None:
        """The next script for the questions: auto (the documents' own), hans, hant, en."""
        if self._working:
            return
        self.script = SCRIPTS[(SCRIPTS.index(self.script) + 1) % len(SCRIPTS)]
        self._progress(self._idle_text(), None, running=False)

    def _progress(self, text: str, total: float | None, done: float = 0, *, running: bool = True) -> None:
        self.query_one("#review-progress-label", Label).update(Text(text))
        bar = self.query_one("#review-progress", ProgressBar)
        bar.display = running
        bar.update(total=total, progress=done)

    def on_work_event(self, message: WorkEvent) -> None:
        if message.job != JOB:
            return
        event = message.event
        name = self.running_ref
        if isinstance(event, StageStarted):
            if event.total:
                self._progress(f"{name}: 0/{event.total} {event.unit} (Esc cancels)", event.total)
            else:
                self._progress(f"{name}: every item is answered already", 1, 1)
        elif isinstance(event, StageAdvanced):
            label = f" · {clip(printable(event.detail), 24)}" if event.detail else ""
            self._progress(f"{name}: {event.done}/{event.total}{label} (Esc cancels)", event.total, event.done)
            if self.ref == name:
                self._load()
        elif isinstance(event, StageFinished) and self.ref == name:
            self._load()
        elif isinstance(event, Notice):
            self.notify(printable(event.message), title="Review", severity="warning" if event.level != "info" else
                        "information")  # fmt: skip

    def on_work_done(self, message: WorkDone) -> None:
        if message.job != JOB:
            return
        self._working = False
        if self.ref == self.running_ref:
            self._load()
        result = message.result
        text = report_text(result) if isinstance(result, ReviewReport) else "Done."
        self._progress(text, 1, 1, running=False)
        self.notify(text, title="Review")

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job != JOB:
            return
        self._working = False
        if self.ref == self.running_ref:
            self._load()
        self._progress(f"Stopped: {message.error}", None, running=False)
        self.notify(message.error, title="Review", severity="warning" if message.cancelled else "error")

    def action_side_by_side(self) -> None:
        """The checklist answered once per document, side by side (``tui/screens/side_by_side.py``)."""
        from pikelocal.tui.screens.side_by_side import SideBySideScreen

        self.app.push_screen(SideBySideScreen(self.ref, self.docs, self.script))

    # --- a user's checklist --------------------------------------------------------------------------

    def action_open_file(self) -> None:
        self.app.push_screen(PathDialog("A checklist file (.toml):"), self._use_file)

    def _use_file(self, path: Path | None) -> None:
        if path is None:
            return
        ref = str(path)
        try:  # read it now, so a bad file is said at once (the message names its line)
            self.checklist, answered = self.app.kb.review_rows(ref)
        except PikeError as exc:
            self.notify(str(exc), title="Checklist", severity="error")
            return
        if ref not in self.files:
            self.files.append(ref)
        select = self.query_one("#checklist", Select)
        select.set_options([(n, n) for n in [*builtin_checklists(), *self.files]])
        self.ref = ref
        select.value = ref
        self.rows = {r.item_id: r for r in answered}
        self._draw()

    # --- marks, notes, quotes ------------------------------------------------------------------------

    def _answered(self) -> ReviewRow | None:
        item = self._item()
        if item is None:
            return None
        row = self.rows.get(item[0])
        if row is None:
            self.notify(f"{item[1]} is not answered yet: press s to run the checklist.", severity="warning")
        return row

    def action_mark(self, mark: str) -> None:
        """Mark the row under the cursor: the checklist's, or in a view (``v``) the view's."""
        if self.view is not None:
            self.query_one(ReviewViews).mark(mark)
            return
        row = self._answered()
        if row is not None:
            self._store_mark(row, mark, row.note)

    def action_note(self) -> None:
        if self.view is not None:
            self.query_one(ReviewViews).note()
            return
        row = self._answered()
        if row is None:
            return

        def noted(note: str | None) -> None:
            if note is not None:
                self._store_mark(row, row.mark, note)

        self.app.push_screen(NoteDialog(row.label, row.note), noted)

    def _store_mark(self, row: ReviewRow, mark: str, note: str) -> None:
        try:
            self.rows[row.item_id] = self.app.kb.review_mark(self.ref, row.item_id, mark, note)
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        self._draw()

    def action_open_quote(self, number: int) -> None:
        """Open the viewer at quote ``number`` of the row under the cursor: its page, its lines highlighted (in a
        view: the row's one cited clause)."""
        if self.view is not None:
            self.query_one(ReviewViews).open_cited()
            return
        row = self._answered()
        if row is None:
            return
        if not 1 <= number <= len(row.quotes):
            self.notify(f"{row.label} has no quote {number}" if row.quotes else f"{row.label} has no quote.",
                        severity="warning")  # fmt: skip
            return
        quote = row.quotes[number - 1]
        source = quote_source(quote, number, self._path(quote.where.doc_id, quote.where.title))
        try:
            viewer = DocumentViewer(self.app.kb, source, quote.text)
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.app.push_screen(viewer)

    def _path(self, doc_id: int, title: str) -> str:
        """The document's file path (the viewer's heading names the file); its title when it cannot be read."""
        if doc_id not in self._paths:
            with suppress(PikeError):
                self._paths = {d.record.id: d.record.path for d in self.app.kb.documents().documents}
        return self._paths.get(doc_id, title)
