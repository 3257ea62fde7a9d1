"""The key-figures sheet: every amount, date, duration and percentage of a document with the
sentence that holds it, its page and lines, and the nearest heading above it. Made from the stored pages and chunks
with no model, so it is ready the moment a document is ingested.

Lines are numbered as citations number them: 1-based on the page, from ``PageRecord.line_offsets``
(``ingest/read/positions.py``, ``query/verify/support.position_in_pages``). Each page is read on its own, because a
``Located`` names one page: a sentence that runs over a page break is cut there.

The heading is the nearest one above the value. A chunk's ``section_path`` is the path where the chunk *starts*,
and the splitter puts several short sections in one chunk, so a heading line met inside the chunk before the value
(by the splitter's own grammar of headings) wins over the chunk's own path.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.review import KeyFigure, Located
from pikelocal.ingest.split.split_struct import marker
from pikelocal.text.values import FIGURE_KINDS, is_traditional, values_in

# A sentence ends at these marks (with any closing quote or bracket after them) …
_STOP = re.compile(r"[。！？；!?;]+[」』”’\"')）]*")
# … at a full stop before a space, unless it closes an abbreviation or a list number ("No. 5", "Dr. ", "1. ") …
_PERIOD = re.compile(r"\.(?=\s|$)")
_ABBREVIATION = re.compile(
    r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|No|Nos|Co|Inc|Ltd|Pty|cl|Cl|art|Art|para|vol|pp|etc|e\.g|i\.e|vs|[A-Z])$"
)
_LIST_NUMBER = re.compile(r"[ \t]*(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})")  # "1." "a." "iv." at a line start
# … and at a line end, unless the line is wrapped prose: a line this wide (a CJK character counts two) without a
# closing mark runs on into the next one. A heading, table row or list item is a line of its own.
WRAPPED_WIDTH = 48
_LINE_CLOSES = "。！？；!?;：:"
_BLOCK_LINE = re.compile(
    r"#|\||[-*•·][ \t]|\d{1,2}(?:\.\d{1,2})+\.?[ \t]|\d{1,2}[.)）][ \t]|\d{1,2}、"
    r"|[（(][\d一二三四五六七八九十]{1,3}[)）]|[一二三四五六七八九十]{1,3}、|第[一二三四五六七八九十百零〇\d]{1,6}[章节節条條款部篇]"
)
SENTENCE_LIMIT = 240  # characters: a longer "sentence" (a table, unpunctuated text) is cut to the value's clause
_CLAUSE_MARK = re.compile(r"[，、：；]|[,:;](?=\s)")
_WINDOW = 100  # characters either side of the value when even its clause is too long
_CJK = r"\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t]*\r?\n[ \t]*(?=[{_CJK}])")
_SAMPLE = 20_000  # characters read to judge the script
HEADING_MAX = 40  # characters: a heading line this short is named whole; a longer one (a clause) by its number
_ARTICLE_LEVEL = 4  # 编 章 节 条: a heading even with its text on the same line


def key_figures(title: str, doc_id: int, pages: Sequence[PageRecord], chunks: Sequence[ChunkRecord]) -> list[KeyFigure]:
    """Every amount, date, duration and percentage of one document, in document order, each with its sentence,
    page (None for a document without pages: its chunks have no page), lines and nearest heading."""
    ordered = sorted(pages, key=lambda p: p.page_no)
    unpaged = bool(chunks) and all(c.page_start is None for c in chunks)
    traditional = is_traditional(_opening(ordered))
    headings = _HeadingMarks(ordered, chunks)
    figures: list[KeyFigure] = []
    for page in ordered:
        spans = sentence_spans(page.text)
        starts = [s for s, _e in spans]
        for start, end, value in values_in(page.text, FIGURE_KINDS, traditional=traditional):
            s0, s1 = _sentence_around(page.text, spans, starts, start, end)
            first, last = _line_no(page, s0), _line_no(page, max(s0, s1 - 1))
            where = Located(doc_id, title, None if unpaged else page.page_no, first, last)
            sentence = clean_sentence(page.text[s0:s1])
            figures.append(KeyFigure(value, sentence, where, headings.at(page.char_start + start)))
    return figures


def _opening(pages: Sequence[PageRecord]) -> str:
    """The document's first ``_SAMPLE`` characters: enough to tell a Taiwanese text (ROC years) from another."""
    parts: list[str] = []
    size = 0
    for page in pages:
        if size >= _SAMPLE:
            break
        parts.append(page.text[: _SAMPLE - size])
        size += len(parts[-1])
    return "".join(parts)


