"""complete_many: input order, callbacks, real concurrency against a server, first error wins."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest

from pikelocal.domain.errors import BackendError
from pikelocal.llm.base import Completion, GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.llm.openai_compat import OpenAICompatLLM
from pikelocal.llm.parallel import complete_many
from tests.support.standin_server import StandinServer


def _request(i: int, tag: str = "q") -> tuple[tuple[Message, ...], GenParams]:
    return (Message("system", "Answer."), Message("user", f"question {i}")), GenParams(tag=tag, max_tokens=50)


def test_fans_out_against_a_server_in_order(standin: StandinServer) -> None:
    standin.latency_s = 0.3
    llm = OpenAICompatLLM(standin.url, "m", max_parallel=4, timeout_s=10)
    done: list[int] = []
    threads: set[str] = set()

    def on_done(i: int, c: Completion) -> None:
        done.append(i)
        threads.add(threading.current_thread().name)

    results = complete_many(llm, [_request(i) for i in range(8)], on_done=on_done)

    assert [r.text for r in results] == [f"Canned reply to: question {i}" for i in range(8)]
    assert sorted(done) == list(range(8))
    assert threads == {threading.current_thread().name}  # callbacks run in the caller's thread
    assert 2 <= standin.max_active <= 4
    assert len(standin.requests) == 8


def test_one_at_a_time_when_max_parallel_is_1() -> None:
    """The first call stays inside until a second call overlaps it (or 1 s passes): concurrency would show."""
    active, peak = 0, 0
    lock = threading.Lock()
    overlapped = threading.Event()

    def answer(messages, params) -> str:  # noqa: ANN001
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
            first = peak == 1 and messages[-1].content == "question 0"
            if active > 1:
                overlapped.set()
        if first:
            overlapped.wait(1.0)  # a concurrent call sets it at once; one at a time, nothing can
        with lock:
            active -= 1
        return messages[-1].content.upper()

    fake = FakeLLM({"q": answer}, max_parallel=1)
    done: list[int] = []
    results = complete_many(fake, [_request(i) for i in range(5)], on_done=lambda i, c: done.append(i))
    assert [r.text for r in results] == [f"QUESTION {i}" for i in range(5)]
    assert done == [0, 1, 2, 3, 4]
    assert peak == 1 and not overlapped.is_set()


def test_empty_batch() -> None:
    assert complete_many(FakeLLM({}), []) == []


def test_first_error_is_raised_and_the_rest_cancelled() -> None:
    """The "ok" calls hold their workers until the error is out, so only cancelling can keep the rest from running."""
    release = threading.Event()
    fake: FakeLLM

    def boom(messages, params) -> str:  # noqa: ANN001
        raise BackendError("LLM server at http://127.0.0.1:9/v1 did not answer within 1 s")

    def ok(messages, params) -> str:  # noqa: ANN001
        if len(fake.calls) > 3:  # more started than two workers can hold: nothing was cancelled, stop holding
            release.set()
        release.wait(5)
        return "fine"

    fake = FakeLLM({"ok": ok, "boom": boom}, max_parallel=2)
    requests = [_request(0, "boom")] + [_request(i, "ok") for i in range(1, 40)]
    try:
        with pytest.raises(BackendError, match="did not answer"):
            complete_many(fake, requests)
        # boom, then at most one "ok" per worker, each held: the 37 or more queued behind them never ran
        assert len(fake.calls) <= 3, len(fake.calls)
    finally:
        release.set()


def test_on_done_reports_each_request_as_it_finishes() -> None:
    """A fast request is reported while a slow one still runs (progress bars depend on it)."""
    release = threading.Event()
    slow_finished = threading.Event()

    def answer(messages: Sequence[Message], params: GenParams) -> str:
        if messages[-1].content == "slow":
            release.wait(10)
            slow_finished.set()
        return messages[-1].content

    seen: list[tuple[int, bool]] = []

    def on_done(i: int, c: Completion) -> None:
        seen.append((i, slow_finished.is_set()))
        release.set()

    fake = FakeLLM({"t": answer}, max_parallel=2)
    requests = [([Message("user", "slow")], GenParams(tag="t")), ([Message("user", "fast")], GenParams(tag="t"))]
    results = complete_many(fake, requests, on_done=on_done)
    assert [c.text for c in results] == ["slow", "fast"]
    assert seen[0] == (1, False)
