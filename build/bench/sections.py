"""Replace one marked section of docs/BENCHMARKS.md (between its begin and end markers), leaving the rest alone."""

from __future__ import annotations

from pathlib import Path


def write_section(out: Path, begin: str, end: str, section: str) -> None:
    """``section`` must start with ``begin`` and end with ``end``; it replaces the old one or is appended."""
    text = out.read_text(encoding="utf-8") if out.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        text = text.split(begin)[0] + section + text.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    out.write_text(text, encoding="utf-8")
