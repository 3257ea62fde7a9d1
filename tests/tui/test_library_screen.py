"""The library screen driven by Pilot: stages per document, failed files, background add with progress,
removal with confirmation, and cancelling without leaving the KB inconsistent."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from textual.message import Message
from textual.widgets import DataTable, Label, ProgressBar

from pikelocal.domain.events import StageAdvanced, StageStarted
from pikelocal.llm.base import GenParams
from pikelocal.llm.base import Message as LLMMessage
from pikelocal.llm.fake import FakeLLM
from pikelocal.store.store import Store
from pikelocal.tui.jobs import WorkEvent
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.dialogs import ConfirmDialog, PathDialog
from pikelocal.tui.screens.library import LibraryScreen
from tests.support.answer_kb import build
from tests.support.enrich_corpus import SCRIPT
from tests.support.tui import ZH_ANSWER, ZH_QUESTION, ask, fake_llm, make_app, run, text_of, wait_until

NEW_DOC = "# 付款方式\n\n采购人应当在验收合格后三十日内支付合同价款。\n\n逾期付款的，按日支付万分之五的违约金。\n"


def enriching_llm(gate: threading.Event | None = None, started: threading.Event | None = None) -> FakeLLM:
    """Summaries and atomic questions as tests/enrich scripts them (each atomize call may wait on ``gate``),
    and the answering prompts of the ask tests."""
    base = fake_llm()

    def atomize(messages: Sequence[LLMMessage], params: GenParams) -> str:
        if started is not None:
            started.set()
        if gate is not None:
            gate.wait(10)
        return SCRIPT["atomize"](messages, params)

    return FakeLLM({**base.script, **SCRIPT, "atomize": atomize})


def folder_to_add(tmp_path: Path) -> Path:
    folder = tmp_path / "incoming"
    folder.mkdir()
    (folder / "payment.md").write_text(NEW_DOC, encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf\n")
    return folder


def progress_text(app: object) -> str:
    return str(app.screen.query_one("#progress-label", Label).render())  # type: ignore[attr-defined]


def rows(app: object, table_id: str) -> list[list[str]]:
    table = app.screen.query_one(table_id, DataTable)  # type: ignore[attr-defined]
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def add_path(pilot: object, path: Path) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    await pilot.press("a")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: isinstance(app.screen, PathDialog))  # type: ignore[arg-type]
    app.screen.query_one("#path").value = str(path)
    await pilot.press("enter")  # type: ignore[attr-defined]


def test_adding_a_folder_shows_progress_the_new_document_and_the_failed_file(tmp_path: Path) -> None:
    kb = build(tmp_path)
    gate, started = threading.Event(), threading.Event()
    seen: list[object] = []

    def hook(message: Message) -> None:
        if isinstance(message, WorkEvent):
            seen.append(message.event)

    async def scenario() -> None:
        app = make_app(kb, enriching_llm(gate, started))
        async with app.run_test(size=(80, 24), notifications=True, message_hook=hook) as pilot:
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen))
            before = len(rows(app, "#docs"))
            await add_path(pilot, folder_to_add(tmp_path))
            await wait_until(pilot, started.is_set)  # ingested; enrichment waits on the model
            await wait_until(pilot, lambda: len(rows(app, "#docs")) == before + 1)
            new = next(r for r in rows(app, "#docs") if r[1] == "付款方式")
            assert new[4:] == ["✓", "✓", "·"]  # parsed, embedded, not yet enriched
            assert app.screen.query_one("#progress", ProgressBar).display
            assert progress_text(app).startswith("questions: 0/")
            failed = rows(app, "#failures")
            assert failed[0][:2] == ["broken.pdf", "corrupt"] and failed[0][2].startswith("broken.pdf: ")
            assert any("broken.pdf" in n.message for n in app._notifications)  # the one-line reason, at once

            await pilot.press("f2")  # the KB stays queryable while enrichment runs
            await ask(pilot, ZH_QUESTION, mode="naive")
            await wait_until(pilot, lambda: isinstance(app.screen, AskScreen) and app.screen.trace is not None)
            assert ZH_ANSWER in text_of(app, "#answer")

            await pilot.press("f3")
            gate.set()
            await wait_until(pilot, lambda: progress_text(app).startswith("Added"))  # the result has arrived
            assert progress_text(app).startswith("Added 1 document(s), 1 failed;")
            new = next(r for r in rows(app, "#docs") if r[1] == "付款方式")
            assert new[6] == "✓"

    run(scenario())
    stages = [(type(e).__name__, e.stage) for e in seen if isinstance(e, StageStarted | StageAdvanced)]
    assert ("StageStarted", "parse") in stages and ("StageAdvanced", "parse") in stages
    assert ("StageStarted", "embed") in stages and ("StageAdvanced", "questions") in stages


def test_removing_asks_first_and_then_removes_everything(tmp_path: Path) -> None:
    kb = build(tmp_path)

    async def scenario() -> None:
        app = make_app(kb)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen))
            first = rows(app, "#docs")[0]
            await pilot.press("d")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("n")
            assert rows(app, "#docs")[0] == first
            await pilot.press("d")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen))
            assert first[0] not in [r[0] for r in rows(app, "#docs")]

    run(scenario())
    with Store.open_existing(kb) as store:
        assert all(d.title != "投标保证金" for d in store.docs.documents())
        assert store.integrity_check() == []


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
def test_cancelling_an_add_keeps_the_kb_consistent_and_enrich_resumes(tmp_path: Path, key: str) -> None:
    kb = build(tmp_path, questions=False)  # six documents' chunks wait for their atomic questions
    gate, started = threading.Event(), threading.Event()
    llm = enriching_llm(gate, started)

    async def scenario() -> None:
        app = make_app(kb, llm)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen))
            await add_path(pilot, folder_to_add(tmp_path))
            await wait_until(pilot, started.is_set)
            await pilot.press(key)
            gate.set()  # the call in flight finishes (and is cached); the work stops at the next chunk
            await wait_until(pilot, lambda: progress_text(app).startswith("Stopped"))
            assert progress_text(app).startswith("Stopped: cancelled")
            assert not app.job_running("library")
            assert app.is_running

    run(scenario())
    atomized_before = len(llm.calls_for("atomize"))
    with Store.open_existing(kb) as store:
        assert store.integrity_check() == []
        counts = store.enrichment.enrichment_counts()
        assert "付款方式" in [d.title for d in store.docs.documents()]
        assert 1 <= counts.atoms["done"] < counts.chunks  # stopped part-way, at a chunk boundary
        assert {d.stage for d in store.docs.documents()} == {"ready"}

    async def resume() -> None:
        app = make_app(kb, llm)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, LibraryScreen))
            await pilot.press("e")
            await wait_until(pilot, lambda: progress_text(app) == "Done.")

    run(resume())
    with Store.open_existing(kb) as store:
        counts = store.enrichment.enrichment_counts()
        assert counts.atoms["done"] == counts.chunks
    calls = llm.calls_for("atomize")
    finished_first = {c.messages[-1].content for c in calls[:atomized_before]}
    again = [c for c in calls[atomized_before:] if c.messages[-1].content in finished_first]
    assert len(again) <= 1  # only the call that was in flight when cancelled may be asked again
