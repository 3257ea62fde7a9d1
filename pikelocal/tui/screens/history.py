"""Past questions (the KB's stored traces); Enter reopens one with its answer, sources and reasoning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from pikelocal.domain.errors import PikeError
from pikelocal.tui.messages import ShowTrace
from pikelocal.tui.render import clip

if TYPE_CHECKING:
    from pikelocal.tui.app import PikeApp


class HistoryScreen(Screen[None]):
    BINDINGS = [Binding("r", "refresh", "Refresh")]

    app: PikeApp

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Past questions, newest first. Enter reopens one.", id="history-head")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#history", DataTable).add_columns("#", "asked (UTC)", "mode", "question")

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        table = self.query_one("#history", DataTable)
        table.clear()
        try:
            rows = self.app.kb.history(200) if self.app.kb.exists() else []
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        width = max(20, self.size.width - 36)
        for t in rows:
            asked = t.created_at.replace("T", " ")[:16]
            table.add_row(str(t.id), asked, t.mode, clip(t.question, width), key=str(t.id))
        self.query_one("#history-head", Static).update(
            f"{len(rows)} past question(s), newest first. Enter reopens one." if rows else "No questions asked yet."
        )
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(ShowTrace(int(event.row_key.value)))
