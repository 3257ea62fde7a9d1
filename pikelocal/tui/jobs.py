"""Long work (answering, ingesting) runs in a thread; its events come back to a screen as messages.

Cancelling sets a flag that the work's event sink checks between units of work (a file, a chunk, an answer
token), so the KB is left as a killed run would leave it: consistent, and resumable.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump

from pikelocal.domain.errors import Cancelled, PikeError
from pikelocal.domain.events import Event, EventSink, cancellable

log = logging.getLogger(__name__)

Work = Callable[[EventSink], Any]


class WorkEvent(Message):
    """A progress, reasoning or answer event from running work."""

    def __init__(self, job: str, event: Event) -> None:
        super().__init__()
        self.job, self.event = job, event


class WorkDone(Message):
    def __init__(self, job: str, result: Any) -> None:
        super().__init__()
        self.job, self.result = job, result


class WorkFailed(Message):
    """The work raised; ``error`` is the one-line reason. ``cancelled`` when the user stopped it."""

    def __init__(self, job: str, error: str, *, cancelled: bool = False) -> None:
        super().__init__()
        self.job, self.error, self.cancelled = job, error, cancelled


@dataclass
class Job:
    name: str
    cancel: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def running(self) -> bool:
        return not self.done.is_set()


def run_job(job: Job, receiver: MessagePump, work: Work) -> None:
    """Run ``work`` (in the calling worker thread) and report to ``receiver``; never raises."""

    def forward(event: Event) -> None:
        receiver.post_message(WorkEvent(job.name, event))  # post_message is thread-safe

    try:
        result = work(cancellable(forward, job.cancel.is_set))
    except Cancelled:
        receiver.post_message(WorkFailed(job.name, "cancelled: what had finished is kept", cancelled=True))
    except PikeError as exc:
        receiver.post_message(WorkFailed(job.name, str(exc)))
    except Exception as exc:  # a bug must not take the app down: say what it was, keep the details in the log
        log.exception("%s failed", job.name)
        receiver.post_message(WorkFailed(job.name, f"unexpected error: {type(exc).__name__}: {exc}"))
    else:
        receiver.post_message(WorkDone(job.name, result))
    finally:
        job.done.set()
