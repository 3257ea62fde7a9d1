"""Fan work out over threads (an HTTP server serves several requests at once), results in input order."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import TypeVar

from pikelocal.llm.base import LLM, Completion, GenParams, Message

log = logging.getLogger(__name__)

Request = tuple[Sequence[Message], GenParams]
A = TypeVar("A")
R = TypeVar("R")


def parallel_map(
    fn: Callable[[A], R],
    items: Sequence[A],
    *,
    workers: int,
    on_done: Callable[[int, R], None] | None = None,
) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``workers`` threads; ``on_done(index, result)`` as each finishes.

    ``on_done`` is called in the calling thread (in finishing order), so callbacks need not be thread-safe and
    a stage can store each result the moment it arrives. The first exception is re-raised after the items not
    yet started are cancelled; items already running finish in the background (an LLM result still reaches a
    :class:`~pikelocal.llm.cached.CachedLLM`, so nothing paid for is lost). With one worker everything runs
    in this thread, one by one.
    """
    workers = max(1, min(int(workers), len(items)))
    if workers == 1:
        results: list[R] = []
        for i, item in enumerate(items):
            result = fn(item)
            results.append(result)
            if on_done is not None:
                on_done(i, result)
        return results

    slots: list[R | None] = [None] * len(items)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pikelocal-llm")
    try:
        index: dict[Future[R], int] = {pool.submit(fn, item): i for i, item in enumerate(items)}
        pending: set[Future[R]] = set(index)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)  # report each as it lands
            # Report successes before raising, in input order within this batch of finished ones.
            for future in sorted(done, key=index.__getitem__):
                if future.exception() is None:
                    slots[index[future]] = result = future.result()
                    if on_done is not None:
                        on_done(index[future], result)
            for future in sorted(done, key=index.__getitem__):
                error = future.exception()
                if error is not None:
                    log.debug("item %d of %d failed; cancelling the rest", index[future], len(items))
                    raise error
    finally:
        # On success everything is done already; on an error or Ctrl-C drop what has not started.
        pool.shutdown(wait=False, cancel_futures=True)
    return [r for r in slots if r is not None]


def complete_many(
    llm: LLM,
    requests: Sequence[Request],
    on_done: Callable[[int, Completion], None] | None = None,
) -> list[Completion]:
    """Run ``llm.complete`` on every request, ``llm.max_parallel`` at a time (see :func:`parallel_map`)."""
    return parallel_map(lambda r: llm.complete(*r), requests, workers=llm.max_parallel, on_done=on_done)
