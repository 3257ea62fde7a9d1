"""The terminal UI (Textual): a thin layer over :mod:`pikelocal.api`; textual is imported only here."""
