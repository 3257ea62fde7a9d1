"""Shared by the TUI tests: a real KB file built with the fake encoder, a scripted LLM, and waiting helpers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Static

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.tui.app import PikeApp
from tests.support.answer_kb import ENC
from tests.support.answer_scripts import cite_source_with

ZH_QUESTION = "履约保证金是多少？"
ZH_ANSWER = "履约保证金为合同价款的百分之十"


def fake_llm(answer: object | None = None, *, before_answer: Callable[[], None] | None = None) -> FakeLLM:
    """Proposes one sub-question, then none; picks the first candidate; answers citing the source it names (in
    naive and hier, quote-then-answer: the sentence holding the answer, then the answer; a scripted ``answer``
    string is both quote and answer)."""
    proposals = iter(['{"sub_questions": ["履约保证金的比例是多少？"]}'])
    quoted = f"原文：{ZH_ANSWER}。\n答案：{ZH_ANSWER}" if answer is None else f"Quote: {answer}\nAnswer: {answer}"
    answer = answer or cite_source_with("百分之十", ZH_ANSWER)

    def answering(messages: Sequence[Message], params: GenParams) -> str:
        if before_answer is not None:
            before_answer()
        if params.tag == "answer-quote":
            return quoted
        return answer if isinstance(answer, str) else answer(messages, params)  # type: ignore[operator]

    return FakeLLM(
        {
            "propose_subquestions": lambda _m, _p: next(proposals, '{"sub_questions": []}'),
            "select_atom": '{"pick": 1}',
            "answer": answering,
            "answer-quote": answering,
        }  # type: ignore[dict-item]
    )


def make_app(kb: Path, llm: FakeLLM | None = None, settings: Settings | None = None) -> PikeApp:
    settings = settings or Settings()
    return PikeApp(settings, api.open_kb(kb, settings, encoder=ENC, llm=llm or fake_llm()))


async def wait_until(pilot: Pilot[object], condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until ``condition()`` holds (work runs in threads); fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.05)
    await pilot.pause()


async def ask(pilot: Pilot[object], question: str, mode: str | None = None) -> None:
    """Type a question and send it (optionally after choosing the mode with Ctrl+O)."""
    app = pilot.app
    if mode is not None:
        while str(app.screen.query_one("#mode").value) != mode:  # type: ignore[attr-defined]
            await pilot.press("ctrl+o")
    app.screen.query_one("#question").focus()
    app.screen.query_one("#question").value = question  # type: ignore[attr-defined]
    await pilot.press("enter")


def text_of(app: PikeApp, selector: str) -> str:
    """The plain text a Static shows."""
    return str(app.screen.query_one(selector, Static).render())


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]
