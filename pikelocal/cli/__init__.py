"""Command line: `pikelocal …`, one module per command family, all registered on the group in ``app``.

Front-end code: imports :mod:`pikelocal.api` and :mod:`pikelocal.domain` only (checked by the import contracts).
"""

from pikelocal.cli.app import cli, main

__all__ = ["cli", "main"]
