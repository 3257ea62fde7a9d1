"""The knowledge base behind :mod:`pikelocal.api`: the :class:`KnowledgeBase` object and its private helpers.

Front ends reach it only through ``pikelocal.api.open_kb``; ``eval`` and ``demo`` use the same function.
"""
