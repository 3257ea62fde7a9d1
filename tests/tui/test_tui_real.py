"""The TUI end to end on the real default LLM and encoder (slow): the app loads the models itself, in its worker
thread, answers a Chinese question about the bundled sample tender with a citation, and the viewer highlights the
cited lines holding the amount."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.tui.app import PikeApp
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text
from tests.support.paths import installed_model
from tests.support.tui import ask, text_of, wait_until

pytestmark = pytest.mark.slow
SAMPLE = Path(api.__file__).parent / "samples" / "道路改造工程招标文件（示例）.md"


def test_a_chinese_question_on_the_real_model_is_answered_cited_and_opened(tmp_path: Path) -> None:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    settings = api.load_settings(environ={}, overrides={"ingest.late": False})
    kb = tmp_path / "kb.sqlite"
    with api.open_kb(kb, settings) as knowledge_base:
        assert knowledge_base.add([SAMPLE]).ingest.count("ingested") == 1

    async def scenario() -> None:
        app = PikeApp(settings, api.open_kb(kb, settings))  # real models, loaded by the app on first use
        async with app.run_test(size=(100, 30)) as pilot:
            await ask(pilot, "投标保证金是多少？", mode="naive")
            # The screen updates while the model generates: the status says so before the finished answer shows.
            # (Not "the job is still running": a short answer can finish between two polls. And the pane may
            # still be empty then: the claim check holds a sentence back until it is checked.)
            seen: list[object] = []  # the screen's trace when "Writing the answer" is first seen

            def writing() -> bool:
                if "Writing the answer" not in text_of(app, "#status"):
                    return False
                seen.append(getattr(app.screen, "trace", None))
                return True

            await wait_until(pilot, writing, timeout=600)
            assert seen[0] is None, seen[0]
            await wait_until(pilot, lambda: isinstance(app.screen, AskScreen) and app.screen.trace is not None, 600)
            screen = app.screen
            assert isinstance(screen, AskScreen) and screen.trace is not None
            answer = screen.trace.answer
            assert re.search(r"5万|五万|伍万|50,?000", answer.text), answer.text
            cited = [s for s in answer.sources if s.number in answer.cited]
            deposit = next((s for s in cited if "伍万元" in s.text), None)
            assert deposit is not None, answer
            screen.query_one("#answer").focus()
            await pilot.press(str(deposit.number))
            await wait_until(pilot, lambda: isinstance(app.screen, DocumentViewer))
            marked = [line for line in screen_text(app).splitlines() if "▌" in line]
            assert any("伍万元" in line for line in marked), marked

    asyncio.run(scenario())
