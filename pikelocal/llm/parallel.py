"""Fan a batch of LLM requests out over ``llm.max_parallel`` threads, results in input order."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from pikelocal.llm.base import LLM, Completion, GenParams, Message

log = logging.getLogger(__name__)

Request = tuple[Sequence[Message], GenParams]


def complete_many(
    llm: LLM,
    requests: Sequence[Request],
    on_done: Callable[[int, Completion], None] | None = None,
) -> list[Completion]:
    """Run ``llm.complete`` on every request; return the completions in the order of ``requests``.

    ``on_done(index, completion)`` is called in the calling thread as each request finishes (in
    finishing order), so callbacks need not be thread-safe; a stage can store each result the
    moment it arrives. The first exception is re-raised after the requests not yet started are
    cancelled; requests already running finish in the background (their results still reach a
    :class:`~pikelocal.llm.cached.CachedLLM`, so nothing paid for is lost).
    With ``max_parallel == 1`` (in-process llama.cpp) the requests run one by one in this thread.
    """
    workers = max(1, min(int(llm.max_parallel), len(requests)))
    if workers == 1:
        results: list[Completion] = []
        for i, (messages, params) in enumerate(requests):
            completion = llm.complete(messages, params)
            results.append(completion)
            if on_done is not None:
                on_done(i, completion)
        return results

    slots: list[Completion | None] = [None] * len(requests)
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pikelocal-llm")
    try:
        index: dict[Future[Completion], int] = {
            pool.submit(llm.complete, messages, params): i for i, (messages, params) in enumerate(requests)
        }
        pending: set[Future[Completion]] = set(index)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)  # report each as it lands
            # Report successes before raising, in input order within this batch of finished ones.
            for future in sorted(done, key=index.__getitem__):
                if future.exception() is None:
                    slots[index[future]] = completion = future.result()
                    if on_done is not None:
                        on_done(index[future], completion)
            for future in sorted(done, key=index.__getitem__):
                error = future.exception()
                if error is not None:
                    log.debug("request %d of %d failed; cancelling the rest", index[future], len(requests))
                    raise error
    finally:
        # On success everything is done already; on an error or Ctrl-C drop what has not started.
        pool.shutdown(wait=False, cancel_futures=True)
    return [c for c in slots if c is not None]
