"""The ask screen driven by Textual's Pilot on a real KB file (fake encoder and scripted LLM for speed)."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Collapsible, OptionList

from pikelocal.config import Settings
from pikelocal.store.store import Store
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support.answer_kb import build
from tests.support.tui import ZH_ANSWER, ZH_QUESTION, ask, fake_llm, make_app, run, text_of, wait_until


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("tui-ask"))


@pytest.fixture
def fresh_kb(tmp_path: Path) -> Path:
    return build(tmp_path)


def answered(app: object) -> bool:
    screen = app.screen  # type: ignore[attr-defined]
    return isinstance(screen, AskScreen) and screen.trace is not None


def test_asking_shows_the_streamed_answer_and_its_sources(fresh_kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(fresh_kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await ask(pilot, ZH_QUESTION, mode="naive")
            await wait_until(pilot, lambda: answered(app))
            screen = app.screen
            assert isinstance(screen, AskScreen) and screen.trace is not None
            assert ZH_ANSWER in text_of(app, "#answer")
            sources = screen.query_one("#sources", OptionList)
            assert sources.option_count == len(screen.trace.answer.sources) >= 1
            cited = screen.trace.answer.cited[0]
            first_line = str(sources.get_option(str(cited)).prompt).splitlines()[0]
            assert first_line.startswith(f"[{cited}] performance_bond.md, p. 1")
            assert "百分之十" in str(sources.get_option(str(cited)).prompt)  # the cited text is shown
            assert text_of(app, "#status").startswith(f"trace {screen.trace.id} · naive")
            assert ZH_ANSWER in screen_text(app)  # wide characters render whole at 80 columns

    run(scenario())
    with Store.open_existing(fresh_kb) as store:
        assert [t.question for t in store.traces.trace_rows(5)] == [ZH_QUESTION]


def test_a_citation_marker_opens_the_viewer_at_the_cited_page_with_the_lines_highlighted(kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await ask(pilot, ZH_QUESTION, mode="naive")
            await wait_until(pilot, lambda: answered(app))
            trace = app.screen.trace  # type: ignore[attr-defined]
            number = trace.answer.cited[0]
            source = next(s for s in trace.answer.sources if s.number == number)
            app.screen.query_one("#answer").focus()
            await pilot.press(str(number))  # the digit key opens source n, as clicking the marker does
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            viewer = app.screen
            assert isinstance(viewer, DocumentViewer) and viewer.page_no == source.page_start
            shown = screen_text(app)
            marked = [line for line in shown.splitlines() if "▌" in line]
            assert marked and any("百分之十" in line for line in marked)
            assert f"[{number}] lines {source.line_start}–{source.line_end}, cited sentence on line 3" in shown
            assert "百分之十" in viewer.kb.page(source.doc_id, viewer.page_no).lines()[2]
            await pilot.press("escape")
            assert isinstance(app.screen, AskScreen)

    run(scenario())


def test_the_sources_list_opens_a_pdf_page_and_the_viewer_pages_through_it(kb: Path) -> None:
    async def scenario() -> None:
        llm = fake_llm("Flood and fire count as force majeure [1].")
        app = make_app(kb, llm)
        async with app.run_test(size=(100, 30)) as pilot:
            await ask(pilot, "Do floods, fire, war and strikes count as force majeure?", mode="naive")
            await wait_until(pilot, lambda: answered(app))
            trace = app.screen.trace  # type: ignore[attr-defined]
            pdf = next(s for s in trace.answer.sources if s.path.endswith("contract.pdf"))
            sources = app.screen.query_one("#sources", OptionList)
            await pilot.press("ctrl+s")
            sources.highlighted = sources.get_option_index(str(pdf.number))
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            viewer = app.screen
            assert isinstance(viewer, DocumentViewer) and viewer.page_no == pdf.page_start
            await pilot.press("right")
            assert viewer.page_no == min(2, viewer.pages[-1])
            if viewer.page_no == 2:
                assert "Such events include flood, fire, war and strikes" in screen_text(app)
            await pilot.press("left", "left")
            assert viewer.page_no == 1
            await pilot.press("c")
            assert viewer.page_no == pdf.page_start

    run(scenario())


def test_the_reasoning_panel_lists_the_rounds_and_the_context_sent(kb: Path) -> None:
    # answer.k = 1 with neighbours: decompose reads one search hit first, so the rounds have chunks left to add
    # (segments of the whole ranking would read most of this small KB at once)
    settings = replace(Settings(), answer=replace(Settings().answer, k=1, context="neighbours"))

    async def scenario() -> None:
        app = make_app(kb, settings=settings)
        async with app.run_test(size=(80, 24)) as pilot:
            await ask(pilot, ZH_QUESTION, mode="decompose")
            await wait_until(pilot, lambda: answered(app))
            panel = app.screen.query_one("#reasoning", Collapsible)
            assert panel.collapsed
            await pilot.press("ctrl+r")
            assert not panel.collapsed
            reasoning = text_of(app, "#reasoning-text")
            trace = app.screen.trace  # type: ignore[attr-defined]
            assert len(trace.rounds) >= 2
            for r in trace.rounds:
                assert f"Round {r.number}" in reasoning
            assert "? 履约保证金的比例是多少？" in reasoning  # the proposed sub-question
            assert "→ " in reasoning and "+ chunk " in reasoning  # the pick and the chunk it added
            assert "Context sent for the answer" in reasoning
            assert "百分之十" in reasoning.split("Context sent for the answer", 1)[1]

    run(scenario())


def test_question_history_walks_with_up_and_down_and_reopens_from_the_history_screen(kb: Path) -> None:
    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await ask(pilot, ZH_QUESTION, mode="naive")
            await wait_until(pilot, lambda: answered(app))
            box = app.screen.query_one("#question")
            box.value = ""  # type: ignore[attr-defined]
            box.focus()
            await pilot.press("up")
            assert box.value == ZH_QUESTION  # type: ignore[attr-defined]
            first_id = app.screen.trace.id  # type: ignore[attr-defined]
            await pilot.press("f4")
            await wait_until(pilot, lambda: app.current_mode == "history")
            await pilot.press("enter")  # the newest question is on the first row
            await wait_until(pilot, lambda: app.current_mode == "ask")
            assert app.screen.trace.id == first_id  # type: ignore[attr-defined]
            assert ZH_ANSWER in text_of(app, "#answer")

    run(scenario())


def test_escape_cancels_an_answer_and_nothing_is_stored(fresh_kb: Path) -> None:
    started, release = threading.Event(), threading.Event()

    def slow_model() -> None:
        started.set()
        release.wait(10)

    async def scenario() -> None:
        app = make_app(fresh_kb, fake_llm(before_answer=slow_model))
        async with app.run_test(size=(80, 24)) as pilot:
            await ask(pilot, ZH_QUESTION, mode="naive")
            await wait_until(pilot, started.is_set)
            assert app.job_running("answer")
            await pilot.press("escape")  # the UI answers while the model is busy
            release.set()
            await wait_until(pilot, lambda: text_of(app, "#status").startswith("Cancelled"))
            assert not app.job_running("answer")
            assert app.screen.trace is None  # type: ignore[attr-defined]
            assert app.is_running

    run(scenario())
    with Store.open_existing(fresh_kb) as store:
        assert store.traces.trace_rows(5) == []
        assert store.integrity_check() == []


def test_errors_are_notifications_not_crashes(tmp_path: Path) -> None:
    async def scenario() -> None:
        app = make_app(tmp_path / "new.kb")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await wait_until(pilot, lambda: app.current_mode == "library")  # a new KB opens on the library
            await pilot.press("f2")
            await ask(pilot, "anything?")
            await pilot.pause()
            messages = [n.message for n in app._notifications]
            assert any("holds no documents yet" in m for m in messages)
            await ask(pilot, "   ")
            assert any("Type a question first" in n.message for n in app._notifications)
            assert app.is_running

    run(scenario())
    assert not (tmp_path / "new.kb").exists()  # looking created nothing
