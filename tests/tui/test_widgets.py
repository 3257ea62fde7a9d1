"""The small TUI widgets: path completion from disk and the question box's history."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from pikelocal.tui.widgets import PathSuggester, QuestionInput


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "alpha.pdf").write_text("a")
    (tmp_path / "alpine.txt").write_text("b")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "readme.md").write_text("c")
    (tmp_path / ".secret").write_text("d")
    return tmp_path


def suggest(value: str) -> str | None:
    return asyncio.run(PathSuggester().get_suggestion(value))


def test_path_suggester_ignores_an_empty_value() -> None:
    assert suggest("") is None


def test_path_suggester_completes_to_the_first_match(folder: Path) -> None:
    assert suggest(f"{folder}{os.sep}al") == f"{folder}{os.sep}alpha.pdf"
    assert suggest(f"{folder}{os.sep}alpi") == f"{folder}{os.sep}alpine.txt"
    assert suggest(f"{folder}{os.sep}do") == f"{folder}{os.sep}docs"


def test_path_suggester_has_nothing_to_add_to_a_full_name(folder: Path) -> None:
    assert suggest(f"{folder}{os.sep}alpha.pdf") is None


def test_path_suggester_in_a_missing_folder(folder: Path) -> None:
    assert suggest(f"{folder}{os.sep}nowhere{os.sep}al") is None
    assert suggest(f"{folder}{os.sep}nowhere{os.sep}") is None


def test_path_suggester_with_no_match(folder: Path) -> None:
    assert suggest(f"{folder}{os.sep}zz") is None


def test_path_suggester_after_a_separator_lists_the_folder(folder: Path) -> None:
    assert suggest(f"{folder}{os.sep}") == f"{folder}{os.sep}alpha.pdf"  # .secret sorts first but is hidden
    assert suggest(f"{folder}{os.sep}docs{os.sep}") == f"{folder}{os.sep}docs{os.sep}readme.md"


def test_path_suggester_never_suggests_hidden_files(folder: Path) -> None:
    assert suggest(f"{folder}{os.sep}.") is None
    assert suggest(f"{folder}{os.sep}.sec") is None


class QuestionApp(App[None]):
    def compose(self) -> ComposeResult:
        yield QuestionInput(id="question")


def test_question_input_walks_the_history_with_up_and_down() -> None:
    async def scenario() -> list[str]:
        app = QuestionApp()
        seen: list[str] = []
        async with app.run_test() as pilot:
            box = app.query_one(QuestionInput)
            box.history = ["q1", "q2"]
            box.focus()
            await pilot.pause()
            for key in ("up", "up", "up", "down", "down"):
                await pilot.press(key)
                seen.append(box.value)
        return seen

    assert asyncio.run(scenario()) == ["q2", "q1", "q1", "q2", ""]


def test_question_input_up_without_history_keeps_the_value() -> None:
    async def scenario() -> str:
        app = QuestionApp()
        async with app.run_test() as pilot:
            box = app.query_one(QuestionInput)
            box.focus()
            await pilot.press("h", "i", "up", "down")
            return box.value

    assert asyncio.run(scenario()) == "hi"


def test_question_input_remember_appends_without_repeating_the_last() -> None:
    box = QuestionInput()
    box.history = ["q1", "q2"]
    box.remember("q3")
    box.remember("q3")
    box.remember("")
    assert box.history == ["q1", "q2", "q3"]
    box.remember("q1")  # only an immediate repeat is skipped
    assert box.history == ["q1", "q2", "q3", "q1"]


def test_question_input_remember_ends_browsing() -> None:
    async def scenario() -> list[str]:
        app = QuestionApp()
        seen: list[str] = []
        async with app.run_test() as pilot:
            box = app.query_one(QuestionInput)
            box.history = ["q1", "q2"]
            box.focus()
            await pilot.press("up", "up")
            seen.append(box.value)
            box.remember("q3")
            await pilot.press("up")  # starts again from the newest
            seen.append(box.value)
        return seen

    assert asyncio.run(scenario()) == ["q1", "q3"]
