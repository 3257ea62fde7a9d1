"""The statements of a document: every amount, date, duration, count, percentage and score in points, each with
what it is a value of, read from the stored pages and chunks with no model.

For each value (``text/values.py``, in the page's text):

- its **sentence** (``text/sentences.py``: wrapped lines joined, cut at the page break, narrowed to its clause when
  longer than a sentence can be), or, in a Markdown table row, the row's cells each after its column's name;
- its **subject** (``text/subjects.py``): the words before it in its clause, less a start point or a base; in a
  table row, the row's label cell and the column's header (and the words before it in its cell); in a table a PDF
  printed as lines (a label over a few short lines, the value on the next), those lines when its own clause names
  nothing;
- the **concepts** its subject names (``text/concepts.py``; the heading's when it names none), a score's pass line
  marked as a threshold, the nearest **heading**, and its page and lines, numbered as citations number them.

A bare number in a table cell is a value when its column's header names the unit ("配分", "金额（万元）", "(%)").

The key-figures sheet (``review/figures.py``) is a view of these statements, so the two quote the same sentences.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.review import Value
from pikelocal.domain.statements import Statement
from pikelocal.ingest.read.tables import is_row, is_rule
from pikelocal.ingest.split.split_struct import marker
from pikelocal.text.sentences import (
    WRAPPED_WIDTH,
    clean_sentence,
    line_number,
    line_spans,
    sentence_around,
    sentence_spans,
)
from pikelocal.text.subjects import clean_subject, concepts_of, is_threshold, subject_in, words_before
from pikelocal.text.values import SPAN_KINDS, is_traditional, values_in

_SAMPLE = 20_000  # characters read to judge the script
HEADING_MAX = 40  # characters: a heading line this short is named whole; a longer one (a clause) by its number
_ARTICLE_LEVEL = 4  # 编 章 节 条: a heading even with its text on the same line
LABEL_LINES = 4  # short lines above a value that may name it (a table a PDF printed as lines)
_LABEL_END = "。！？；!?;"
_WORDS = re.compile(r"[A-Za-z\u3400-\u9fff]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_BARE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# A column header that names the unit of the bare numbers below it.
_HEADER_UNIT = re.compile(
    r"[（(]\s*(万元|萬元|元|新台币元|新臺幣元|天|日|日历天|日曆天|个月|個月|年|%|％|分|份|人|页|頁)\s*[)）]"
)
_HEADER_POINTS = re.compile(r"配分|分值|分數|分数|得分|权重|權重|(?i:\b(?:points|score|weight(?:ing)?)\b)")
SUBJECT_JOIN = " · "
# A unit of measure after an English bound ("not more than 75 kW", "not less than 450 litres"): a quantity, no count.
_MEASURE_UNIT = re.compile(
    r"\s*(?:kW|MW|W|kV|V|kVA|A|mm|cm|m|km|m2|m3|m²|m³|L|l|ml|litres?|liters?|metres?|meters?|kg|g|t|tonnes?|°C|Pa"
    r"|kPa|MPa|bar|rpm|Hz|dB|hours?|minutes?|seconds?|per cent|percent)\b"
)
# A value in an example states nothing of the document ("例如投标截止日为2014年6月30日", as conflicts.py reads it).
_EXAMPLE = re.compile(r"例如|比如|譬如|举例|舉例|(?i:for example|for instance|e\.g\.)")
_ONE_DAY_BEFORE = frozenset("下次上同当當前")
_ONE_AS_WORD = frozenset("同任每唯统統另某单單这這那其逐")  # 同一, 任一, 每一: "the same", "any", "each"


def document_statements(doc_id: int, pages: Sequence[PageRecord], chunks: Sequence[ChunkRecord]) -> list[Statement]:
    """Every statement of one document, in document order. ``pages`` and ``chunks`` are the stored ones (the chunks
    give headings no line shows and tell a document without pages: its chunks have no page)."""
    ordered = sorted(pages, key=lambda p: p.page_no)
    unpaged = bool(chunks) and all(c.page_start is None for c in chunks)
    traditional = is_traditional(_opening(ordered))
    headings = HeadingMarks(ordered, chunks)
    out: list[Statement] = []
    header: list[str] = []  # the header of a table that runs on from the page before
    for page in ordered:
        rows, header = _table_rows(page.text, header)
        reader = _PageReader(doc_id, page, None if unpaged else page.page_no, traditional, headings)
        out += reader.prose(rows)
        for row in rows:
            out += reader.row(row)
    return sorted(out, key=lambda s: s.char_start)


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


@dataclass(frozen=True)
class _Row:
    """A Markdown table row on a page: its line's span, each cell's span (trimmed) and the table's header cells."""

    start: int
    end: int
    cells: tuple[tuple[int, int], ...]
    header: tuple[str, ...]


