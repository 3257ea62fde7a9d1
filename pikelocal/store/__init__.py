"""The knowledge base: one SQLite file (apsw + sqlite-vec + FTS5).

``store.Store`` is the class the rest of pikelocal uses: the file and its connection (open, close,
transactions, snapshots, ``kb_meta``, health). What the file holds is reached through the Store's parts, one
module and one concern each: ``documents`` (``store.docs``: documents, pages, ingestion failures), ``chunks``
(``store.chunks``: chunks and atomic questions), ``index`` (``store.index``: vectors, KNN, full-text search),
``cache`` (``store.cache``: the LLM completion cache), ``enrichment`` (``store.enrichment``: summaries and atoms
to do and their results), ``traces`` (``store.traces``: stored query traces).

The parts take a ``handle.Db`` (the open connection, its lock and transactions: ``rows``, ``one``, ``execute``,
``transaction``), never the Store, so none imports ``store.store`` (an import-linter contract). Below them: ``db``
owns connections (the only apsw / sqlite_vec import), ``schema`` the ordered migrations, ``fts`` the CJK-aware text
for FTS5 (pure), ``vectors`` vector blobs and KNN helpers, ``checks`` counts and integrity checks, ``probe_check``
the encoder-numerics check on open, ``damage`` SQLite's quick_check on open (a damaged file is never written to),
``salvage`` what ``recover`` copies from one. The frozen rows crossing the
boundary live in :mod:`pikelocal.domain.documents`. Nothing is imported here, so ``fts`` stays importable without
apsw.
"""
