"""One text per document, and the map from its character offsets back to (page, line).

Pages are joined with a single newline (none when a page already ends with one), so every page's text
stands unchanged at a known offset and a chunk's character span maps exactly to its pages and lines.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.ingest.read.parse import ParsedPage


@dataclass(frozen=True)
class Position:
    page_no: int  # 1-based, as printed in citations
    line_no: int  # 1-based within the page


@dataclass(frozen=True)
class DocumentText:
    text: str
    page_nos: tuple[int, ...]
    page_starts: tuple[int, ...]  # offset of each page's first character in ``text``
    line_starts: tuple[tuple[int, ...], ...]  # per page: offsets (in ``text``) of its line starts

    @classmethod
    def from_pages(cls, pages: Sequence[ParsedPage]) -> DocumentText:
        parts: list[str] = []
        starts: list[int] = []
        lines: list[tuple[int, ...]] = []
        offset = 0
        for i, page in enumerate(pages):
            if i and not parts[-1].endswith("\n"):
                parts.append("\n")
                offset += 1
            starts.append(offset)
            lines.append(tuple(offset + o for o in page.line_offsets))
            parts.append(page.text)
            offset += len(page.text)
        return cls("".join(parts), tuple(p.page_no for p in pages), tuple(starts), tuple(lines))

    def position(self, offset: int) -> Position:
        """The page and line holding character ``offset`` (a joining newline counts to the page before)."""
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} outside the text (length {len(self.text)})")
        page = max(0, bisect_right(self.page_starts, offset) - 1)
        line = max(0, bisect_right(self.line_starts[page], offset) - 1)
        return Position(self.page_nos[page], line + 1)

    def span(self, start: int, end: int) -> tuple[Position, Position]:
        """First and last position of the non-empty span [start, end), ignoring trailing whitespace."""
        last = end - 1
        while last > start and self.text[last].isspace():
            last -= 1
        first = start
        while first < last and self.text[first].isspace():
            first += 1
        return self.position(first), self.position(last)
