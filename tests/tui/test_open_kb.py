"""Started without a KB: the chooser lists knowledge bases in the current folder, opens one, refuses bad paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.store import keys
from pikelocal.tui.app import PikeApp
from pikelocal.tui.screens.dialogs import KeyDialog
from pikelocal.tui.screens.open_kb import OpenKBScreen
from tests.support.answer_kb import build
from tests.support.tui import run, wait_until


def test_the_chooser_lists_kbs_here_and_opens_the_chosen_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kb = build(tmp_path)  # tmp_path/kb.sqlite
    (tmp_path / "notes.txt").write_text("not a KB", encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    async def scenario() -> None:
        app = PikeApp(Settings())
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, OpenKBScreen))
            listed = app.screen.query_one("#kb-list")
            assert [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)] == ["kb.sqlite"]
            box = app.screen.query_one("#kb-path")
            box.value = str(tmp_path)  # a folder is refused with the reason
            await pilot.press("enter")
            assert isinstance(app.screen, OpenKBScreen)
            assert any("is a folder" in n.message for n in app._notifications)
            box.value = str(tmp_path / "notes.txt")  # so is a file that is not a KB
            await pilot.press("enter")
            assert any("not a SQLite file" in n.message for n in app._notifications)
            listed.focus()
            listed.highlighted = 0
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.current_mode == "ask")
            assert app.kb.path == kb.resolve() and app.sub_title == "kb.sqlite"

    run(scenario())


def test_a_new_name_opens_an_empty_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    async def scenario() -> None:
        app = PikeApp(Settings())
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, OpenKBScreen))
            app.screen.query_one("#kb-path").value = "fresh.kb"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.current_mode == "library")
            summary = str(app.screen.query_one("#lib-summary").render())
            assert summary.startswith("No documents yet")

    run(scenario())
    assert not (tmp_path / "fresh.kb").exists()  # created only when files are added


def test_an_encrypted_kb_asks_for_its_key_and_a_wrong_one_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = build(tmp_path)
    api.open_kb(kb, Settings()).encrypt("right key")
    keys.forget(kb)  # as in a fresh process: nothing knows the key
    monkeypatch.delenv("PIKELOCAL_KEY", raising=False)
    monkeypatch.chdir(tmp_path)

    async def scenario() -> None:
        app = PikeApp(Settings())
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, OpenKBScreen))
            app.screen.query_one("#kb-path").value = str(kb)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, KeyDialog))
            app.screen.query_one("#key").value = "wrong key"
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, OpenKBScreen))
            assert any("wrong or missing key" in n.message for n in app._notifications)
            await pilot.press("enter")  # the path is still there: asked again
            await wait_until(pilot, lambda: isinstance(app.screen, KeyDialog))
            app.screen.query_one("#key").value = "right key"
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.current_mode == "ask")
            assert app.kb.path == kb.resolve() and len(app.kb.documents().documents) > 0

    try:
        run(scenario())
    finally:
        keys.forget(kb)
