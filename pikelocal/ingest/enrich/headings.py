"""Where headings begin in a document's text, so that a value can be shown under the nearest one above it.

Heading lines follow the splitter's own grammar (``ingest.split.split_struct.marker``); a chunk's section path names
headings no line shows. Used by the statements of a document (``statements.py``) and so by the key-figures sheet.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.ingest.split.split_struct import marker
from pikelocal.text.sentences import line_spans

HEADING_MAX = 40  # characters: a heading line this short is named whole; a longer one (a clause) by its number
_ARTICLE_LEVEL = 4  # 编 章 节 条: a heading even with its text on the same line


class HeadingMarks:
    """Where headings begin in the document's text, from two sources: heading lines (the splitter's own grammar,
    ``ingest.split.split_struct.marker``: Markdown ``#`` lines, 第N章/节/条, short numbered headings) and chunk starts
    (their section path's last name, for headings no line shows). The heading at an offset is that of the last
    heading line at or before it, unless a chunk starting after that line names a section the line does not.

    A chunk's ``section_path`` is the path where the chunk *starts*, and the splitter puts several short sections in
    one chunk, so a heading line met inside the chunk before the value wins over the chunk's own path."""

    def __init__(self, pages: Sequence[PageRecord], chunks: Sequence[ChunkRecord]) -> None:
        lines = sorted((page.char_start + a, name) for page in pages for a, name in _heading_lines(page.text))
        starts = sorted((c.char_start, c.section_path[-1]) for c in chunks if c.section_path)
        self._lines, self._line_at = [n for _o, n in lines], [o for o, _n in lines]
        self._chunks, self._chunk_at = [n for _o, n in starts], [o for o, _n in starts]

    def at(self, offset: int) -> str:
        i = bisect_right(self._line_at, offset) - 1
        j = bisect_right(self._chunk_at, offset) - 1
        line = self._lines[i] if i >= 0 else ""
        if j < 0 or (i >= 0 and self._line_at[i] >= self._chunk_at[j]):
            return line
        chunk = self._chunks[j]
        return line if line and _squash(line).startswith(_squash(chunk)) else chunk


def _heading_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, heading) of each line of a page that is a heading by the splitter's grammar. A short line is named
    whole ("第十条 投标保证金"); a numbered clause with its text on the line by its label ("第十条")."""
    for a, b in line_spans(text):
        line = text[a:b]
        found = marker(line)
        if found is None or not found[1]:
            continue
        body = line.strip().lstrip("#").strip()
        level, label = found
        if len(body) <= HEADING_MAX and "。" not in body:
            yield a, body
        elif level <= _ARTICLE_LEVEL or line.lstrip().startswith("#"):
            yield a, label


def _squash(text: str) -> str:
    return "".join(text.split())