def _table_rows(text: str, carried: list[str]) -> tuple[list[_Row], list[str]]:
    """The body rows of the page's Markdown tables, and the header of the last table (for a table that runs on to
    the next page). A table at the top of a page without a header row of its own takes ``carried``."""
    rows: list[_Row] = []
    header: list[str] = []
    block: list[tuple[int, int]] = []
    lines = line_spans(text)
    top = next((i for i, (a, b) in enumerate(lines) if text[a:b].strip()), 0)

    def close(first_line: int) -> None:
        nonlocal header
        if not block:
            return
        a0, b0 = block[0]
        if len(block) > 1 and is_rule(text[block[1][0] : block[1][1]]):
            header = [text[s:e] for s, e in _cells(text, a0, b0)]
            body = block[2:]
        else:
            header = carried if first_line == top else []
            body = block
        for a, b in body:
            if not is_rule(text[a:b]):
                rows.append(_Row(a, b, tuple(_cells(text, a, b)), tuple(header)))
        block.clear()

    first = 0
    for i, (a, b) in enumerate(lines):
        if is_row(text[a:b]):
            if not block:
                first = i
            block.append((a, b))
        else:
            close(first)
    close(first)
    return rows, header


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The trimmed spans of a row line's cells (``\\|`` is no separator)."""
    line = text[start:end]
    bars = [i for i, c in enumerate(line) if c == "|" and (i == 0 or line[i - 1] != "\\")]
    out: list[tuple[int, int]] = []
    for left, right in zip(bars, bars[1:], strict=False):
        a, b = start + left + 1, start + right
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        out.append((a, b))
    return out


class _PageReader:
    """The statements of one page: its prose values and those of its table rows."""

    def __init__(
        self, doc_id: int, page: PageRecord, page_no: int | None, traditional: bool, headings: HeadingMarks
    ) -> None:
        self.doc_id, self.page, self.page_no, self.traditional, self.headings = (
            doc_id, page, page_no, traditional, headings,
        )  # fmt: skip
        self.text = page.text

    def prose(self, rows: Sequence[_Row]) -> list[Statement]:
        """The values outside table rows, each with its sentence and subject."""
        text = self.text
        found = [
            (s, e, v)
            for s, e, v in values_in(text, SPAN_KINDS, traditional=self.traditional)
            if not _in_rows(rows, s) and not _no_value(text, s, e, v)
        ]
        spans = sentence_spans(text)
        starts = [a for a, _b in spans]
        value_spans = [(s, e) for s, e, _v in found]
        out: list[Statement] = []
        for start, end, value in found:
            s0, s1 = sentence_around(text, spans, starts, start, end)
            if _EXAMPLE.search(text, s0, start):
                continue
            others = [(a, b) for a, b in value_spans if s0 <= a < s1 and (a, b) != (start, end)]
            subject = subject_in(text, s0, start, end, s1, value.kind, others)
            if not subject:
                subject = self._label_above(s0, value_spans)
            threshold = value.unit == "points" and is_threshold(text, start, end)
            first = line_number(text, self.page.line_offsets, s0)
            last = line_number(text, self.page.line_offsets, max(s0, s1 - 1))
            out.append(self._statement(value, subject, clean_sentence(text[s0:s1]), start, end, first, last, threshold))
        return out

    def row(self, row: _Row) -> list[Statement]:
        """The values of a table row's cells, each about the row's label cell and its column."""
        text = self.text
        out: list[Statement] = []
        line = line_number(text, self.page.line_offsets, row.start)
        sentence = _row_sentence(text, row)
        for j, (a, b) in enumerate(row.cells):
            cell = text[a:b]
            column = row.header[j].strip() if j < len(row.header) else ""
            found = values_in(cell, SPAN_KINDS, traditional=self.traditional) or _bare(cell, column)
            if not found:
                continue
            label = _label_cell(text, row.cells[:j])
            spans = [(s, e) for s, e, _v in found]
            for s, e, value in found:
                others = [span for span in spans if span != (s, e)]
                words = words_before(cell, 0, s, e, value.kind, others)
                parts = [p for p in (label, clean_sentence(column) if column != label else "") if p]
                subject = SUBJECT_JOIN.join(parts) + (f": {words}" if words and parts else words)
                threshold = value.unit == "points" and is_threshold(cell, s, e)
                out.append(self._statement(value, subject, sentence, a + s, a + e, line, line, threshold))
        return out

    def _label_above(self, start: int, value_spans: Sequence[tuple[int, int]]) -> str:
        """The short lines right above ``start`` that name what the line holding it is about: a table a PDF printed
        as lines ("2.2.1 / 投标人要求 / 澄清招标文件 / 的截止时间" over "递交投标文件截止之日 10 日前"). Lines holding a
        value, ending a sentence or as wide as wrapped prose are not labels; a blank line ends them."""
        text = self.text
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():
            return ""  # the sentence starts inside a line: the words before it are another sentence's
        labels: list[str] = []
        end = line_start - 1
        while end > 0 and len(labels) < LABEL_LINES:
            begin = text.rfind("\n", 0, end) + 1
            line = text[begin:end].strip()
            if not line or line[-1] in _LABEL_END or _width(line) >= WRAPPED_WIDTH or _holds(value_spans, begin, end):
                break
            labels.append(line)
            end = begin - 1
        return clean_subject("\n".join(reversed(labels)))

    def _statement(
        self,
        value: Value,
        subject: str,
        sentence: str,
        start: int,
        end: int,
        first: int,
        last: int,
        threshold: bool,
    ) -> Statement:
        offset = self.page.char_start
        heading = self.headings.at(offset + start)
        found = concepts_of(subject) or concepts_of(heading)
        return Statement(
            doc_id=self.doc_id, value=value, subject=subject, concepts=found, sentence=sentence, heading=heading,
            page=self.page_no, line_start=first, line_end=last, char_start=offset + start, char_end=offset + end,
            threshold=threshold,
        )  # fmt: skip


