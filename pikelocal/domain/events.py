"""Events long-running work reports to its caller (CLI progress bars, the TUI): no printing in library code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pikelocal.domain.kinds import NoticeLevel, StepKind


@dataclass(frozen=True)
class StageStarted:
    stage: str  # "parse", "embed", "late", ...
    total: int  # units of work (see ``unit``); 0 when there is nothing to do
    unit: str  # "files", "chunks", "tokens"


@dataclass(frozen=True)
class StageAdvanced:
    stage: str
    done: int  # units finished in this stage so far
    total: int
    detail: str = ""  # e.g. the file being read


@dataclass(frozen=True)
class StageFinished:
    stage: str
    done: int
    seconds: float


@dataclass(frozen=True)
class Notice:
    """A one-line message worth showing now: a failed file, a warning about garbled text."""

    level: NoticeLevel
    message: str
    path: str | None = None  # the file it is about, when it is about one


@dataclass(frozen=True)
class ReasoningStep:
    """One step of the decomposition loop, as it happens (for a live reasoning view)."""

    round: int
    kind: StepKind
    text: str


@dataclass(frozen=True)
class AnswerDelta:
    """A piece of the answer text as it is generated (citation markers already checked)."""

    text: str


Event = StageStarted | StageAdvanced | StageFinished | Notice | ReasoningStep | AnswerDelta
EventSink = Callable[[Event], None]


def ignore(_: Event) -> None:
    """An EventSink that drops everything."""


def cancellable(sink: EventSink, is_cancelled: Callable[[], bool]) -> EventSink:
    """``sink`` that raises :class:`~pikelocal.domain.errors.Cancelled` once ``is_cancelled()`` is true.

    Work reports events between its units (a file, a chunk, an answer token), never inside a write
    transaction, so stopping there leaves the KB as a killed run would: consistent and resumable.
    """
    from pikelocal.domain.errors import Cancelled

    def checked(event: Event) -> None:
        if is_cancelled():
            raise Cancelled("cancelled")
        sink(event)

    return checked
