"""Structure-aware splitting (the fast path): chunks that follow headings, clauses, paragraphs, sentences.

Pure functions. Chunks never overlap and together rebuild the text exactly (segment extraction relies on
it). Sizes are in encoder tokens via an injected counter: a chunk aims at ``target`` tokens, starts early at a
major heading once it holds ``min_tokens``, and never exceeds ``max_tokens`` unless one unbreakable piece does
(a piece longer than ``max_tokens`` is first cut at sentence ends, then at ``max_tokens`` boundaries).

Markdown tables (``tables.py``) are kept whole where they fit: a table that would overflow the chunk it starts in
opens a new chunk, and a table longer than a chunk is cut only between rows, each later part carrying the
table's header row (``ChunkSpan.table_header``, for the chunk's contextual header: the stored text itself is not
changed).

Tokenizing is bounded: the counter never sees more than ``WINDOW_CHARS`` characters at once, so a paragraph
with no breaks (a 50 MB one-line file) is measured and cut window by window, in memory that does not grow with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pikelocal.ingest.read.tables import TableSpan, find_tables

CountTokens = Callable[[str], int]

_CN_NUM = "一二三四五六七八九十百千零〇两"
# (level, pattern) — lower level = larger unit. The first match on a line decides.
_MARKERS: tuple[tuple[int, re.Pattern[str]], ...] = (
    (1, re.compile(r"^\s*(#{1,6})\s+\S")),  # Markdown: level = number of '#', adjusted below
    (1, re.compile(rf"^\s*第[{_CN_NUM}\d]+编")),
    (2, re.compile(rf"^\s*第[{_CN_NUM}\d]+章")),
    (3, re.compile(rf"^\s*第[{_CN_NUM}\d]+节")),
    (4, re.compile(rf"^\s*第[{_CN_NUM}\d]+条")),
    (5, re.compile(rf"^\s*[{_CN_NUM}]+、")),
    (6, re.compile(rf"^\s*[（(][{_CN_NUM}]+[）)]")),
    (5, re.compile(r"^\s*\d{1,3}\.(?!\d)\s*\S")),  # 1. Clause
    (6, re.compile(r"^\s*\d{1,3}\.\d{1,3}(?!\.\d)\s*\S")),  # 1.1 Clause
    (7, re.compile(r"^\s*\d{1,3}\.\d{1,3}\.\d{1,3}\s*\S")),  # 1.1.1 Clause
    (8, re.compile(r"^\s*[（(](?:[a-z]|\d{1,2}|[ivx]{1,4})[）)]\s*\S")),  # (a) (1) (iv)
)
MAJOR_LEVEL = 4  # a chunk may end early before a marker of this level or lower (编 章 节 条, #…####)
_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])|(?<=[.!?])(?=\s)")
# The most characters counted at once. A block or sentence longer than this is measured in windows of this size
# (far more than max_tokens in real text: 8,192 characters are some 2,000 English or 5,000-8,000 Chinese tokens).
WINDOW_CHARS = 8_192
_LABEL_MAX = 40
_CLAUSE_LABEL_END = re.compile(r"[，。；：,;:]")  # a clause's label is its number and words up to here
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_HEADING_MAX_WORDS = 8  # "1. Definitions", "2.1 The penalty doctrine at common law": a numbered heading is short
# A heading does not end in a function word; a line of prose wrapped by the PDF may.
_WRAP_WORDS = frozenset("a an and as at by for from in of on or that the to upon which with".split())  # noqa: SIM905
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class ChunkSpan:
    start: int
    end: int  # exclusive; the next chunk starts here
    section_path: tuple[str, ...]
    tokens: int
    table_header: str = ""  # the header row of the table this chunk starts inside, when it does


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    level: int | None  # marker level when the unit opens a section, else None
    label: str | None
    tokens: int
    table: TableSpan | None = None  # the table this unit is part of (a row, or the header with its rule)
    table_tokens: int = 0  # on a table's first unit: the whole table's tokens (measured up to past the cap)


def marker(line: str) -> tuple[int, str] | None:
    """(level, label) when ``line`` opens a heading or numbered clause, else None."""
    stripped = line.strip()
    for level, pattern in _MARKERS:
        match = pattern.match(line)
        if match is None:
            continue
        if pattern is _MARKERS[0][1]:  # Markdown heading
            return len(match.group(1)), stripped.lstrip("#").strip()[:_LABEL_MAX]
        if level <= 3 and (len(stripped) > _LABEL_MAX or "。" in stripped):
            return None  # "第三章规定的…。" is a sentence that mentions a chapter, not its heading
        if level == 4:  # an article: its number names it; its text follows on the same line
            return level, re.match(rf"第[{_CN_NUM}\d]+条", stripped).group(0)  # type: ignore[union-attr]
        if _english_list_item(stripped[match.end() - 1 :]):
            return level, ""  # opens a block, names no section
        return level, _CLAUSE_LABEL_END.split(stripped, maxsplit=1)[0][:_LABEL_MAX]
    return None


def _english_list_item(rest: str) -> bool:
    """The words after a numbered marker read as an item of a list or a numbered paragraph, not a heading: they
    start in lower case ("(a) that the fees …"), run past ``_HEADING_MAX_WORDS`` words ("4. Set aside the orders
    with respect to the costs of the …"), end a sentence ("1. Appeal allowed with costs.") or break off after a
    function word, wrapped ("20.1 Interstar may terminate this Agreement immediately upon"). Such a label would
    otherwise name every chunk after it up to the next marker of its level (in a judgment, pages of reasons under
    an order's item 1)."""
    words = _LATIN_WORD.findall(rest)
    if not words or _CJK.search(rest):
        return False
    return (
        words[0][0].islower()
        or len(words) > _HEADING_MAX_WORDS
        or rest.rstrip().endswith((".", ";"))
        or words[-1].lower() in _WRAP_WORDS
    )


def _blocks(text: str) -> list[tuple[int, int, tuple[int, str] | None]]:
    """Paragraph blocks: a new block at every marker line and after every blank line."""
    blocks: list[tuple[int, int, tuple[int, str] | None]] = []
    start, mark, pos, after_blank = 0, None, 0, False
    for line in text.splitlines(keepends=True):
        found = marker(line)
        if pos and (found or (after_blank and line.strip())):
            blocks.append((start, pos, mark))
            start, mark = pos, found
        elif not pos:
            mark = found
        after_blank = not line.strip()
        pos += len(line)
    blocks.append((start, len(text), mark))
    return [b for b in blocks if b[1] > b[0]]


def _measure(text: str, start: int, end: int, count: CountTokens, max_tokens: int) -> int:
    """Tokens of text[start:end]; for text over ``WINDOW_CHARS``, the sum over windows, stopped once past the cap."""
    if end - start <= WINDOW_CHARS:
        return count(text[start:end])
    total = 0
    for a in range(start, end, WINDOW_CHARS):
        total += count(text[a : min(end, a + WINDOW_CHARS)])
        if total > max_tokens:
            break
    return total


def _pieces(text: str, start: int, end: int, count: CountTokens, max_tokens: int) -> Iterator[tuple[int, int, int]]:
    """(start, end, tokens) pieces of text[start:end], each within ``max_tokens`` where possible."""
    tokens = _measure(text, start, end, count, max_tokens)
    if tokens <= max_tokens:
        yield start, end, tokens
        return
    a = start  # cut at sentence ends, found as the text is walked (no list of them)
    for m in _SENTENCE_END.finditer(text, start, end):
        if m.start() > a:
            yield from _sentence_pieces(text, a, m.start(), count, max_tokens)
            a = m.start()
    if end > a:
        yield from _sentence_pieces(text, a, end, count, max_tokens)


def _sentence_pieces(
    text: str, start: int, end: int, count: CountTokens, max_tokens: int
) -> Iterator[tuple[int, int, int]]:
    """text[start:end], which has no sentence end inside: whole if it fits, else cut at character offsets.

    An unbreakable run is cut into pieces of the length that holds ``max_tokens``, that length measured on the
    run's next ``WINDOW_CHARS`` characters; short of the run's end, a window's remainder opens the next window.
    The tail of a run longer than a window is measured on the window that ends with it, not on the tail alone.
    """
    a = start
    while a < end:
        w = min(end, a + WINDOW_CHARS)
        n = count(text[a:w])
        if n <= max_tokens:
            yield a, w, n
            a = w
            continue
        lo = max(start, end - WINDOW_CHARS) if w == end else a
        if lo < a:
            n = count(text[lo:w])
        step = max(1, (w - lo) * max_tokens // n)
        stop = end if w == end else a + (w - a) // step * step
        for c in range(a, stop, step):
            yield c, min(stop, c + step), count(text[c : min(stop, c + step)])
        a = stop


def _units(text: str, count: CountTokens, max_tokens: int) -> Iterator[_Unit]:
    tables = find_tables(text)
    for b_start, b_end, mark in _blocks(text):
        first = True
        for s, e, table in _table_parts(tables, b_start, b_end):
            if table is None:
                for s2, e2, n in _pieces(text, s, e, count, max_tokens):
                    opens = mark if first else None
                    first = False
                    yield _Unit(s2, e2, opens[0] if opens else None, opens[1] if opens else None, n)
                continue
            yield from _table_units(text, table, s, e, count, max_tokens)
            first = False


def _table_parts(tables: list[TableSpan], start: int, end: int) -> Iterator[tuple[int, int, TableSpan | None]]:
    """text[start:end] as runs outside and inside tables, in order."""
    a = start
    for t in tables:
        if t.end <= a or t.start >= end:
            continue
        if t.start > a:
            yield a, t.start, None
        yield max(a, t.start), min(end, t.end), t
        a = min(end, t.end)
    if a < end:
        yield a, end, None


def _table_units(
    text: str, table: TableSpan, start: int, end: int, count: CountTokens, max_tokens: int
) -> Iterator[_Unit]:
    """The header (with its rule) as one unit, then each row as one: a row is never cut unless it alone is over
    ``max_tokens``."""
    total = _measure(text, table.start, table.end, count, max_tokens) if start == table.start else 0
    a = start
    if start == table.start:
        a = min(end, table.body_start)
        yield _Unit(start, a, None, None, count(text[start:a]), table, total)
    while a < end:
        nl = text.find("\n", a, end)
        b = end if nl < 0 else nl + 1
        for s, e, n in _pieces(text, a, b, count, max_tokens):
            yield _Unit(s, e, None, None, n, table)
        a = b


def sentence_units(text: str, count: CountTokens, max_tokens: int) -> list[_Unit]:
    """The splitter's units with prose cut further at sentence ends (a table's rows stay as they are): the places
    where a semantic splitter may end a chunk. The first sentence keeps the unit's heading level and label."""
    out: list[_Unit] = []
    for unit in _units(text, count, max_tokens):
        if unit.table is not None:
            out.append(unit)
            continue
        cuts = [m.start() for m in _SENTENCE_END.finditer(text, unit.start, unit.end) if unit.start < m.start()]
        bounds = [unit.start, *(c for c in cuts if c < unit.end), unit.end]
        parts = [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]
        if len(parts) == 1:
            out.append(unit)
            continue
        for i, (a, b) in enumerate(parts):
            out.append(_Unit(a, b, unit.level if i == 0 else None, unit.label if i == 0 else None, count(text[a:b])))
    return out


def split_structured(
    text: str,
    count: CountTokens,
    *,
    target: int = 400,
    min_tokens: int = 100,
    max_tokens: int = 600,
    units: list[_Unit] | None = None,
    breaks: frozenset[int] | None = None,
) -> list[ChunkSpan]:
    """Chunks of ``text`` (see the module's docstring). With ``breaks`` (indices into ``units``, which default to
    :func:`_units`): a chunk holding ``min_tokens`` ends before a unit in ``breaks`` (a semantic breakpoint) or a
    major heading, else only at ``max_tokens``; ``target`` then plays no part."""
    if not 0 < min_tokens <= target <= max_tokens:
        raise ValueError(f"need 0 < min_tokens <= target <= max_tokens, got {min_tokens}, {target}, {max_tokens}")
    chunks: list[ChunkSpan] = []
    stack: list[tuple[int, str]] = []
    cur_path: tuple[str, ...] = ()
    cur_start, cur_tokens = 0, 0
    cur_table = ""
    for i, unit in enumerate(units if units is not None else _units(text, count, max_tokens)):
        major = unit.level is not None and unit.level <= MAJOR_LEVEL
        if unit.table is not None and unit.table_tokens:  # a table starts: whole in a fresh chunk if it overflows
            early = cur_tokens >= min_tokens and cur_tokens + unit.table_tokens > max_tokens
        elif unit.table is not None:  # a row: only a full chunk ends inside a table
            early = False
        elif breaks is not None:
            early = cur_tokens >= min_tokens and (major or i in breaks)
        else:
            early = cur_tokens >= min_tokens and (major or cur_tokens + unit.tokens > target)
        flush = cur_tokens > 0 and (cur_tokens + unit.tokens > max_tokens or early)
        if flush:
            chunks.append(ChunkSpan(cur_start, unit.start, cur_path, cur_tokens, cur_table))
            cur_start, cur_tokens = unit.start, 0
            inside = unit.table is not None and unit.start >= unit.table.body_start
            cur_table = unit.table.header if inside and unit.table is not None else ""
        if unit.level is not None and unit.label:
            while stack and stack[-1][0] >= unit.level:
                stack.pop()
            stack.append((unit.level, unit.label))
        if cur_tokens == 0:
            cur_path = tuple(label for _, label in stack)
        cur_tokens += unit.tokens
    if text:  # a non-empty text has at least one unit: the last chunk holds what is left
        chunks.append(ChunkSpan(cur_start, len(text), cur_path, cur_tokens, cur_table))
    return chunks
