"""Choose a knowledge base file, or name a new one (started without a KB argument)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Label, OptionList
from textual.widgets.option_list import Option

from pikelocal.api import kb_is_encrypted, kb_problem, unlock_kb
from pikelocal.domain.errors import PikeError
from pikelocal.tui.screens.dialogs import KeyDialog
from pikelocal.tui.widgets import PathSuggester

KB_SUFFIXES = (".kb", ".sqlite", ".db")


def kb_candidates(folder: Path) -> list[Path]:
    """Files in ``folder`` that look like knowledge bases, by name."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in KB_SUFFIXES)


class OpenKBScreen(Screen[Path | None]):
    BINDINGS = [Binding("escape", "dismiss(None)", "Quit")]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("Open a knowledge base, or type the name of a new one (it is created when you add files).")
        yield Input(placeholder="path/to/name.kb, Enter opens", suggester=PathSuggester(), id="kb-path")
        yield Label("Knowledge bases here (Enter opens):", classes="hint")
        yield OptionList(*[Option(p.name, id=str(p)) for p in kb_candidates(Path.cwd())], id="kb-list")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "choose a knowledge base"
        self.query_one("#kb-path").focus()

    def _choose(self, path: Path) -> None:
        problem = kb_problem(path)
        if problem and kb_is_encrypted(path):  # no key known for it yet: ask for one
            self.app.push_screen(KeyDialog(path.name), lambda key: self._unlock(path, key))
            return
        if problem:
            self.notify(problem, title="Cannot open", severity="error")
            return
        self.dismiss(path.resolve())

    def _unlock(self, path: Path, key: str | None) -> None:
        if key is None:
            return
        try:
            unlock_kb(path, key)
        except PikeError as exc:
            self.notify(str(exc), title="Cannot open", severity="error")
            return
        self.dismiss(path.resolve())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._choose(Path(event.value.strip()).expanduser())

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self._choose(Path(event.option.id))
