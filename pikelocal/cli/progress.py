"""Terminal progress for long work: one bar per stage with rate and ETA, drawn on stderr (CLI only)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from pikelocal.domain.events import Event, Notice, StageAdvanced, StageFinished, StageStarted
from pikelocal.domain.shown import shown_name

BAR_WIDTH = 24
REDRAW_S = 0.2  # at most five redraws a second
LOG_EVERY_S = 30.0  # without a terminal: one line per stage at most this often


def _clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressPrinter:
    """An EventSink that draws ``stage ███░░ 120/450 chunks 35.2/s ETA 0:09`` and prints notices above it."""

    def __init__(self, stream: TextIO | None = None, *, tty: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self._unit = ""
        self._t0 = 0.0
        self._last = 0.0
        self._drawn = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, StageStarted):
            self._unit, self._t0, self._last = event.unit, time.monotonic(), 0.0
            if not self.tty and event.total:
                self._line(f"{event.stage}: {event.total:,} {event.unit}")
        elif isinstance(event, StageAdvanced):
            now = time.monotonic()
            if now - self._last >= (REDRAW_S if self.tty else LOG_EVERY_S) or event.done == event.total:
                self._last = now
                self._draw(event, now)
        elif isinstance(event, StageFinished):
            if event.done or self.tty:
                rate = event.done / event.seconds if event.seconds > 0 else 0.0
                took = _clock(event.seconds)
                self._line(f"{event.stage:<6} {event.done:,} {self._unit} in {took} ({rate:,.1f} {self._unit}/s)")
        elif isinstance(event, Notice):
            # a notice names files and quotes documents: one line, whatever they hold
            self._line(shown_name(("warning: " if event.level == "warning" else "") + event.message))

    def _draw(self, e: StageAdvanced, now: float) -> None:
        elapsed = now - self._t0
        rate = e.done / elapsed if elapsed > 0 else 0.0
        eta = (e.total - e.done) / rate if rate > 0 and e.total else 0.0
        share = e.done / e.total if e.total else 0.0
        fill = int(share * BAR_WIDTH)
        bar = "█" * fill + "░" * (BAR_WIDTH - fill)
        detail = shown_name(e.detail[:30])
        text = f"{e.stage:<6} {bar} {e.done:,}/{e.total:,} {self._unit} {rate:,.1f}/s ETA {_clock(eta)}  {detail}"
        if self.tty:
            self.stream.write("\r\x1b[2K" + text)
            self._drawn = True
            self.stream.flush()
        else:
            self._line(text)

    def _line(self, text: str) -> None:
        if self.tty and self._drawn:
            self.stream.write("\r\x1b[2K")
            self._drawn = False
        self.stream.write(text + "\n")
        self.stream.flush()
