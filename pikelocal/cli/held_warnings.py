"""A reader's warning that its KB is damaged, held until the command ends, so the user reads one line either way.

A command that only reads a damaged KB warns and goes on (most of it usually still reads); when it then meets a
damaged page it fails with a CorruptKBError that names the file, the damage and `pikelocal recover` itself. Printed
at once, the warning made that two lines where a writer, refused before it starts, prints one. Held, it is printed
when the command ends, unless the command failed on the damage: then the error is the one line.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from pikelocal.domain.errors import DAMAGE_LOGGER, CorruptKBError


class _Held(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def damage_warnings_held() -> Iterator[None]:
    """Hold the damage warnings logged inside; on leaving, print them as logging would have, unless the block ends
    with a CorruptKBError (which is not caught here)."""
    logger = logging.getLogger(DAMAGE_LOGGER)
    held, propagate = _Held(), logger.propagate
    logger.addHandler(held)
    logger.propagate = False
    failed_on_damage = False
    try:
        yield
    except CorruptKBError:
        failed_on_damage = True
        raise
    finally:
        logger.removeHandler(held)
        logger.propagate = propagate
        if not failed_on_damage:
            for record in held.records:
                logger.handle(record)
