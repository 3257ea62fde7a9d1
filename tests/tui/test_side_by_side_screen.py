"""Documents side by side in the TUI, driven by Textual's Pilot on a real KB of three short bids (hashing encoder, a
scripted model): p on the review screen opens the table, s runs the checklist per document and fills the columns
with the difference marked, Enter on a cell opens the viewer at that bid's quote, e exports, Escape goes back."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.llm.fake import FakeLLM
from pikelocal.tui.app import PikeApp
from pikelocal.tui.screens.review import ReviewScreen
from pikelocal.tui.screens.side_by_side import SideBySideScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support.answer_kb import ENC
from tests.support.side_kb import bids_kb, quote_figure
from tests.support.tui import run, text_of, wait_until


@pytest.fixture
def kb(tmp_path: Path) -> tuple[Path, Path]:
    return bids_kb(tmp_path, Settings())


def make(path: Path, llm: FakeLLM) -> PikeApp:
    return PikeApp(Settings(), api.open_kb(path, Settings(), encoder=ENC, llm=llm))


async def open_side_by_side(pilot: object, checklist: Path) -> SideBySideScreen:
    """F5, the checklist file typed after o, then p."""
    app: PikeApp = pilot.app  # type: ignore[attr-defined]
    await pilot.press("f5")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    await pilot.press("o")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: not isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    app.screen.query_one("#path").value = str(checklist)  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    await pilot.press("p")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, SideBySideScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, SideBySideScreen)
    return screen


def row_of(screen: SideBySideScreen, item_id: str) -> list[str]:
    return [str(c) for c in screen.query_one("#side-rows", DataTable).get_row(item_id)]


def test_a_run_fills_a_column_per_bid_and_marks_the_difference(kb: tuple[Path, Path]) -> None:
    path, checklist = kb
    llm = FakeLLM({"answer-quote": quote_figure})

    async def scenario() -> None:
        app = make(path, llm)
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_side_by_side(pilot, checklist)
            grid = screen.query_one("#side-rows", DataTable)
            assert [str(c.label) for c in grid.columns.values()] == [
                "item", "甲公司投标文件", "乙公司投标文件", "丙公司投标文件", "documents",
            ]  # fmt: skip
            assert row_of(screen, "bond")[1:] == ["…", "…", "…", "–"]  # nothing answered yet
            await pilot.press("s")
            await wait_until(pilot, lambda: not app.job_running("side by side"))
            await pilot.pause(0.1)
            assert row_of(screen, "bond") == ["投标保证金", "350900 元", "350900 元", "350900 CNY", "same"]
            assert row_of(screen, "validity")[1:] == ["90 days", "60 days", "90 days", "DIFFERS"]
            assert row_of(screen, "performance")[1:] == ["50000 元", "– not stated", "– not stated", "–"]
            assert "3 documents · 1 differ · 2 same" in text_of(app, "#side-head")
            assert "12 asked, 0 kept" in str(screen.query_one("#side-progress").render())

    run(scenario())
    assert len(llm.calls) > 0  # the items no reader answers


def test_enter_on_a_cell_opens_the_viewer_at_that_bid_s_quote(kb: tuple[Path, Path]) -> None:
    path, checklist = kb
    with api.open_kb(path, Settings(), encoder=ENC, llm=FakeLLM({"answer-quote": quote_figure})) as knowledge_base:
        knowledge_base.side_by_side(api.SideBySideRequest(str(checklist)))

    async def scenario() -> None:
        app = make(path, FakeLLM({}))  # the stored rows: no model is asked
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_side_by_side(pilot, checklist)
            grid = screen.query_one("#side-rows", DataTable)
            grid.cursor_coordinate = Coordinate(1, 2)  # the validity, bid 乙
            await pilot.pause()
            detail = text_of(app, "#side-detail")
            assert (
                "投标有效期 · 乙公司投标文件" in detail and "乙公司投标文件, p. 1, line 9: 投标有效期为60日" in detail
            )
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            shown = screen_text(app)
            assert "bid_b.md · page 1 of 1" in shown
            assert any("投标有效期为60日" in line for line in shown.splitlines() if "▌" in line)
            await pilot.press("escape")
            assert app.screen is screen
            grid.cursor_coordinate = Coordinate(3, 3)  # the performance bond, bid 丙: not stated, nothing to open
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is screen
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))

    run(scenario())


def test_e_exports_the_table(kb: tuple[Path, Path], tmp_path: Path) -> None:
    from openpyxl import load_workbook

    path, checklist = kb
    with api.open_kb(path, Settings(), encoder=ENC, llm=FakeLLM({"answer-quote": quote_figure})) as knowledge_base:
        knowledge_base.side_by_side(api.SideBySideRequest(str(checklist)))
    out = tmp_path / "side.xlsx"

    async def scenario() -> None:
        app = make(path, FakeLLM({}))
        async with app.run_test(size=(120, 30)) as pilot:
            screen = await open_side_by_side(pilot, checklist)
            await pilot.press("e")
            await wait_until(pilot, lambda: app.screen is not screen)
            app.screen.query_one("#path").value = str(out)  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_until(pilot, out.exists)

    run(scenario())
    sheet = load_workbook(out)["side by side"]
    validity = next(r for r in sheet.iter_rows(min_row=2, values_only=True) if r[1] == "validity")
    assert validity[4] == "DIFFERS"
