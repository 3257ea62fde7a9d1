"""Screenshots of the TUI on the real default models, for docs/: the ask screen with a cited answer, its
reasoning, and the document viewer at the cited page.

    .venv/bin/python build/tui_screenshots.py demo.kb            # after `make demo`

Drives the real app headless (Textual's Pilot) exactly as keys would: types the question, waits for the
answer, opens the first cited source. Writes SVG and plain-text screenshots to docs/.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from pikelocal import api
from pikelocal.tui.app import PikeApp
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.viewer import DocumentViewer
from pikelocal.tui.screenshot import screen_text

QUESTION = "投标保证金和履约保证金分别是多少？"


async def _wait(pilot: object, condition: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the app")
        await pilot.pause(0.2)  # type: ignore[attr-defined]


def _save(app: PikeApp, out: Path, name: str) -> None:
    (out / f"{name}.svg").write_text(app.export_screenshot(title=f"pikelocal tui — {name}"), encoding="utf-8")
    (out / f"{name}.txt").write_text(screen_text(app) + "\n", encoding="utf-8")
    print(f"wrote {out / name}.svg and .txt")


async def shoot(kb: Path, question: str, mode: str, rounds: int, out: Path, size: tuple[int, int]) -> None:
    settings = api.load_settings()
    app = PikeApp(settings, api.open_kb(kb, settings))
    async with app.run_test(size=size) as pilot:
        screen = app.screen
        assert isinstance(screen, AskScreen)
        screen.query_one("#mode").value = mode  # type: ignore[attr-defined]
        screen.query_one("#rounds").value = str(rounds)  # type: ignore[attr-defined]
        screen.query_one("#question").value = question  # type: ignore[attr-defined]
        screen.query_one("#question").focus()
        t0 = time.perf_counter()
        await pilot.press("enter")
        await _wait(pilot, lambda: screen.trace is not None or not app.job_running("answer"), 900)
        if screen.trace is None:
            raise SystemExit(f"no answer: {screen.query_one('#status').render()}")
        print(f"answered in {time.perf_counter() - t0:.1f} s: {screen.trace.answer.text!r}")
        screen.query_one("#answer").focus()
        await pilot.pause(0.5)
        _save(app, out, "tui-ask")
        await pilot.press("ctrl+r")
        await pilot.pause(0.5)
        _save(app, out, "tui-reasoning")
        await pilot.press("ctrl+r")
        cited = screen.trace.answer.cited or tuple(s.number for s in screen.trace.answer.sources[:1])
        await pilot.press(str(cited[0]))
        await _wait(pilot, lambda: isinstance(app.screen, DocumentViewer), 30)
        await pilot.pause(0.5)
        _save(app, out, "tui-viewer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kb", type=Path)
    parser.add_argument("--question", default=QUESTION)
    parser.add_argument("--mode", default="decompose", choices=["naive", "hier", "decompose"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--size", default="100x30", help="terminal columns x rows")
    args = parser.parse_args()
    if not args.kb.exists():
        raise SystemExit(f"{args.kb}: no such knowledge base (run `make demo` first)")
    cols, rows = (int(n) for n in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    asyncio.run(shoot(args.kb, args.question, args.mode, args.rounds, args.out, (cols, rows)))


if __name__ == "__main__":
    main()
