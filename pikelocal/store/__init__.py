"""The knowledge base: one SQLite file (apsw + sqlite-vec + FTS5).

``store.Store`` is the class the rest of pikelocal uses; ``db`` owns connections (the only apsw /
sqlite_vec import), ``schema`` the ordered migrations, ``fts`` the CJK-aware text for FTS5 (pure),
``vectors`` vector blobs and KNN helpers, ``records`` the frozen rows crossing the boundary,
``checks`` counts and integrity checks. Nothing is imported here, so ``fts`` stays importable without apsw.
"""
