"""Ingestion: parse documents with page and line positions (splitting, headers and embedding come next)."""
