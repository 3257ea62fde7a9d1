"""The library: documents with their stage (parsed, embedded, enriched), failed files with their reasons;
add files or a folder (ingested and enriched in the background, with progress), remove with confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, ProgressBar, Static

from pikelocal.domain import AddReport, AddRequest, DocumentStatus, Library
from pikelocal.domain.errors import PikeError
from pikelocal.domain.events import EventSink, Notice, StageAdvanced, StageFinished, StageStarted
from pikelocal.tui.jobs import WorkDone, WorkEvent, WorkFailed
from pikelocal.tui.messages import CancelJob, JobStarted, StartJob
from pikelocal.tui.render import clip, file_name, without_dirs
from pikelocal.tui.screens.dialogs import ConfirmDialog, PathDialog

if TYPE_CHECKING:
    from pikelocal.tui.app import PikeApp

JOB = "library"
DONE, PART, NOT_YET = "✓", "…", "·"


def stage_marks(doc: DocumentStatus) -> tuple[str, str, str]:
    """(parsed, embedded, enriched) for the table: ✓ done, … partly, · not yet; enriched shows n/m chunks."""
    stage = doc.record.stage
    embedded = DONE if stage == "ready" else PART if stage == "embedded" else NOT_YET
    done, failed = doc.atoms.get("done", 0), doc.atoms.get("failed", 0)
    if doc.chunks and done == doc.chunks:
        enriched = DONE
    elif done or failed:
        enriched = f"{done}/{doc.chunks}" + (f" ({failed} failed)" if failed else "")
    else:
        enriched = NOT_YET
    return DONE, embedded, enriched


class LibraryScreen(Screen[None]):
    BINDINGS = [
        Binding("a", "add", "Add files"),
        Binding("d,delete", "remove", "Remove"),
        Binding("e", "enrich", "Enrich"),
        Binding("r", "refresh", "Refresh", show=False),
        Binding("escape", "cancel", "Cancel"),
    ]

    app: PikeApp

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="lib-summary")
        yield DataTable(id="docs", cursor_type="row", zebra_stripes=True)
        yield Label("Failed files", id="failures-label")
        yield DataTable(id="failures", cursor_type="row")
        with Horizontal(id="progress-row"):
            yield Label("Idle.", id="progress-label")
            yield ProgressBar(id="progress", show_eta=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#docs", DataTable).add_columns("#", "document", "pages", "chunks", "parsed", "embedded",
                                                       "enriched")  # fmt: skip
        self.query_one("#failures", DataTable).add_columns("file", "reason", "message")
        self.query_one("#progress", ProgressBar).display = False
        self.action_refresh()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    # --- the tables ----------------------------------------------------------------------------------

    def action_refresh(self) -> None:
        kb = self.app.kb
        try:
            lib = kb.documents() if kb.exists() else Library([], [])
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        docs = self.query_one("#docs", DataTable)
        cursor = docs.cursor_row
        docs.clear()
        name_width = max(12, self.size.width - 52)
        for d in lib.documents:
            parsed, embedded, enriched_mark = stage_marks(d)
            name = clip(d.record.title or file_name(d.record.path), name_width)
            pages = str(d.record.n_pages or "") if d.paged else "—"  # unpaged: a .docx without page breaks, an .xlsx
            docs.add_row(str(d.record.id), name, pages, str(d.chunks), parsed, embedded,
                         enriched_mark, key=str(d.record.id))  # fmt: skip
        if lib.documents:
            docs.move_cursor(row=min(cursor, len(lib.documents) - 1))
        failures = self.query_one("#failures", DataTable)
        failures.clear()
        for f in lib.failures:
            message = clip(without_dirs(f.message, f.path), max(20, self.size.width - 30))
            failures.add_row(file_name(f.path), f.reason, message)
        self.query_one("#failures-label", Label).display = bool(lib.failures)
        failures.display = bool(lib.failures)
        chunks = sum(d.chunks for d in lib.documents)
        enriched = sum(d.enriched for d in lib.documents)
        summary = f"{len(lib.documents)} document(s) · {chunks} chunks · {enriched} enriched"
        if lib.failures:
            summary += f" · {len(lib.failures)} failed file(s)"
        if not (lib.documents or lib.failures):
            summary = "No documents yet: press a to add files or a folder."
        elif layers := self._layers():
            summary += "\nLayers: " + layers
        self.query_one("#lib-summary", Static).update(summary)

    def _layers(self) -> str:
        """The KB's layers beyond documents and chunks (sections, tables, atomic questions, entities, triples,
        citations), those it has; empty when it cannot be read now."""
        try:
            layers = self.app.kb.stats().layers
        except PikeError:
            return ""
        shown = {k: n for k, n in layers.items() if k not in ("documents", "chunks") and n}
        return " · ".join(f"{n:,} {name}" for name, n in shown.items())

    # --- adding, enriching, removing ------------------------------------------------------------------

    def action_add(self) -> None:
        self.app.push_screen(PathDialog("Add a file or a folder (PDF, text, Markdown, .docx, .xlsx):"), self._add)

    def _add(self, path: Path | None) -> None:
        if path is None:
            return
        kb = self.app.kb

        def work(sink: EventSink) -> AddReport:
            return kb.add([path], AddRequest(enrich=True), sink)

        self.post_message(StartJob(JOB, work, self, (f"Adding {path.name}…",)))

    def action_enrich(self) -> None:
        kb = self.app.kb
        if not kb.exists():
            self.notify("Add documents first (a).", severity="warning")
            return
        self.post_message(StartJob(JOB, lambda sink: kb.enrich(sink=sink), self, ("Enriching…",)))

    def on_job_started(self, message: JobStarted) -> None:
        if message.job == JOB:
            self._progress(message.detail[0], None)

    def action_remove(self) -> None:
        docs = self.query_one("#docs", DataTable)
        if not docs.row_count:
            self.notify("There is no document to remove.", severity="warning")
            return
        row = docs.get_row_at(docs.cursor_row)
        doc_id, name = str(row[0]), str(row[1])

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._remove(doc_id, name)

        self.app.push_screen(ConfirmDialog(f"Remove {name} (#{doc_id}) and everything derived from it?"), confirmed)

    def _remove(self, doc_id: str, name: str) -> None:
        try:
            self.app.kb.remove(doc_id)
        except PikeError as exc:
            self.notify(str(exc), severity="error")
        else:
            self.notify(f"Removed {name}.")
        self.action_refresh()

    def action_cancel(self) -> None:
        self.post_message(CancelJob(JOB))

    # --- progress ------------------------------------------------------------------------------------

    def _progress(self, text: str, total: float | None, done: float = 0, *, running: bool = True) -> None:
        self.query_one("#progress-label", Label).update(text)
        bar = self.query_one("#progress", ProgressBar)
        bar.display = running
        bar.update(total=total, progress=done)

    def on_work_event(self, message: WorkEvent) -> None:
        if message.job != JOB:
            return
        event = message.event
        if isinstance(event, StageStarted):
            self._progress(f"{event.stage}: 0/{event.total} {event.unit}", event.total or None)
        elif isinstance(event, StageAdvanced):
            detail = f" {clip(event.detail, 24)}" if event.detail else ""
            self._progress(f"{event.stage}: {event.done}/{event.total}{detail}", event.total or None, event.done)
        elif isinstance(event, StageFinished):
            self.action_refresh()
        elif isinstance(event, Notice):
            severity: SeverityLevel = "information" if event.level == "info" else event.level
            self.notify(without_dirs(event.message, event.path) if event.path else event.message, severity=severity)
            self.action_refresh()

    def on_work_done(self, message: WorkDone) -> None:
        if message.job != JOB:
            return
        self.action_refresh()
        result = message.result
        if isinstance(result, AddReport):
            r = result.ingest
            added = r.count("ingested", "replaced")
            text = f"Added {added} document(s)"
            if r.count("unchanged", "duplicate", "resumed"):
                text += f", {r.count('unchanged', 'duplicate', 'resumed')} already known"
            if r.failed:
                text += f", {len(r.failed)} failed"
            if result.enrich is not None:
                e = result.enrich
                text += f"; {e.atomized} chunk(s) enriched with {e.questions} question(s)"
                if e.failures:
                    text += f", {len(e.failures)} enrichment failure(s)"
            self.notify(text + ".")
            self._progress(text + ".", 1, 1, running=False)
        else:
            self._progress("Done.", 1, 1, running=False)

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job != JOB:
            return
        self.action_refresh()
        self._progress(f"Stopped: {message.error}", None, running=False)
        self.notify(message.error, severity="warning" if message.cancelled else "error")
