"""The review screen (F5) driven by Textual's Pilot on a real KB (fake encoder, a scripted quote-then-answer model):
a run fills the rows in with the conflict marked, marks and notes are stored in the KB, Enter opens the viewer at
the quote's page and lines, and Escape cancels a run that keeps going while the user is on the ask screen."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.tui.app import PikeApp
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.review import NoteDialog, ReviewScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support.answer_kb import ENC
from tests.support.search_corpus import make_pdf
from tests.support.tui import make_app, run, text_of, wait_until

RFP_PAGES = (
    (
        "Request for proposals: supply of water pumps.",
        "Bids are opened in public at the town hall.",
        "The warranty period is 12 months from delivery.",
    ),
    (
        "Bid security",
        "Each bidder shall give a bank guarantee.",
        "The bid bond is USD 50,000 for every bid.",
        "Late bids are returned unopened.",
    ),
)
RULES = "# Evaluation rules\n\n## Security\n\nThe bid bond is USD 80,000 for every bid.\n"
CHECKLIST = """name = "mini-en"
title = "Mini tender"

[[items]]
id = "bond"
label = "Bid bond"
section = "Amounts"
kind = "amount"
question.en = "What is the bid bond?"
hints = ["bid bond"]

[[items]]
id = "warranty"
label = "Warranty period"
section = "Terms"
kind = "duration"
question.en = "How long is the warranty period?"
hints = ["warranty"]

[[items]]
id = "performance"
label = "Performance bond"
section = "Amounts"
kind = "amount"
question.en = "What is the performance bond?"
hints = ["performance bond"]
"""
# What the scripted model quotes for each question: the first source line holding the term, and the answer.
ANSWERS = {"bid bond?": ("The bid bond is", "USD 50,000"), "warranty period?": ("warranty period is", "12 months")}
_NUMBER = re.compile(r"^\[\d+\]\s*")


def reviewer(before: Callable[[], None] | None = None) -> FakeLLM:
    def quote_first(messages: Sequence[Message], _params: GenParams) -> str:
        if before is not None:
            before()
        prompt = messages[-1].content
        for asked, (term, answer) in ANSWERS.items():
            if asked in prompt:
                line = next((ln for ln in prompt.splitlines() if term in ln), None)
                if line is not None:
                    return f"Quote: {_NUMBER.sub('', line).strip()}\nAnswer: {answer}"
        return "Quote: none\nAnswer: The documents do not say."

    return FakeLLM({"answer-quote": quote_first})


@pytest.fixture
def kb(tmp_path: Path) -> tuple[Path, Path]:
    """A two-page RFP (the bid bond on page 2) and evaluation rules that give another bid bond; the checklist."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rfp.pdf").write_bytes(make_pdf(RFP_PAGES))
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    path = tmp_path / "kb.sqlite"
    with api.open_kb(path, Settings(), encoder=ENC) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    checklist = tmp_path / "mini.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    return path, checklist


@pytest.fixture
def reviewed(kb: tuple[Path, Path]) -> tuple[Path, Path]:
    """The KB with the checklist already answered (the rows stored)."""
    with api.open_kb(kb[0], Settings(), encoder=ENC, llm=reviewer()) as knowledge_base:
        knowledge_base.review(api.ReviewRequest(str(kb[1])))
    return kb


async def open_review(pilot: object, checklist: Path) -> ReviewScreen:
    """F5, then o and the checklist file's path typed in."""
    app: PikeApp = pilot.app  # type: ignore[attr-defined]
    await pilot.press("f5")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    await pilot.press("o")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: not isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    app.screen.query_one("#path").value = str(checklist)  # type: ignore[attr-defined]
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, ReviewScreen) and screen.ref == str(checklist)
    return screen


def cells(screen: ReviewScreen, item_id: str) -> list[str]:
    table = screen.query_one("#review-rows", DataTable)
    return [str(c) for c in table.get_row(item_id)]


def test_a_run_fills_the_rows_in_with_the_conflict_marked(kb: tuple[Path, Path]) -> None:
    path, checklist = kb

    async def scenario() -> None:
        app = make_app(path, reviewer())
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_review(pilot, checklist)
            assert screen.query_one("#review-rows", DataTable).row_count == 3
            assert cells(screen, "bond")[3] == "…"  # listed, not answered yet
            await pilot.press("s")
            await wait_until(pilot, lambda: not app.job_running("review") and len(screen.rows) == 3)
            bond, warranty, performance = (cells(screen, i) for i in ("bond", "warranty", "performance"))
            assert bond[:4] == ["Amounts", "Bid bond", "50000 USD ≠ 80000 USD", "⚠ conflict 2"]
            assert warranty[2:4] == ["12 months", "✓ found"]
            assert performance[2:4] == ["—", "– not stated"]
            assert "3/3 answered · 1 conflicting · 1 not stated" in text_of(app, "#review-head")
            assert "3 item(s) asked, 0 kept, 1 conflicting" in text_of(app, "#review-progress-label")
            detail = text_of(app, "#review-detail")  # the cursor is on the bond: both quotes with their citations
            assert "1 rfp, p. 2, line 3 (50000 USD): The bid bond is USD 50,000" in detail
            assert "2 Evaluation rules, p. 1, line 5 (80000 USD): The bid bond is USD 80,000" in detail
            assert "⚠ conflict 2" in screen_text(app)

    run(scenario())


