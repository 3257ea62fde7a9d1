"""Screenshots of a checklist review as a user sees it, for docs/: the self-contained HTML report opened
in headless Chromium, and the TUI's Review screen (F5) driven in tmux, with the viewer opened at a row's quote.

    .venv/bin/python build/review_screenshots.py KB --checklist tender-zh --row price_weight

Needs the Debian packages ``chromium`` and ``tmux``; reads only stored rows (no model is loaded by the report, and
the TUI loads one only when asked a question). Writes docs/review-report.png, docs/tui-review-tmux.txt (the screen
as tmux shows it) and docs/tui-review-viewer-tmux.txt.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pikelocal import api
from pikelocal.config import load_settings

ROOT = Path(__file__).resolve().parent.parent
SESSION = "pikelocal-review-shot"


def shoot_report(kb: Path, checklist: str, out: Path, width: int, height: int) -> Path:
    """Export the report as HTML from the stored rows and screenshot it in headless Chromium (no network)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "report.html"
        with api.open_kb(kb, load_settings()) as knowledge_base:
            knowledge_base.export_review(checklist, html)
        png = out / "review-report.png"
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             f"--window-size={width},{height}", f"--screenshot={png}", html.as_uri()],
            check=True, capture_output=True, timeout=120, cwd=tmp,
        )  # fmt: skip
    print(f"wrote {png}")
    return png


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], check=True, capture_output=True, text=True).stdout


def _wait_for(text: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        screen = _tmux("capture-pane", "-p", "-t", SESSION)
        if text in screen:
            return screen
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {text!r} on the TUI; the screen was:\n{screen}")
        time.sleep(0.5)


def shoot_tui(kb: Path, checklist: str, row: str, out: Path, size: tuple[int, int]) -> None:
    """Open the TUI in tmux, press F5, go to ``row`` and press Enter: the screen as text after each step."""
    if shutil.which("tmux") is None:
        raise SystemExit("tmux is not installed (apt-get install tmux)")
    with api.open_kb(kb, load_settings()) as knowledge_base:
        listed, _rows = knowledge_base.review_rows(checklist)
    index = next((n for n, item in enumerate(listed.items) if item.id == row), None)
    if index is None:
        raise SystemExit(f"{checklist} has no item {row!r}")
    command = f"{sys.executable} -m pikelocal tui {kb}"
    subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)
    _tmux("new-session", "-d", "-s", SESSION, "-x", str(size[0]), "-y", str(size[1]), command)
    try:
        _wait_for("Ready.", 60)
        _tmux("send-keys", "-t", SESSION, "F5")
        _wait_for(" answered", 30)
        for _ in range(index):
            _tmux("send-keys", "-t", SESSION, "Down")
        time.sleep(1.0)
        screen = _tmux("capture-pane", "-p", "-t", SESSION)
        (out / "tui-review-tmux.txt").write_text(screen, encoding="utf-8")
        print(f"wrote {out / 'tui-review-tmux.txt'}")
        _tmux("send-keys", "-t", SESSION, "Enter")
        time.sleep(3.0)
        screen = _tmux("capture-pane", "-p", "-t", SESSION)
        (out / "tui-review-viewer-tmux.txt").write_text(screen, encoding="utf-8")
        print(f"wrote {out / 'tui-review-viewer-tmux.txt'}")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", SESSION], capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kb", type=Path)
    parser.add_argument("--checklist", default="tender-zh")
    parser.add_argument("--row", default="price_weight", help="the item whose quote the viewer opens")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--size", default="130x40", help="the terminal's columns x lines")
    args = parser.parse_args()
    columns, lines = (int(n) for n in args.size.split("x"))
    shoot_report(args.kb, args.checklist, args.out, 1280, 1700)
    shoot_tui(args.kb, args.checklist, args.row, args.out, (columns, lines))


if __name__ == "__main__":
    main()
