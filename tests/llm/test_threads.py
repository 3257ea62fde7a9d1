"""The thread governor: llama.cpp's thread count follows the cores other processes leave free."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.threads import Sample, ThreadGovernor, read_sample


class Clock:
    """Samples where the test says how busy the others were: ``others`` cores, ``own`` cores of ours, 1 s apart."""

    def __init__(self) -> None:
        self.at = 0.0
        self.busy = 0.0
        self.own = 0.0

    def tick(self, *, others: float, own: float, seconds: float = 1.0) -> None:
        self.at += seconds
        self.busy += (others + own) * seconds
        self.own += own * seconds

    def __call__(self) -> Sample:
        return Sample(self.at, self.busy, self.own)


def test_threads_drop_to_the_free_cores_and_come_back() -> None:
    clock = Clock()
    gov = ThreadGovernor(2, interval=0.5, reader=clock, clock=lambda: clock.at)
    clock.tick(others=0.0, own=2.0)
    assert gov.advise() is None and gov.threads == 2  # quiet: keep both
    clock.tick(others=1.0, own=1.0)  # a competing process holds one core
    assert gov.advise() == 1
    clock.tick(others=1.0, own=1.0)
    assert gov.advise() is None and gov.threads == 1  # still busy: stay
    clock.tick(others=0.1, own=1.0)  # it ended
    assert gov.advise() == 2


def test_a_light_background_load_keeps_every_thread() -> None:
    clock = Clock()
    gov = ThreadGovernor(4, interval=0.5, reader=clock, clock=lambda: clock.at)
    clock.tick(others=0.5, own=4.0)  # half a core of other work does not take a core away
    assert gov.advise() is None
    clock.tick(others=2.7, own=4.0)
    assert gov.advise() == 1  # ~3 cores taken: one left
    clock.tick(others=8.0, own=1.0)
    assert gov.advise() is None and gov.threads == 1  # never below one


def test_it_waits_for_the_interval_and_keeps_the_count_without_proc() -> None:
    clock = Clock()
    reads: list[float] = []

    def reader() -> Sample:
        reads.append(clock.at)
        return clock()

    gov = ThreadGovernor(2, interval=0.5, reader=reader, clock=lambda: clock.at)
    clock.tick(others=2.0, own=0.0, seconds=0.1)
    assert gov.advise() is None and reads == [0.0]  # too soon to tell: /proc is not even read
    clock.tick(others=2.0, own=0.0, seconds=0.5)
    assert gov.advise() == 1 and len(reads) == 2
    blind = ThreadGovernor(2, reader=lambda: None)
    assert blind.advise() is None and blind.threads == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_read_sample_sees_a_busy_process() -> None:
    gov = ThreadGovernor(1, interval=0.2)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.6)
        now = read_sample()
        assert now is not None
        others = gov.others(now)
    finally:
        busy.kill()
        busy.wait()
    assert others is not None and others >= 0.5  # the busy loop held most of a core


def test_the_model_switches_threads_between_tokens(smollm2) -> None:  # type: ignore[no-untyped-def]
    """A real llama.cpp context: the governor's advice reaches llama_set_n_threads mid-generation."""
    import llama_cpp

    messages = [Message("system", "You are terse."), Message("user", "Count from one to twenty in words.")]
    params = GenParams(max_tokens=40)
    quiet = smollm2.complete(messages, params)
    clock = Clock()
    seen: list[int] = []
    saved = smollm2._governor
    smollm2._governor = ThreadGovernor(2, interval=0.0, reader=clock, clock=lambda: clock.at)
    original = smollm2._governor.advise

    def advise() -> int | None:
        clock.tick(others=1.0 if len(seen) < 3 else 0.0, own=1.0)  # busy for 3 looks, then quiet
        advice = original()
        seen.append(int(llama_cpp.llama_n_threads(smollm2.raw.ctx)))
        return advice

    smollm2._governor.advise = advise  # type: ignore[method-assign]
    changes = smollm2.thread_changes
    try:
        busy = smollm2.complete(messages, params)
    finally:
        smollm2._governor = saved
    # (the text may differ from the quiet run's: another thread count sums in another order, a near tie can flip)
    assert busy.completion_tokens > 5 and len(seen) > 5, (quiet.text, busy.text)  # one look, then one per token
    assert smollm2.thread_changes - changes == 2  # down to 1, back to 2
    assert 1 in seen and seen[-1] == 2
