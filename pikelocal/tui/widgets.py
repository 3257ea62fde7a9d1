"""Small widgets: the question box with history, the answer view whose markers open sources, a path suggester."""

from __future__ import annotations

import os
from pathlib import Path

from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input, Static


class QuestionInput(Input):
    """An input whose Up / Down walk through earlier questions (the KB's history, then this session's)."""

    BINDINGS = [
        Binding("up", "older", "Older question", show=False),
        Binding("down", "newer", "Newer question", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.history: list[str] = []  # oldest first
        self._at: int | None = None  # index into history while browsing

    def remember(self, question: str) -> None:
        if question and (not self.history or self.history[-1] != question):
            self.history.append(question)
        self._at = None

    def action_older(self) -> None:
        if not self.history:
            return
        self._at = len(self.history) - 1 if self._at is None else max(0, self._at - 1)
        self.value = self.history[self._at]
        self.cursor_position = len(self.value)

    def action_newer(self) -> None:
        if self._at is None:
            return
        if self._at >= len(self.history) - 1:
            self._at, self.value = None, ""
            return
        self._at += 1
        self.value = self.history[self._at]
        self.cursor_position = len(self.value)


class AnswerView(Static, can_focus=True):
    """The answer text. With it focused, the digit keys open that source (as clicking a marker does)."""

    BINDINGS = [Binding(str(n), f"screen.open_source({n})", f"Source {n}", show=False) for n in range(1, 10)]


class PathSuggester(Suggester):
    """Completes a file or folder path from what is on disk (Right accepts the suggestion)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        typed = Path(os.path.expanduser(value))
        folder, stem = (typed, "") if value.endswith(os.sep) else (typed.parent, typed.name)
        try:
            names = sorted(e.name for e in os.scandir(folder) if e.name.startswith(stem) and not e.name.startswith("."))
        except OSError:
            return None
        if not names or names[0] == stem:
            return None
        return value + names[0][len(stem) :]
