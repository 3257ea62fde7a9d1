"""pikelocal: local-first, air-gapped document question answering (PIKE-RAG) in one SQLite file."""

__version__ = "0.1.0"