def test_marks_and_notes_are_shown_in_the_row_and_stored_in_the_kb(reviewed: tuple[Path, Path]) -> None:
    path, checklist = reviewed

    async def scenario() -> None:
        app = make_app(path, reviewer())
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_review(pilot, checklist)
            assert len(screen.rows) == 3  # the stored rows, read without a model
            await pilot.press("w")  # the bond (first row): wrong
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, NoteDialog))
            app.screen.query_one("#note").value = "the rules say 80,000"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.screen is screen)
            assert cells(screen, "bond")[4].startswith("✗ wrong · the rules")
            assert "✗ wrong at " in text_of(app, "#review-detail")
            assert text_of(app, "#review-detail").endswith(" · the rules say 80,000")
            await pilot.press("down", "a", "down", "c")
            assert cells(screen, "warranty")[4] == "✓ accepted"
            assert cells(screen, "performance")[4] == "? to check"
            await pilot.press("x")
            assert cells(screen, "performance")[4] == ""
            assert "2 marked" in text_of(app, "#review-head")

    run(scenario())
    with api.open_kb(path, Settings(), encoder=ENC) as knowledge_base:
        rows = {r.item_id: r for r in knowledge_base.review_rows(str(checklist))[1]}
    assert (rows["bond"].mark, rows["bond"].note) == ("wrong", "the rules say 80,000") and rows["bond"].marked_at
    assert rows["warranty"].mark == "accepted" and rows["performance"].mark == ""


def test_enter_opens_the_viewer_at_the_quoted_page_and_a_digit_at_the_other_quote(reviewed: tuple[Path, Path]) -> None:
    path, checklist = reviewed

    async def scenario() -> None:
        app = make_app(path, reviewer())
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_review(pilot, checklist)
            await pilot.press("enter")  # the bond: its first quote is on the RFP's page 2, line 3
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            viewer = app.screen
            assert isinstance(viewer, DocumentViewer) and viewer.page_no == 2
            shown = screen_text(app)
            assert "rfp.pdf · page 2 of 2 · [1] lines 3–3, cited sentence on line 3" in shown
            assert any("The bid bond is USD 50,000" in line for line in shown.splitlines() if "▌" in line)
            await pilot.press("escape")
            assert app.screen is screen
            await pilot.press("2")  # the conflicting quote, in the evaluation rules
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            assert "rules.md" in screen_text(app) and app.screen.page_no == 1  # type: ignore[attr-defined]
            await pilot.press("escape", "down", "down", "enter")  # not stated: nothing to open
            assert app.screen is screen

    run(scenario())


def test_a_run_goes_on_behind_the_ask_screen_and_escape_cancels_it_keeping_what_was_answered(
    kb: tuple[Path, Path],
) -> None:
    path, checklist = kb
    started, release = threading.Event(), threading.Event()

    def slow() -> None:
        started.set()
        release.wait(10)

    async def scenario() -> None:
        app = make_app(path, reviewer(slow))
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_review(pilot, checklist)
            await pilot.press("s")
            await wait_until(pilot, started.is_set)
            await pilot.press("s")  # one run at a time
            await pilot.press("f2")
            await wait_until(pilot, lambda: isinstance(app.screen, AskScreen))
            assert app.job_running("review")
            await pilot.press("f5")
            await wait_until(pilot, lambda: app.screen is screen)
            await pilot.press("escape")
            release.set()
            await wait_until(pilot, lambda: not app.job_running("review"))
            await pilot.pause(0.1)
            assert text_of(app, "#review-progress-label").startswith("Stopped: cancelled")
            assert list(screen.rows) == ["bond"]  # the item being asked finished and was kept
            assert "1/3 answered" in text_of(app, "#review-head")

    run(scenario())


def test_review_screen_snapshot(
    reviewed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, snap_compare: object
) -> None:
    """The stored rows at 80×24, the cursor on the conflict (no mark: its time would change the picture)."""
    path, checklist = reviewed
    monkeypatch.chdir(checklist.parent)  # the checklist typed as mini.toml: no temporary folder in the picture

    async def run_before(pilot: Pilot[None]) -> None:
        await open_review(pilot, Path(checklist.name))

    assert snap_compare(make_app(path, reviewer()), terminal_size=(80, 24), run_before=run_before)  # type: ignore[operator]


def test_d_limits_the_run_to_chosen_documents_and_t_picks_the_questions_script(kb: tuple[Path, Path]) -> None:
    path, checklist = kb

    async def scenario() -> None:
        app = make_app(path, reviewer())
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_review(pilot, checklist)
            await pilot.press("d")
            await wait_until(pilot, lambda: not isinstance(app.screen, ReviewScreen))
            app.screen.query_one("#scope").value = "rfp.pdf"
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
            assert screen.docs == ("rfp.pdf",)
            for _ in range(3):
                await pilot.press("t")
            assert screen.script == "en"
            assert "d: rfp.pdf · t: en script" in text_of(app, "#review-progress-label")
            await pilot.press("s")
            await wait_until(pilot, lambda: not app.job_running("review") and len(screen.rows) == 3)
            bond = cells(screen, "bond")
            assert bond[2:4] == ["50000 USD", "✓ found"]  # the rules' other bid bond is not reviewed: no conflict

    run(scenario())


def test_a_document_the_kb_does_not_hold_stops_the_run_with_its_name_and_asks_nothing(kb: tuple[Path, Path]) -> None:
    path, checklist = kb
    llm = reviewer()

    async def scenario() -> None:
        app = make_app(path, llm)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await open_review(pilot, checklist)
            await pilot.press("d")
            await wait_until(pilot, lambda: not isinstance(app.screen, ReviewScreen))
            app.screen.query_one("#scope").value = "tender.pdf"
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
            await pilot.press("s")
            await wait_until(pilot, lambda: "Stopped" in text_of(app, "#review-progress-label"))
            assert "no document 'tender.pdf'" in text_of(app, "#review-progress-label")
            assert screen.rows == {} and llm.calls == []

    run(scenario())
