"""Citation markers in an answer: keep the [n] that name a source, remove (and count) the rest, while streaming.

A marker is ``[3]``, ``[1, 2]``, ``[1][2]`` or the full-width ``【3】``; valid numbers are rewritten as ``[1][2]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARKER = re.compile(r"\s?[\[【]\s*(\d{1,3}(?:\s*[,，、;]\s*\d{1,3})*)\s*[\]】]")
_OPENERS = "[【"
_HOLD_MAX = 24  # an opener further back than this is not the start of a marker


@dataclass
class CitationFilter:
    """Feed answer deltas, get text safe to show: complete markers checked, a half-written one held back."""

    n_sources: int
    cited: list[int] = field(default_factory=list)
    removed: int = 0
    _pending: str = ""

    def feed(self, delta: str) -> str:
        text = self._pending + delta
        cut = _hold_from(text)
        self._pending = text[cut:]
        return self._clean(text[:cut])

    def finish(self) -> str:
        text, self._pending = self._pending, ""
        return self._clean(text)

    def _clean(self, text: str) -> str:
        return MARKER.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(1))]
        valid = [n for n in numbers if 1 <= n <= self.n_sources]
        self.removed += len(numbers) - len(valid)
        for n in valid:
            if n not in self.cited:
                self.cited.append(n)
        if not valid:
            return ""
        space = " " if match.group(0)[0].isspace() else ""
        return space + "".join(f"[{n}]" for n in dict.fromkeys(valid))


def _hold_from(text: str) -> int:
    """Where a possibly unfinished marker starts (len(text) when there is none)."""
    start = max(text.rfind(o) for o in _OPENERS)
    if start < 0 or len(text) - start > _HOLD_MAX or any(c in text[start:] for c in "]】"):
        start = len(text)
    if start > 0 and text[start - 1].isspace():  # hold a space too, so a marker removed later takes it along
        start -= 1
    return start


def clean_citations(text: str, n_sources: int) -> tuple[str, tuple[int, ...], int]:
    """The text with invalid markers removed, the cited numbers in order of first use, and how many were removed."""
    f = CitationFilter(n_sources)
    out = f.feed(text) + f.finish()
    return out, tuple(f.cited), f.removed


def strip_citations(text: str) -> str:
    """The answer without any markers (for scoring against a benchmark's gold answer)."""
    return " ".join(MARKER.sub("", text).split())
