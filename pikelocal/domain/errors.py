"""Error tree. ``str(err)`` is always the one-line message shown to the user.

The CLI turns any :class:`PikeError` into ``Error: <message>`` and the class's ``exit_code``;
tracebacks are shown only with ``--debug``.
"""

from __future__ import annotations

import re

from pikelocal.domain.shown import shown_name

# A line break, tab or other whitespace that is not a plain space, with the blanks around it: one space in a
# message. Plain spaces are kept as they are (a file name may hold two in a row).
_BREAKS = re.compile(r"\s*[^\S ]\s*")


class PikeError(Exception):
    """Base of every error meant for the user; the message names the file, URL or setting."""

    exit_code: int = 1

    def __str__(self) -> str:  # keep it on one line whatever the cause said
        return _BREAKS.sub(" ", super().__str__()).strip()


class ConfigError(PikeError):
    """A setting is unknown, malformed or contradictory."""

    exit_code = 2


class ModelError(PikeError):
    """A model file is missing, truncated, corrupt or fails its checksum."""

    exit_code = 3


class BackendError(PikeError):
    """An LLM backend failed: server down, timeout, garbage reply."""

    exit_code = 4


class StoreError(PikeError):
    """The knowledge-base file cannot be used: not SQLite, a directory, wrong schema."""

    exit_code = 5


class CorruptKBError(StoreError):
    """The KB file is damaged (SQLite's quick_check or a read found it): it is never written to; what SQLite can still
    read is copied to a new KB with `pikelocal recover KB NEW`."""


# The logger of a reader's one warning that its KB is damaged (store/damage.py). A front end may hold that line until
# the command ends: when the command then fails on the damage, its CorruptKBError says it all in one line.
DAMAGE_LOGGER = "pikelocal.store.damage"


class DiskFullError(StoreError):
    """The disk (or quota) holding the KB, or a report being written, is full: the batch stops, since every next write
    would fail too."""


class EncoderMismatchError(StoreError):
    """The KB was built with another encoder than the one configured."""


class EncoderNumericsError(EncoderMismatchError):
    """Same encoder id, other numbers: the KB's stored probe vectors disagree with this encoder build's."""


class InputError(PikeError):
    """A document or argument given by the user cannot be used."""

    exit_code = 6


class DocumentError(InputError):
    """A document that cannot be ingested. ``reason`` is a short code for summaries and the KB's record:
    encrypted, image-only, empty, corrupt, unsupported, unreadable, vanished.

    The path is shown as every file name is (:func:`~pikelocal.domain.shown.shown_name`: a newline as ``\n``), so a
    failure line names the file as ``docs`` lists it, not with its controls folded into spaces."""

    def __init__(self, path: object, reason: str, detail: str) -> None:
        super().__init__(f"{shown_name(str(path))}: {detail}")
        self.path = path
        self.reason = reason
        self.detail = detail


class ChecklistError(InputError):
    """A review checklist (a TOML file or a built-in name) that cannot be used; the message is one line naming the
    file and line, ``mylist.toml:14: item "bond": kind "money" is not one of …``, so the user can fix it at once."""


class Cancelled(PikeError):
    """The user cancelled running work; what had finished is kept, the rest runs again next time."""

    exit_code = 130
