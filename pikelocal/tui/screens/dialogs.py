"""Small modal dialogs: ask for a path, a KB's key, confirm a removal, pick a citation to follow, a note on a
reviewed row."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList
from textual.widgets.option_list import Option

from pikelocal.api import StoredRef, printable
from pikelocal.tui.widgets import PathSuggester


class PathDialog(ModalScreen[Path | None]):
    """Type a file or folder path (Right accepts the completion); Enter confirms, Esc cancels."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, prompt: str, *, must_exist: bool = True) -> None:
        super().__init__()
        self.prompt, self.must_exist = prompt, must_exist

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.prompt)
            yield Input(placeholder="/path/to/file-or-folder", suggester=PathSuggester(), id="path")
            yield Label("Enter confirms · → completes · Esc cancels", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        raw = event.value.strip()
        if not raw:
            self.notify("Type a path first.", severity="warning")
            return
        path = Path(raw).expanduser()
        if self.must_exist and not path.exists():
            self.notify(f"{path}: no such file or folder", severity="error")
            return
        self.dismiss(path)


class KeyDialog(ModalScreen[str | None]):
    """Type the key of an encrypted KB (hidden); Enter confirms, Esc cancels."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, name: str) -> None:
        super().__init__()
        self.kb_name = name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"{self.kb_name} is encrypted: its key")
            yield Input(password=True, id="key")
            yield Label("Enter opens · Esc cancels", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not event.value:
            self.notify("Type the key first.", severity="warning")
            return
        self.dismiss(event.value)


class ConfirmDialog(ModalScreen[bool]):
    """A yes / no question; y or Enter on Yes confirms, n or Esc declines."""

    BINDINGS = [Binding("escape,n", "dismiss(False)", "No"), Binding("y", "dismiss(True)", "Yes")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question)
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", variant="error", id="yes")
                yield Button("No (n)", variant="primary", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class RefsDialog(ModalScreen[StoredRef | None]):
    """The citations of laws on a page; Enter opens the cited article, Escape closes."""

    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(self, refs: Sequence[StoredRef]) -> None:
        super().__init__()
        self.refs = list(refs)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Citations on this page (Enter: open the cited article; Escape: close)")
            yield OptionList(
                *(
                    Option(printable(f"{r.text} → {r.destination()}"), id=str(i), disabled=not r.resolved)
                    for i, r in enumerate(self.refs)
                ),
                id="refs",
            )

    def on_mount(self) -> None:
        options = self.query_one("#refs", OptionList)
        first = next((i for i, r in enumerate(self.refs) if r.resolved), None)
        if first is not None:
            options.highlighted = first
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.refs[int(event.option.id or 0)])

    def action_close(self) -> None:
        self.dismiss(None)


class NoteDialog(ModalScreen[str | None]):
    """Type a note on a row (empty: no note); Enter keeps it, Esc cancels."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, label: str, note: str) -> None:
        super().__init__()
        self.label, self.note = label, note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text(f"A note on {printable(self.label)}:"))
            yield Input(self.note, placeholder="what you checked, what is wrong…", id="note")
            yield Label("Enter keeps it (empty: no note) · Esc cancels", classes="hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())
