"""Ingestion: ``read`` files with page and line positions, ``split`` them into chunks with contextual headers,
``enrich`` the chunks (early and late vectors, document summaries, atomic questions, summary trees); ``pipeline``
runs the ingest stages (FTS5 rows included), each resumable."""
