"""Snapshots of the main screens at 80×24, Chinese text included (``pytest --snapshot-update`` accepts changes).

Timings vary from run to run, so the answer is shown again with fixed ones before the picture is taken.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot

from pikelocal.config import Settings
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.store.store import Store
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.library import LibraryScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from tests.support.answer_kb import ENC, OPTIONS, build
from tests.support.tui import ZH_QUESTION, ask, make_app, wait_until

SIZE = (80, 24)
# answer.k = 1 with neighbours: decompose reads one search hit first and the rounds add the rest, so the reasoning
# has picks to show (segments of the whole ranking would read most of this small KB at once)
# (decompose chosen in the settings, not by cycling the mode: each Ctrl+O leaves a toast on the picture)
SETTINGS = replace(Settings(), answer=replace(Settings().answer, k=1, context="neighbours", mode="decompose"))


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """The answering corpus plus one corrupt PDF, so the library has a failure to show."""
    path = build(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        Ingestor(store, ENC, OPTIONS).ingest_paths([bad])
    return path


async def answered_in_chinese(pilot: Pilot[None]) -> None:
    app = pilot.app
    await ask(pilot, ZH_QUESTION, mode="decompose")
    await wait_until(pilot, lambda: isinstance(app.screen, AskScreen) and app.screen.trace is not None)
    screen = app.screen
    assert isinstance(screen, AskScreen) and screen.trace is not None
    screen.show_trace(replace(screen.trace, first_token_s=4.2, total_s=9.8))
    screen.query_one("#answer").focus()
    await pilot.pause()


def test_ask_screen_with_a_cited_chinese_answer(kb: Path, snap_compare: object) -> None:
    assert snap_compare(make_app(kb, settings=SETTINGS), terminal_size=SIZE, run_before=answered_in_chinese)  # type: ignore[operator]


def test_ask_screen_with_the_reasoning_open(kb: Path, snap_compare: object) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await answered_in_chinese(pilot)
        await pilot.press("ctrl+r")
        await pilot.pause()

    assert snap_compare(make_app(kb, settings=SETTINGS), terminal_size=SIZE, run_before=run_before)  # type: ignore[operator]


def test_document_viewer_on_the_cited_chinese_page(kb: Path, snap_compare: object) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await answered_in_chinese(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, AskScreen) and screen.trace is not None
        await pilot.press(str(screen.trace.answer.cited[0]))
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, DocumentViewer))

    assert snap_compare(make_app(kb, settings=SETTINGS), terminal_size=SIZE, run_before=run_before)  # type: ignore[operator]


def test_library_with_a_failed_file(kb: Path, snap_compare: object) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press("f3")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, LibraryScreen))

    assert snap_compare(make_app(kb, settings=SETTINGS), terminal_size=SIZE, run_before=run_before)  # type: ignore[operator]


def test_help_screen(kb: Path, snap_compare: object) -> None:
    assert snap_compare(make_app(kb, settings=SETTINGS), terminal_size=SIZE, press=["f1"])  # type: ignore[operator]
