"""The reading child processes (PDF, Word, Excel) this test process started, seen in /proc (Linux), and what the
reading-limit tests share: a small-chunk ingest on the stand-in encoder, one file's outcome, and a fixture that
fails a test leaving a reading process behind."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.events import Event
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import FileOutcome, IngestOptions, Ingestor, IngestReport
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)


def reading_children() -> list[int]:
    """Our reading processes (``pikelocal.ingest.read.pdf_child``), zombies included."""
    mine = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = re.search(r"^PPid:\s*(\d+)", status, re.MULTILINE)
        if parent and int(parent.group(1)) == os.getpid() and b"pikelocal.ingest.read.pdf_child" in cmdline:
            mine.append(int(entry.name))
    return mine


@pytest.fixture(autouse=True)
def no_child_left() -> Iterator[None]:
    """Import it into a test module to check every test there: no reading process outlives its work."""
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to see child processes")
    yield
    assert reading_children() == [], "a reading process outlived its work"


def ingest(
    store: Store, paths: Sequence[Path], sink: Callable[[Event], None] | None = None, **options: object
) -> IngestReport:
    """``paths`` ingested with small chunks, no late vectors and the hash encoder; ``options`` are IngestOptions'."""
    opts = IngestOptions.from_settings(Settings(), **{"split": SMALL, "late": False, **options})
    events: list[Event] = []
    return Ingestor(store, HashEncoder(), opts, sink or events.append).ingest_paths(list(paths))


def outcome_of(report: IngestReport, path: Path) -> FileOutcome:
    (outcome,) = [o for o in report.outcomes if o.path == str(path.resolve())]
    return outcome
