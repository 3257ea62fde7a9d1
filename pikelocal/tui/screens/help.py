"""The help screen: what each key does, and what the screens show."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: tuple[tuple[str, str, str], ...] = (
    ("F1", "anywhere", "this help (Esc closes it)"),
    ("F2 F3 F4 F5", "anywhere", "Ask / Library / History / Review"),
    ("Ctrl+C", "anywhere", "cancel all running work"),
    ("Ctrl+Q", "anywhere", "quit"),
    ("Enter", "question", "ask; ↑ ↓ walk through earlier questions"),
    ("Tab", "ask", "next field: question, mode, rounds, answer, sources"),
    ("Ctrl+O", "ask", "next answer mode: naive, hier, decompose"),
    ("1 … 9", "answer", "open source [n] (or click the marker)"),
    ("Ctrl+S", "ask", "go to the sources; Enter opens the one highlighted"),
    ("Ctrl+R", "ask", "show or hide the reasoning"),
    ("Esc", "ask, library", "cancel the running answer or ingestion"),
    ("← → p n", "viewer", "previous / next page; c: the cited page; t: tables as Markdown; Esc back"),
    ("a d e r", "library", "add files or a folder / remove / enrich / refresh"),
    ("Enter", "history", "reopen the question with its answer and trace"),
    ("s f", "review", "run the checklist in the background, answered items kept / ask every item again"),
    ("o", "review", "a checklist file (.toml) of your own; the list above the rows picks a built-in one"),
    ("d t", "review", "the documents a run reviews (ids or file names; empty: all) / the questions' script"),
    ("Enter 1 … 9", "review", "open the row's quote in the viewer (its n-th quote: a conflict has two)"),
    ("a w c x", "review", "mark the row (a checklist's or a view's) accepted / wrong / to check / clear the mark"),
    ("n", "review", "the row's note"),
    ("v", "review", "the view: checklist rows, rejection risks, requirements, timeline (no model; d limits them too)"),
    ("Enter", "review views", "open the cited page in the viewer, the row's lines highlighted; r finds the view again"),
    ("p", "review", "documents side by side: the checklist per document (s runs it, Enter a cell's quote, e exports)"),
    ("Esc", "review", "cancel the running checklist (answered items are kept)"),
)

NOTES = """
Modes: naive answers from the question's own search results; hier adds the chunks reached through their
atomic questions; decompose (PIKE-RAG) asks sub-questions round by round, lets the model pick the most
useful atomic question each round, and answers from what it gathered.

Cancelling stops at the next step (a file, a chunk, a token). Finished work and model calls are kept, so
adding the same files again continues where it stopped.

Review runs a checklist (tender-zh, contract-en, … or your own file) while you keep asking questions; each row
shows the item's value, ⚠ where the documents disagree, and your mark and note, kept in the KB for the export.
v shows what a reviewer reads first, found without the model: every clause that rejects a bid (by stage), every
sentence that binds someone (who, kind, figures), every deadline (dated ones sorted, ROC and Gregorian).
"""


def help_table() -> Table:
    table = Table(title="pikelocal keys", box=None, padding=(0, 1), title_style="bold", expand=True)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("where", style="dim", no_wrap=True)
    table.add_column("does", ratio=1)
    for row in KEYS:
        table.add_row(*(Text(cell) for cell in row))
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(help_table())
            yield Static(Text(NOTES.strip(), style="dim"), id="help-notes")