def group_by_heading(figures: Iterable[KeyFigure]) -> list[tuple[str, list[KeyFigure]]]:
    """The figures in runs under one heading, in document order. A run ends where the heading or the document
    changes, so two sections that share a name ("说明" in two chapters) stay two groups, each in its place."""
    groups: list[tuple[str, list[KeyFigure]]] = []
    last: tuple[int, str] | None = None
    for figure in figures:
        key = (figure.where.doc_id, figure.heading)
        if key != last:
            groups.append((figure.heading, []))
            last = key
        groups[-1][1].append(figure)
    return groups


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The [start, end) spans of a page's sentences, without surrounding whitespace. A sentence ends at 。！？；;
    ! ?, at a full stop before a space (not after an abbreviation or list number), and at a line end unless the
    line is wrapped prose (see ``WRAPPED_WIDTH``)."""
    cuts = {m.end() for m in _STOP.finditer(text)}
    cuts |= {m.end() for m in _PERIOD.finditer(text) if not _closes_abbreviation(text, m.start())}
    lines = _lines(text)
    for i, (a, b) in enumerate(lines):
        following = text[lines[i + 1][0] : lines[i + 1][1]] if i + 1 < len(lines) else None
        if _line_ends_sentence(text[a:b], following):
            cuts.add(b)
    bounds = sorted({0, len(text), *cuts})
    spans: list[tuple[int, int]] = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            spans.append((a, b))
    return spans


def clean_sentence(text: str) -> str:
    """A sentence as one line: a break between two CJK characters is dropped (PDF lines break mid-word), any other
    run of whitespace is one space."""
    return " ".join(_CJK_BREAK.sub("", text).split())


def _closes_abbreviation(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    before = text[max(line_start, at - 12) : at]
    return _ABBREVIATION.search(before) is not None or _LIST_NUMBER.fullmatch(text, line_start, at) is not None


def _lines(text: str) -> list[tuple[int, int]]:
    """Each line's [start, end), line break excluded."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"\r?\n", text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def _width(line: str) -> int:
    return sum(2 if "\u2e80" <= c <= "\uffef" else 1 for c in line)


def _line_ends_sentence(line: str, following: str | None) -> bool:
    """Whether a line end closes the sentence: at a blank or last line, after a closing mark, at a heading, table
    row or list item (this line or the next), and after a short line (a title, a label, a paragraph's last line)."""
    body = line.strip()
    after = following.strip() if following is not None else ""
    if not body or not after or body[-1] in _LINE_CLOSES:
        return True
    if _BLOCK_LINE.match(body) or _BLOCK_LINE.match(after):
        return True
    return _width(body) < WRAPPED_WIDTH


def _sentence_around(
    text: str, spans: Sequence[tuple[int, int]], starts: Sequence[int], start: int, end: int
) -> tuple[int, int]:
    """The sentence (or sentences: a value cut by a line end, "15\\n日") holding [start, end), narrowed to the
    value's clause when it is longer than ``SENTENCE_LIMIT``."""
    i = max(0, bisect_right(starts, start) - 1)
    s0, s1 = spans[i] if spans else (start, end)
    while i + 1 < len(spans) and spans[i + 1][0] < end:
        i += 1
        s1 = spans[i][1]
    s0, s1 = min(s0, start), max(s1, end)
    if s1 - s0 <= SENTENCE_LIMIT:
        return s0, s1
    lo, hi = max(s0, start - SENTENCE_LIMIT), min(s1, end + SENTENCE_LIMIT)  # read no further: a page may be one line
    c0 = max((m.end() for m in _CLAUSE_MARK.finditer(text, lo, start)), default=lo)
    c1 = next((m.start() for m in _CLAUSE_MARK.finditer(text, end, hi)), hi)
    if c1 - c0 > SENTENCE_LIMIT:
        c0, c1 = max(c0, start - _WINDOW), min(c1, end + _WINDOW)
    while c0 < start and text[c0].isspace():
        c0 += 1
    return c0, c1


def _line_no(page: PageRecord, offset: int) -> int:
    """The 1-based line of ``offset`` on its page, as citations count (``line_offsets`` are the line starts)."""
    if not page.line_offsets:
        return page.text.count("\n", 0, offset) + 1
    return max(0, bisect_right(page.line_offsets, offset) - 1) + 1


class _HeadingMarks:
    """Where headings begin in the document's text, from two sources: heading lines (the splitter's own grammar,
    ``ingest.split.split_struct.marker``: Markdown ``#`` lines, 第N章/节/条, short numbered headings) and chunk starts
    (their section path's last name, for headings no line shows). The heading at an offset is that of the last
    heading line at or before it, unless a chunk starting after that line names a section the line does not."""

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
    for a, b in _lines(text):
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
