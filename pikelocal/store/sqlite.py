"""apsw's connection type and the errors the store's modules catch: a leaf (it imports apsw and nothing of
pikelocal), so :mod:`pikelocal.store.db` and :mod:`pikelocal.store.damage` both read them without importing each
other. :mod:`pikelocal.store.db` re-exports them and stays the one place that opens a connection."""

from __future__ import annotations

import apsw

Connection = apsw.Connection
SQLError = apsw.Error  # base of every apsw error, for the other store modules to catch
ConstraintError = apsw.ConstraintError
BusyError = apsw.BusyError
FullError = apsw.FullError  # SQLITE_FULL: the disk (or the file system's quota) is full
# A page SQLite could not read (or, in an encrypted file, not decrypt): the file is damaged.
DAMAGE_ERRORS: tuple[type[apsw.Error], ...] = (apsw.CorruptError, apsw.NotADBError)