def _no_value(text: str, start: int, end: int, value: Value) -> bool:
    """A value that is none: a day named by its place (下一日, 最后一日); a count that counts nothing: a clause
    number read with the word after it ("2.1 项目概况", "3.1 本次"), "the same" or "any" one (同一人, 任一标段,
    每一项), a lump sum (一次性付清), a quantity in a unit of measure ("not more than 75 kW")."""
    if value.kind == "duration":  # 下一日, 次一日, 最后一日: a day, not a period of one
        return value.text.startswith("一") and (
            text[max(0, start - 1) : start] in _ONE_DAY_BEFORE or text[max(0, start - 2) : start] == "最后"
        )
    if value.kind != "count":
        return False
    if value.number is None or value.number != int(value.number):
        return True
    if value.text.startswith("一") and text[max(0, start - 1) : start] in _ONE_AS_WORD:
        return True
    if value.unit == "项" and text[end : end + 1] == "目":  # 项目 is a project, not a measure word
        return True
    return text[end : end + 1] == "性" or bool(_MEASURE_UNIT.match(text, end))


def _in_rows(rows: Sequence[_Row], offset: int) -> bool:
    return any(r.start <= offset < r.end for r in rows)


def _holds(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(start <= s < end for s, _e in spans)


def _width(line: str) -> int:
    return sum(2 if "\u2e80" <= c <= "\uffef" else 1 for c in line)


def _label_cell(text: str, cells: Sequence[tuple[int, int]]) -> str:
    """The row's label: the first cell before the value's that has words (a row number is no label)."""
    for a, b in cells:
        cell = text[a:b]
        if _WORDS.search(cell) and (label := clean_subject(cell, tail=False)):
            return label
    return ""


def _row_sentence(text: str, row: _Row) -> str:
    """A table row as one line: each cell after its column's name ("项目：投标保证金；金额（元）：50000")."""
    cells = [clean_sentence(text[a:b]) for a, b in row.cells]
    cjk = any(_CJK.search(c) for c in (*cells, *row.header))
    colon, sep = ("：", "；") if cjk else (": ", "; ")
    parts = []
    for j, cell in enumerate(cells):
        if not cell:
            continue
        name = clean_sentence(row.header[j]) if j < len(row.header) else ""
        parts.append(f"{name}{colon}{cell}" if name and name != cell else cell)
    return sep.join(parts)


def _bare(cell: str, column: str) -> list[tuple[int, int, Value]]:
    """A cell that is a bare number, read in the unit its column's header names ("配分" 30 → 30 points, "金额（万元）"
    35 → 350,000 元); empty when the header names none."""
    number = _BARE_NUMBER.fullmatch(cell)
    if number is None or not column:
        return []
    unit = m.group(1) if (m := _HEADER_UNIT.search(column)) else ("分" if _HEADER_POINTS.search(column) else "")
    if not unit:
        return []
    read = values_in(cell + unit, SPAN_KINDS)
    if len(read) != 1 or read[0][0] != 0 or read[0][1] < len(cell):
        return []
    value = read[0][2]
    return [(0, len(cell), Value(value.kind, cell, value.normal, value.number, value.unit))]


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
