"""The terminal UI (Textual): a thin layer over :mod:`pikelocal.knowledge_base`; textual is imported only here."""
