"""pypdf's log while pikelocal reads a PDF: counted per document, the first few quoted, all of it at DEBUG.

pypdf logs each repair of a broken file as a warning on the ``pypdf`` logger; one PDF with broken dictionaries
gave 16,506 lines (825 KB) on the terminal. While a PDF is read, those records reach only this module's
handler (the ``pypdf`` logger's ``propagate`` is off meanwhile) and become one warning line of the document.
pypdf's ``warnings.warn`` calls are deprecations only, hidden by Python's default filters.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

PDF_PROBLEMS_SHOWN = 3  # pypdf's complaints about one PDF quoted in its warning; all are logged at DEBUG


@dataclass
class PdfProblems:
    """What pypdf logged while one PDF was read: counted, the first few kept."""

    count: int = 0
    first: list[str] = field(default_factory=list)

    def add(self, record: logging.LogRecord) -> None:
        message = _log_debug(record)
        if record.levelno >= logging.WARNING:
            self.count += 1
            if len(self.first) < PDF_PROBLEMS_SHOWN:
                self.first.append(message[:160])

    def warning(self, path: Path) -> str:
        more = " …" if self.count > len(self.first) else ""
        return (
            f"{path}: {self.count:,} problem(s) in the PDF's structure, worked around by pypdf (text may be"
            f" incomplete): {'; '.join(self.first)}{more}"
        )


class _PypdfHandler(logging.Handler):
    """Takes pypdf's log records while pikelocal reads a PDF: to the reading thread's :class:`PdfProblems`."""

    def emit(self, record: logging.LogRecord) -> None:
        problems: PdfProblems | None = getattr(_reading, "problems", None)
        if problems is not None:
            problems.add(record)
        else:  # another thread's pypdf work while ours is on: keep it out of the terminal as well
            _log_debug(record)


def _log_debug(record: logging.LogRecord) -> str:
    """Write a pypdf record to this module's log at DEBUG; returns its message on one line."""
    try:
        message = " ".join(record.getMessage().split())
    except Exception:  # a record whose arguments do not fit its format
        message = " ".join(str(record.msg).split())
    log.debug("pypdf %s: %s", record.levelname.lower(), message)
    return message


_reading = threading.local()
_handler = _PypdfHandler(logging.DEBUG)
_handler_lock = threading.Lock()
_handler_users = 0
_propagate_before = True


@contextmanager
def pypdf_log() -> Iterator[PdfProblems]:
    """Route the ``pypdf`` logger's records into a :class:`PdfProblems` for the duration."""
    global _handler_users, _propagate_before
    logger = logging.getLogger("pypdf")
    with _handler_lock:
        if _handler_users == 0:
            _propagate_before = logger.propagate
            logger.addHandler(_handler)
            logger.propagate = False
        _handler_users += 1
    problems = PdfProblems()
    _reading.problems = problems
    try:
        yield problems
    finally:
        _reading.problems = None
        with _handler_lock:
            _handler_users -= 1
            if _handler_users == 0:
                logger.removeHandler(_handler)
                logger.propagate = _propagate_before
