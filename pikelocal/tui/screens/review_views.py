"""The Review screen's views (``v`` on F5): rejection risks, requirements and the timeline, each a table of cited
rows found without the model. Each view is found once in the background, as a job the App runs (the pane posts
``StartJob`` and hears back its result, as the screens do), and kept until ``r`` or a change of documents (``d``)
asks for it again; Enter opens the document viewer at the row's page with its lines highlighted. The checklist's
marking keys mark the highlighted row (a, w, c, x; n for a note, in the same dialog), stored in the KB by the row's
stable id, so the mark is there again when the view is found again."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from pikelocal.domain.errors import PikeError
from pikelocal.domain.obligations import ViewName, ViewRow
from pikelocal.tui.jobs import WorkDone, WorkFailed
from pikelocal.tui.messages import JobStarted, StartJob
from pikelocal.tui.render import clip
from pikelocal.tui.screens.dialogs import NoteDialog
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.views_render import (
    COLUMNS,
    clause_source,
    column_widths,
    detail_text,
    head_text,
    ordered,
    row_cells,
    several_documents,
)

if TYPE_CHECKING:
    from pikelocal.tui.app import PikeApp

JOB = "review views"


class ReviewViews(Vertical):
    """The table of one view, its heading and the highlighted row in full."""

    DEFAULT_CSS = """
    ReviewViews { height: 1fr; }
    #views-head { height: 1; padding: 0 1; background: $boost; }
    #views-rows { height: 1fr; }
    #views-detail-box { height: auto; max-height: 35%; border-top: solid $primary 50%; padding: 0 1; }
    """

    app: PikeApp

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002  (textual's name for it)
        super().__init__(id=id)
        self.view: ViewName = "risks"
        self.docs: tuple[str, ...] = ()  # the documents the views read (the screen's d; empty: all)
        self.found: dict[ViewName, list[ViewRow]] = {}  # each view's rows, for self.docs
        self.failed: dict[ViewName, str] = {}  # why a view could not be found (r tries again)
        self._finding: tuple[ViewName, tuple[str, ...]] | None = None  # the view the running job finds, its docs
        self._paths: dict[int, str] = {}  # doc id → path, for the viewer's heading

    def compose(self) -> ComposeResult:
        yield Static("", id="views-head")
        yield DataTable(id="views-rows", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="views-detail-box"):
            yield Static("", id="views-detail")

    # --- which view, found in the background ----------------------------------------------------------

    def show(self, view: ViewName, docs: tuple[str, ...]) -> None:
        """Show ``view`` over ``docs``; found in the background unless it was found already for them."""
        if docs != self.docs:
            self.docs = docs
            self.found.clear()
            self.failed.clear()
        self.view = view
        self._draw()
        self._find_missing()

    def find_again(self) -> None:
        """Find the shown view again (the KB may have changed since)."""
        self.found.pop(self.view, None)
        self.failed.pop(self.view, None)
        self._draw()
        self._find_missing()

    def _find_missing(self) -> None:
        view = self.view
        if view in self.found or view in self.failed or self._finding is not None:
            return  # a running job's end finds the next one
        kb = self.app.kb
        if not kb.exists():
            self.found[view] = []
            self._draw()
            return
        finder = {"risks": kb.risks, "requirements": kb.requirements, "timeline": kb.timeline}[view]
        docs = self.docs
        self._finding = (view, docs)
        self.post_message(StartJob(JOB, lambda _sink: finder(docs), self, (view, *docs)))

    def on_job_started(self, message: JobStarted) -> None:
        if message.job == JOB:
            message.stop()

    def on_work_done(self, message: WorkDone) -> None:
        if message.job != JOB:
            return
        message.stop()
        finding, self._finding = self._finding, None
        if finding is not None and finding[1] == self.docs:
            self.found[finding[0]] = ordered(finding[0], message.result)
        self._draw()
        self._find_missing()

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job != JOB:
            return
        message.stop()
        finding, self._finding = self._finding, None
        if finding is not None and finding[1] == self.docs:
            self.failed[finding[0]] = message.error
        self.notify(message.error, title="Review views", severity="error")
        self._draw()
        self._find_missing()

    # --- drawing -------------------------------------------------------------------------------------

    def _draw(self) -> None:
        table = self.query_one("#views-rows", DataTable)
        cursor = table.cursor_row
        table.clear(columns=True)
        rows = self.found.get(self.view)
        titled = several_documents(rows or ())
        widths = column_widths(self.view, self.app.size.width, titled=titled)
        for (name, _w), width in zip(COLUMNS[self.view], widths, strict=True):
            table.add_column(name, key=name, width=width)
        for n, row in enumerate(rows or ()):
            table.add_row(*row_cells(row, widths, titled), key=str(n))
        if rows:
            table.move_cursor(row=min(max(cursor, 0), len(rows) - 1))
        head = self.query_one("#views-head", Static)
        if self.view in self.failed:
            head.update(Text(f"Stopped: {self.failed[self.view]} (r tries again)", style="red"))
        elif not self.app.kb.exists():
            head.update(Text("No documents yet: add some in the Library (F3)."))
        else:
            head.update(head_text(self.view, rows, self.docs))
        self._detail()

    def _row(self) -> ViewRow | None:
        rows = self.found.get(self.view) or []
        table = self.query_one("#views-rows", DataTable)
        if not rows or not table.row_count:
            return None
        return rows[min(max(table.cursor_row, 0), len(rows) - 1)]

    def _detail(self) -> None:
        row = self._row()
        box = self.query_one("#views-detail-box")
        box.display = row is not None
        if row is not None:
            self.query_one("#views-detail", Static).update(detail_text(row))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_cited()

    # --- marks and notes -----------------------------------------------------------------------------

    def mark(self, mark: str) -> None:
        """Mark the highlighted row (accepted, wrong, to_check; "" clears), its note kept."""
        row = self._marked_row()
        if row is not None:
            self._store_mark(row, mark, row.note)

    def note(self) -> None:
        """A note on the highlighted row, typed in the checklist's note dialog; its mark kept."""
        row = self._marked_row()
        if row is None:
            return

        def noted(note: str | None) -> None:
            if note is not None:
                self._store_mark(row, row.mark, note)

        self.app.push_screen(NoteDialog(f"{row.row_id} “{clip(row.clause.text, 40)}”", row.note), noted)

    def _marked_row(self) -> ViewRow | None:
        row = self._row()
        if row is None:
            self.notify("No row to mark here: the view has none (yet).", severity="warning")
        return row

    def _store_mark(self, row: ViewRow, mark: str, note: str) -> None:
        view = self.view
        try:
            marked = self.app.kb.view_mark(view, row.row_id, mark, note)
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        rows = self.found.get(view)
        if rows is not None:
            self.found[view] = [
                replace(r, mark=marked.mark, note=marked.note, marked_at=marked.marked_at)
                if r.row_id == row.row_id
                else r
                for r in rows
            ]
        self._draw()

    # --- the cited line ------------------------------------------------------------------------------

    def open_cited(self) -> None:
        """Open the viewer at the highlighted row's page, its lines highlighted, the clause the strong mark."""
        row = self._row()
        if row is None:
            return
        where = row.clause.where
        try:
            viewer = DocumentViewer(self.app.kb, clause_source(row.clause, self._path(where.doc_id, where.title)),
                                    row.clause.text)  # fmt: skip
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
