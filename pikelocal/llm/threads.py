"""How many threads llama.cpp should use right now, given what else is running on the machine.

llama.cpp splits every matrix product over its threads and waits at a barrier after each, spinning. When another
process holds one of the cores, the thread that shares that core reaches each barrier late, and the others spin
waiting for it: on 2 cores with one competing process, 2 threads ran a 135M model's generation at 0.3 tokens/s
against 36 with 1 thread (``build/bench/bench_llm_ceiling.py``). So the thread count follows the load: every so often
:class:`ThreadGovernor` reads how busy the machine was since its last look (``/proc/stat``) minus what this process
used (``/proc/self/stat``), and offers as many threads as there are cores the others leave free (at least one).

Linux only; elsewhere it keeps the configured count.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CPU_STAT = Path("/proc/stat")
SELF_STAT = Path("/proc/self/stat")


@dataclass(frozen=True)
class Sample:
    at: float  # monotonic seconds
    busy: float  # seconds of CPU the whole machine spent busy (all cores)
    own: float  # seconds of CPU this process used (all its threads)


def read_sample() -> Sample | None:
    """The machine's and this process's CPU seconds so far, or None where /proc is not there."""
    try:
        fields = CPU_STAT.read_text().split("\n", 1)[0].split()[1:]
        own = SELF_STAT.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    # user nice system idle iowait irq softirq steal (guest time is already in user): a stolen core is busy too
    values = [int(v) for v in fields[:8]]
    busy = sum(values) - values[3] - (values[4] if len(values) > 4 else 0)
    # utime and stime are fields 14 and 15 of /proc/self/stat, i.e. 12 and 13 after the ")"
    return Sample(time.monotonic(), busy / ticks, (int(own[11]) + int(own[12])) / ticks)


class ThreadGovernor:
    """Offers a thread count between 1 and ``cores`` that leaves the other processes' load its cores.

    ``advise()`` is cheap (a clock read; two small /proc reads once per interval) and may be called between tokens;
    it answers None until ``interval`` seconds have passed since the last look, or when the count should stay.
    """

    def __init__(
        self,
        cores: int,
        *,
        interval: float = 0.5,
        reader: Callable[[], Sample | None] = read_sample,
        clock: Callable[[], float] = time.monotonic,  # the clock of the reader's ``Sample.at``
    ) -> None:
        self.cores = max(1, cores)
        self.interval = interval
        self.reader = reader
        self.clock = clock
        self.threads = self.cores
        self._last = reader()

    def others(self, now: Sample) -> float | None:
        """Cores the other processes kept busy since the last sample (None: too soon or unknown)."""
        last = self._last
        if last is None or now.at - last.at < self.interval:
            return None
        span = now.at - last.at
        return max(0.0, (now.busy - last.busy) - (now.own - last.own)) / span

    def advise(self) -> int | None:
        """The thread count to switch to, or None to keep the current one."""
        if self._last is not None and self.clock() - self._last.at < self.interval:
            return None  # called between every two tokens: no /proc read until the interval has passed
        now = self.reader()
        if now is None:
            return None
        others = self.others(now)
        if others is None:
            return None
        self._last = now
        # a core counts as taken when the others used at least 60 % of one
        wanted = max(1, min(self.cores, self.cores - int(others + 0.4)))
        if wanted == self.threads:
            return None
        self.threads = wanted
        return wanted
