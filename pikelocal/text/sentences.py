"""Sentences of a page as a reader cuts them: at sentence marks, at a full stop before a space, and at a line end
unless the line is wrapped prose (PDF text breaks Chinese prose mid-clause; a heading, table row or list item is a
line of its own). The key-figures sheet and the statements of a document (``ingest/enrich/statements.py``) read
values in these sentences, so both quote the same text.

Pure functions over one page's text; offsets are the page's.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

# A sentence ends at these marks (with any closing quote or bracket after them) …
_STOP = re.compile(r"[。！？；!?;]+[」』”’\"')）]*")
# … at a full stop before a space, unless it closes an abbreviation or a list number ("No. 5", "Dr. ", "1. ") …
_PERIOD = re.compile(r"\.(?:\*\*)?(?=\s|$)")  # "**Fees.** The maintenance fee …": after the bold's end
_ABBREVIATION = re.compile(
    r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|No|Nos|Co|Inc|Ltd|Pty|cl|Cl|art|Art|para|vol|pp|etc|e\.g|i\.e|vs|[A-Z])$"
)
_LIST_NUMBER = re.compile(r"[ \t]*(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})")  # "1." "a." "iv." at a line start
# … and at a line end, unless the line is wrapped prose: a line this wide (a CJK character counts two) without a
# closing mark runs on into the next one. A heading, table row or list item is a line of its own.
WRAPPED_WIDTH = 48
_LINE_CLOSES = "。！？；!?;：:"
BLOCK_LINE = re.compile(
    r"#|\||[-*•·][ \t]|\d{1,2}(?:\.\d{1,2})+\.?[ \t]|\d{1,2}[.)）][ \t]|\d{1,2}、"
    r"|[（(][\d一二三四五六七八九十]{1,3}[)）]|[一二三四五六七八九十]{1,3}、|第[一二三四五六七八九十百零〇\d]{1,6}[章节節条條款部篇]"
)
# A sentence pointing elsewhere for what it states (「装订要求见第六章」, 「見附件三」): a pattern for the readers'
# lists of sentences left out.
POINTS_ELSEWHERE = r"[见見][^，,。；;]{0,12}(?:章|节|節|条|條|表|附件)"
SENTENCE_LIMIT = 240  # characters: a longer "sentence" (a table, unpunctuated text) is cut to the value's clause
CLAUSE_MARK = re.compile(r"[，、：；]|[,:;](?=\s)")
_WINDOW = 100  # characters either side of the value when even its clause is too long
_CJK = r"\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_BREAK = re.compile(rf"(?<=[{_CJK}])[ \t]*\r?\n[ \t]*(?=[{_CJK}])")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The [start, end) spans of a page's sentences, without surrounding whitespace. A sentence ends at 。！？；;
    ! ?, at a full stop before a space (not after an abbreviation or list number), and at a line end unless the
    line is wrapped prose (see ``WRAPPED_WIDTH``)."""
    cuts = {m.end() for m in _STOP.finditer(text)}
    cuts |= {m.end() for m in _PERIOD.finditer(text) if not _closes_abbreviation(text, m.start())}
    lines = line_spans(text)
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


def sentence_around(
    text: str, spans: Sequence[tuple[int, int]], starts: Sequence[int], start: int, end: int
) -> tuple[int, int]:
    """The sentence (or sentences: a value cut by a line end, "15\\n日") holding [start, end), narrowed to the
    value's clause when it is longer than ``SENTENCE_LIMIT``. ``spans`` are ``sentence_spans(text)``, ``starts``
    their starts."""
    i = max(0, bisect_right(starts, start) - 1)
    s0, s1 = spans[i] if spans else (start, end)
    while i + 1 < len(spans) and spans[i + 1][0] < end:
        i += 1
        s1 = spans[i][1]
    s0, s1 = min(s0, start), max(s1, end)
    if s1 - s0 <= SENTENCE_LIMIT:
        return s0, s1
    lo, hi = max(s0, start - SENTENCE_LIMIT), min(s1, end + SENTENCE_LIMIT)  # read no further: a page may be one line
    # the clause starts after the last mark not inside brackets still open at the value ("(All Groups, Sydney)")
    c0 = max((m.end() for m in CLAUSE_MARK.finditer(text, lo, start) if _closed(text, m.end(), start)), default=lo)
    c1 = next((m.start() for m in CLAUSE_MARK.finditer(text, end, hi)), hi)
    if c1 - c0 > SENTENCE_LIMIT:
        c0, c1 = max(c0, start - _WINDOW), min(c1, end + _WINDOW)
    while c0 < start and text[c0].isspace():
        c0 += 1
    return c0, c1


def _closed(text: str, start: int, end: int) -> bool:
    """No bracket closes in ``text[start:end]`` that opened before ``start``."""
    depth = 0
    for c in text[start:end]:
        if c in "(（":
            depth += 1
        elif c in ")）":
            depth -= 1
            if depth < 0:
                return False
    return True


def line_spans(text: str) -> list[tuple[int, int]]:
    """Each line's [start, end), line break excluded."""
    out: list[tuple[int, int]] = []
    start = 0
    for m in re.finditer(r"\r?\n", text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def line_number(text: str, line_offsets: Sequence[int], offset: int) -> int:
    """The 1-based line of ``offset`` in a page's ``text``, as citations count (``line_offsets`` are the line starts,
    ``ingest/read/positions.py``; without them, counted from the line breaks)."""
    if not line_offsets:
        return text.count("\n", 0, offset) + 1
    return max(0, bisect_right(line_offsets, offset) - 1) + 1


def _closes_abbreviation(text: str, at: int) -> bool:
    line_start = text.rfind("\n", 0, at) + 1
    before = text[max(line_start, at - 12) : at]
    return _ABBREVIATION.search(before) is not None or _LIST_NUMBER.fullmatch(text, line_start, at) is not None


def _width(line: str) -> int:
    return sum(2 if "\u2e80" <= c <= "\uffef" else 1 for c in line)


def _line_ends_sentence(line: str, following: str | None) -> bool:
    """Whether a line end closes the sentence: at a blank or last line, after a closing mark, before a heading,
    table row or list item, after a Markdown heading or table row, and after a short line (a title, a label, a
    paragraph's last line). A list item as wide as wrapped prose runs on ("（3）…在同" / "一标段中投标。")."""
    body = line.strip()
    after = following.strip() if following is not None else ""
    if not body or not after or body[-1] in _LINE_CLOSES:
        return True
    if BLOCK_LINE.match(after) or body[0] in "#|":
        return True
    return _width(body) < WRAPPED_WIDTH
