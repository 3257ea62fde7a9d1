"""Ingestion: parse files with page and line positions, split, add chunk headers, embed (early and late vectors,
FTS5), and enrich (document summaries, atomic questions) — each stage resumable."""
