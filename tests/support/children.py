"""The reading child processes (PDF, Word, Excel) this test process started, seen in /proc (Linux)."""

from __future__ import annotations

import os
import re
from pathlib import Path


def reading_children() -> list[int]:
    """Our reading processes (``pikelocal.ingest.pdf_child``), zombies included."""
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
        if parent and int(parent.group(1)) == os.getpid() and b"pikelocal.ingest.pdf_child" in cmdline:
            mine.append(int(entry.name))
    return mine
