"""What a screen asks of the App, as textual messages: the screens post them and the App handles them (they bubble
from the screen to the App), so no screen calls into the App's job machinery.

``StartJob`` runs work in a thread; the App answers the screen with ``JobStarted`` (posted before the work's first
event, so the screen clears its view first) or, when a job of that name still runs, with a warning and no answer.
``CancelJob`` asks a running job to stop at its next safe point. ``ShowTrace`` reopens a past question on the ask
screen.
"""

from __future__ import annotations

from textual.message import Message
from textual.message_pump import MessagePump

from pikelocal.tui.jobs import Work


class StartJob(Message):
    """Run ``work`` in a thread as job ``job``; its events, result or error (:mod:`pikelocal.tui.jobs`) and the
    ``JobStarted`` answer arrive at ``receiver``. ``detail`` comes back in ``JobStarted`` for the screen's own use."""

    def __init__(self, job: str, work: Work, receiver: MessagePump, detail: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.job, self.work, self.receiver, self.detail = job, work, receiver, detail


class JobStarted(Message):
    """The App started job ``job`` (its ``StartJob.detail`` with it)."""

    def __init__(self, job: str, detail: tuple[str, ...]) -> None:
        super().__init__()
        self.job, self.detail = job, detail


class CancelJob(Message):
    """Stop job ``job`` at its next safe point (what had finished is kept)."""

    def __init__(self, job: str) -> None:
        super().__init__()
        self.job = job


class ShowTrace(Message):
    """Reopen past question ``trace_id`` on the ask screen."""

    def __init__(self, trace_id: int) -> None:
        super().__init__()
        self.trace_id = trace_id
