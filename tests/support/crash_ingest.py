"""The ingest options of tests/ingest/crash_worker.py, shared with the test that resumes its killed runs."""

from __future__ import annotations

from pikelocal.config import Settings
from pikelocal.ingest.pipeline import IngestOptions
from pikelocal.ingest.split.chunking import SplitOptions

SPLIT = SplitOptions(target=40, min_tokens=10, max_tokens=60)
OPTIONS = IngestOptions.from_settings(
    Settings(), split=SPLIT, embed_batch=2, late=True, late_context="off"
)  # as tests/ingest/test_resume.py
