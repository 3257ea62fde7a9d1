"""The Review screen's views (F5, then v) driven by Textual's Pilot on a real KB (fake encoder, no model): rejection
risks, requirements and the timeline each shown as a table of cited rows, Enter opening the viewer at the cited
page and line, an empty view saying so, and a row marked with the checklist's keys (a, w, c, x, n), the mark shown in
the table, kept in the KB and there again when the view is found again. Each expectation is read off the RFP
below."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.tui.app import PikeApp
from pikelocal.tui.screens.dialogs import NoteDialog
from pikelocal.tui.screens.review import ReviewScreen
from pikelocal.tui.screens.review_views import ReviewViews
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support.answer_kb import ENC
from tests.support.search_corpus import make_pdf
from tests.support.tui import make_app, run, text_of, wait_until

RFP_PAGES = (
    (
        "Request for proposals: supply of water pumps.",
        "Bids shall be submitted before 15 December 2025.",
        "A bid received after the closing time shall be rejected.",
    ),
    (
        "Evaluation and award",
        "The Supplier shall deliver the goods within 30 days of the order.",
        "A bidder who fails the evaluation shall be disqualified.",
        "The bids are opened on 16 December 2025.",
    ),
)


def kb_of(root: Path, files: dict[str, bytes]) -> Path:
    docs = root / "docs"
    docs.mkdir()
    for name, data in files.items():
        (docs / name).write_bytes(data)
    path = root / "kb.sqlite"
    with api.open_kb(path, Settings(), encoder=ENC) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    return path


@pytest.fixture
def rfp_kb(tmp_path: Path) -> Path:
    return kb_of(tmp_path, {"rfp.pdf": make_pdf(RFP_PAGES)})


async def open_view(pilot: object, presses: int) -> ReviewViews:
    """F5, then v pressed ``presses`` times (1: risks, 2: requirements, 3: timeline), its rows found."""
    app: PikeApp = pilot.app  # type: ignore[attr-defined]
    await pilot.press("f5")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    for _ in range(presses):
        await pilot.press("v")  # type: ignore[attr-defined]
    views = screen.query_one(ReviewViews)
    await wait_until(pilot, lambda: views.view in views.found and not app.job_running("review views"))  # type: ignore[arg-type]
    return views


def cells(views: ReviewViews) -> list[list[str]]:
    table = views.query_one("#views-rows", DataTable)
    return [[str(c) for c in table.get_row_at(n)] for n in range(table.row_count)]


def test_the_risks_view_lists_each_rejection_by_stage_and_enter_opens_its_line(rfp_kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(rfp_kb)
        async with app.run_test(size=(120, 30)) as pilot:
            views = await open_view(pilot, 1)
            assert views.view == "risks"
            rows = cells(views)
            assert [r[0] for r in rows] == ["form and submission", "evaluation"]  # the order a bid meets them
            assert rows[0][1:] == ["A bid received after the closing time shall be rejected.", "p. 1, l. 3", ""]
            assert rows[1][1:] == ["A bidder who fails the evaluation shall be disqualified.", "p. 2, l. 3", ""]
            assert text_of(app, "#views-head").startswith("Rejection risks · 2 rows · all documents")
            detail = text_of(app, "#views-detail")  # the row in full, with its whole citation
            assert "A bid received after the closing time shall be rejected.\nrfp, p. 1, line 3" in detail
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            assert not screen.query_one("#review-detail-box").display  # the checklist's rows are away
            await pilot.press("down", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            viewer = app.screen
            assert isinstance(viewer, DocumentViewer) and viewer.page_no == 2
            shown = screen_text(app)
            assert "rfp.pdf · page 2 of 2 · [1] lines 3–3, cited sentence on line 3" in shown
            marked = [line for line in shown.splitlines() if "▌" in line]
            assert len(marked) == 1 and "A bidder who fails the evaluation shall be disqualified." in marked[0]
            await pilot.press("escape")
            assert isinstance(app.screen, ReviewScreen) and app.screen.view == "risks"

    run(scenario())


def test_the_requirements_view_shows_who_is_bound_and_the_figures(rfp_kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(rfp_kb)
        async with app.run_test(size=(140, 30)) as pilot:
            views = await open_view(pilot, 2)
            assert views.view == "requirements"
            deliver = next(r for r in cells(views) if r[2].startswith("The Supplier shall deliver"))
            assert (deliver[0], deliver[3], deliver[4]) == ("bidder", "30 days", "p. 2, l. 2")
            assert text_of(app, "#views-head").startswith("Requirements · ")
            table = views.query_one("#views-rows", DataTable)
            table.move_cursor(row=[r[2] for r in cells(views)].index(deliver[2]))
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            assert "rfp.pdf · page 2 of 2 · [1] lines 2–2" in screen_text(app)

    run(scenario())


def test_the_timeline_view_sorts_dates_with_their_roc_form_then_the_relative_ones(rfp_kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(rfp_kb)
        async with app.run_test(size=(140, 30)) as pilot:
            views = await open_view(pilot, 3)
            assert views.view == "timeline"
            rows = cells(views)
            assert [r[:2] for r in rows] == [
                ["2025-12-15", "民國114年12月15日"],
                ["2025-12-16", "民國114年12月16日"],
                ["relative", "30 days"],
            ]
            assert [r[4] for r in rows] == ["p. 1, l. 2", "p. 2, l. 4", "p. 2, l. 2"]
            await pilot.press("down", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            assert "rfp.pdf · page 2 of 2 · [1] lines 4–4" in screen_text(app)
            await pilot.press("escape", "v")  # past the last view: the checklist's rows again
            screen = app.screen
            assert isinstance(screen, ReviewScreen) and screen.view is None
            assert not views.display and screen.query_one("#review-rows").display

    run(scenario())


def test_an_empty_view_says_so_and_has_no_row_to_mark(tmp_path: Path) -> None:
    path = kb_of(tmp_path, {"note.md": b"# Pumps\n\nThe pumps are painted blue.\n"})

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 30), notifications=True) as pilot:
            views = await open_view(pilot, 1)
            assert views.found["risks"] == [] and views.query_one("#views-rows", DataTable).row_count == 0
            head = text_of(app, "#views-head")
            assert head == (
                "Rejection risks · No clause that rejects a bid, voids it or zeroes a score was found in any"
                " document. v: next view"
            )
            await pilot.press("v")
            await wait_until(pilot, lambda: "requirements" in views.found)
            assert text_of(app, "#views-head").startswith("Requirements · No sentence that binds someone was found")
            await pilot.press("enter", "a")  # nothing to open, nothing to mark
            assert isinstance(app.screen, ReviewScreen)
            assert any("No row to mark here" in str(n.message) for n in app._notifications)

    run(scenario())


def test_d_limits_the_views_to_the_chosen_documents(tmp_path: Path) -> None:
    path = kb_of(tmp_path, {"rfp.pdf": make_pdf(RFP_PAGES), "note.md": b"# Note\n\nLate bids shall be rejected.\n"})

    async def scenario() -> None:
        app = make_app(path)
        async with app.run_test(size=(120, 30)) as pilot:
            views = await open_view(pilot, 1)
            cited = [r[2] for r in cells(views)]  # two documents: each citation names its own
            assert set(cited[:2]) == {"rfp, p. 1, l. 3", "Note, p. 1, l. 3"} and cited[2] == "rfp, p. 2, l. 3"
            await pilot.press("d")
            await wait_until(pilot, lambda: not isinstance(app.screen, ReviewScreen))
            app.screen.query_one("#scope").value = "note.md"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_until(pilot, lambda: views.docs == ("note.md",) and "risks" in views.found)
            assert [r[1:3] for r in cells(views)] == [["Late bids shall be rejected.", "p. 1, l. 3"]]  # one document
            assert text_of(app, "#views-head").startswith("Rejection risks · 1 rows · note.md")

    run(scenario())


def test_a_view_row_is_marked_with_the_checklists_keys_and_keeps_its_mark(rfp_kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(rfp_kb)
        async with app.run_test(size=(140, 30)) as pilot:
            views = await open_view(pilot, 1)
            await pilot.press("down", "w")  # the evaluation's risk (p. 2, l. 3) marked wrong
            rows = cells(views)
            assert rows[1][1] == "A bidder who fails the evaluation shall be disqualified."
            assert rows[1][3] == "✗ wrong" and rows[0][3] == ""
            await pilot.press("n")  # the same note dialog as a checklist row's
            await wait_until(pilot, lambda: isinstance(app.screen, NoteDialog))
            app.screen.query_one("#note").value = "only after the evaluation"  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen))
            assert cells(views)[1][3].startswith("✗ wrong · on")  # the note clipped to the column
            assert "✗ wrong" in text_of(app, "#views-detail") and "only after the evaluation" in text_of(
                app, "#views-detail"
            )
            await pilot.press("up", "a")  # the late bid accepted
            await pilot.press("r")  # found again: the marks come back with their rows
            await wait_until(pilot, lambda: "risks" in views.found and not app.job_running("review views"))
            assert [r[3][:10] for r in cells(views)] == ["✓ accepted", "✗ wrong · "]

    run(scenario())
    with api.open_kb(rfp_kb, Settings(), encoder=ENC) as knowledge_base:  # kept in the KB
        marks = [(r.clause.text, r.mark, r.note) for r in knowledge_base.risks()]
    assert marks == [
        ("A bid received after the closing time shall be rejected.", "accepted", ""),
        ("A bidder who fails the evaluation shall be disqualified.", "wrong", "only after the evaluation"),
    ]
