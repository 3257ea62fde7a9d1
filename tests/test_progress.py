"""The terminal progress printer: log lines without a terminal, redrawn bars with one, notices, rate and ETA."""

from __future__ import annotations

import io

import pytest

from pikelocal.cli import progress
from pikelocal.cli.progress import BAR_WIDTH, ProgressPrinter
from pikelocal.domain.events import Notice, StageAdvanced, StageFinished, StageStarted

CLEAR = "\r\x1b[2K"


class Clock:
    """A settable stand-in for time.monotonic."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(progress.time, "monotonic", c)
    return c


def printer(tty: bool) -> tuple[ProgressPrinter, io.StringIO]:
    stream = io.StringIO()
    return ProgressPrinter(stream, tty=tty), stream


def bar(done: int, total: int) -> str:
    fill = done * BAR_WIDTH // total
    return "█" * fill + "░" * (BAR_WIDTH - fill)


# --- without a terminal ------------------------------------------------------------------------------------


def test_log_mode_prints_the_stage_size_progress_and_summary(clock: Clock) -> None:
    p, out = printer(tty=False)
    p(StageStarted("embed", 1200, "chunks"))
    clock.now += 10
    p(StageAdvanced("embed", 300, 1200, "report.pdf"))  # first advance: drawn at once
    clock.now += 5
    p(StageAdvanced("embed", 400, 1200))  # within 30 s of the last line: not logged
    clock.now += 25
    p(StageAdvanced("embed", 1200, 1200))  # the last one always is
    p(StageFinished("embed", 1200, 40.0))
    lines = out.getvalue().split("\n")
    assert lines[-1] == ""  # every line ends with a newline
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()
    assert lines[:-1] == [
        "embed: 1,200 chunks",
        f"embed  {bar(300, 1200)} 300/1,200 chunks 30.0/s ETA 0:30  report.pdf",
        f"embed  {bar(1200, 1200)} 1,200/1,200 chunks 30.0/s ETA 0:00  ",
        "embed  1,200 chunks in 0:40 (30.0 chunks/s)",
    ]


def test_log_mode_repeats_a_line_every_30_seconds(clock: Clock) -> None:
    p, out = printer(tty=False)
    p(StageStarted("parse", 100, "files"))
    for done in range(1, 100):
        clock.now += 1.0
        p(StageAdvanced("parse", done, 100))
    # drawn at done=1 (t=1), then once 30 s had passed since the last line: t=31, 61, 91
    drawn = [line.split()[2] for line in out.getvalue().splitlines()[1:]]
    assert drawn == ["1/100", "31/100", "61/100", "91/100"]


def test_log_mode_skips_empty_stages(clock: Clock) -> None:
    p, out = printer(tty=False)
    p(StageStarted("late", 0, "chunks"))
    p(StageFinished("late", 0, 0.0))
    assert out.getvalue() == ""


def test_notices_are_plain_lines_and_warnings_are_prefixed(clock: Clock) -> None:
    p, out = printer(tty=False)
    p(Notice("warning", "a.pdf: extracted text looks garbled"))
    p(Notice("error", "b.pdf: the PDF is encrypted"))
    p(Notice("info", "3 files unchanged"))
    assert out.getvalue() == (
        "warning: a.pdf: extracted text looks garbled\nb.pdf: the PDF is encrypted\n3 files unchanged\n"
    )


# --- on a terminal -----------------------------------------------------------------------------------------


def test_tty_mode_redraws_one_line_and_finishes_it_cleanly(clock: Clock) -> None:
    p, out = printer(tty=True)
    p(StageStarted("parse", 4, "files"))
    assert out.getvalue() == ""  # no size line on a terminal: the bar shows it
    clock.now += 1
    p(StageAdvanced("parse", 1, 4, "a.pdf"))
    clock.now += 1
    p(StageAdvanced("parse", 2, 4, "b.pdf"))
    first = CLEAR + f"parse  {bar(1, 4)} 1/4 files 1.0/s ETA 0:03  a.pdf"
    second = CLEAR + f"parse  {bar(2, 4)} 2/4 files 1.0/s ETA 0:02  b.pdf"
    assert out.getvalue() == first + second  # redrawn in place, no newline yet
    p(StageFinished("parse", 4, 2.0))
    assert out.getvalue() == first + second + CLEAR + "parse  4 files in 0:02 (2.0 files/s)\n"


def test_tty_mode_redraws_at_most_five_times_a_second(clock: Clock) -> None:
    p, out = printer(tty=True)
    p(StageStarted("embed", 10, "chunks"))
    for done in range(1, 10):
        clock.now += 0.0625  # exact in binary: no rounding at the 0.2 s threshold
        p(StageAdvanced("embed", done, 10))
    p(StageAdvanced("embed", 10, 10))  # the last advance is always drawn
    drawn = [frame.split()[2] for frame in out.getvalue().split(CLEAR) if frame]
    # t = 0.0625 (first), then once 0.2 s passed since the last frame: 0.3125 (5), 0.5625 (9); and the end
    assert drawn == ["1/10", "5/10", "9/10", "10/10"]


def test_tty_notice_clears_the_bar_and_prints_on_its_own_line(clock: Clock) -> None:
    p, out = printer(tty=True)
    p(StageStarted("parse", 3, "files"))
    clock.now += 1
    p(StageAdvanced("parse", 1, 3, "a.pdf"))
    before = out.getvalue()
    p(Notice("warning", "b.pdf: the file is empty (0 bytes)"))
    assert out.getvalue() == before + CLEAR + "warning: b.pdf: the file is empty (0 bytes)\n"
    p(Notice("error", "c.pdf: not a readable PDF"))  # no bar on screen now: nothing to clear
    assert out.getvalue().endswith("(0 bytes)\nc.pdf: not a readable PDF\n")
    clock.now += 1
    p(StageAdvanced("parse", 3, 3))  # the bar comes back below the notices
    assert out.getvalue().endswith(
        "c.pdf: not a readable PDF\n" + CLEAR + f"parse  {bar(3, 3)} 3/3 files 1.5/s ETA 0:00  "
    )


def test_tty_prints_a_summary_even_for_an_empty_stage(clock: Clock) -> None:
    p, out = printer(tty=True)
    p(StageStarted("late", 0, "chunks"))
    p(StageAdvanced("late", 0, 0))
    assert out.getvalue() == CLEAR + f"late   {'░' * BAR_WIDTH} 0/0 chunks 0.0/s ETA 0:00  "
    p(StageFinished("late", 0, 0.0))
    assert out.getvalue().endswith(CLEAR + "late   0 chunks in 0:00 (0.0 chunks/s)\n")


# --- rate and ETA ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elapsed", "done", "total", "rate", "eta"),
    [
        (10.0, 10, 1000, "1.0/s", "16:30"),  # 990 s left
        (2.0, 1, 10_000, "0.5/s", "5:33:18"),  # 19,998 s left
        (1.0, 1, 3602, "1.0/s", "1:00:01"),  # 3,601 s left
        (4.0, 50, 100, "12.5/s", "0:04"),
        (0.5, 2500, 5000, "5,000.0/s", "0:00"),  # 0.5 s left rounds down
        (0.0, 5, 100, "0.0/s", "0:00"),  # no time elapsed: no rate, no ETA
    ],
)
def test_rate_and_eta_format(clock: Clock, elapsed: float, done: int, total: int, rate: str, eta: str) -> None:
    p, out = printer(tty=False)
    p(StageStarted("embed", total, "chunks"))
    clock.now += elapsed
    p(StageAdvanced("embed", done, total))
    line = out.getvalue().splitlines()[1]
    assert line == f"embed  {bar(done, total)} {done:,}/{total:,} chunks {rate} ETA {eta}  "


def test_finish_line_formats_long_durations(clock: Clock) -> None:
    p, out = printer(tty=False)
    p(StageStarted("embed", 90_000, "tokens"))
    p(StageFinished("embed", 90_000, 3725.0))
    assert out.getvalue().splitlines()[-1] == "embed  90,000 tokens in 1:02:05 (24.2 tokens/s)"


def test_long_details_are_cut_and_unit_follows_the_stage(clock: Clock) -> None:
    p, out = printer(tty=False)
    p(StageStarted("parse", 2, "files"))
    clock.now += 1
    p(StageAdvanced("parse", 1, 2, "x" * 50 + ".pdf"))
    p(StageStarted("embed", 8, "chunks"))
    clock.now += 2
    p(StageAdvanced("embed", 8, 8))
    lines = out.getvalue().splitlines()
    assert lines[1].endswith("  " + "x" * 30)
    assert lines[2] == "embed: 8 chunks"
    assert lines[3] == f"embed  {bar(8, 8)} 8/8 chunks 4.0/s ETA 0:00  "  # rate from the embed stage's start
