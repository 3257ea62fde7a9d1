"""The statements of a document: every amount, date, duration, count, percentage and score in points, each with
what it is a value of, read from the stored pages and chunks with no model.

For each value (``text/values.py``, in the page's text):

- its **sentence** (``text/sentences.py``: wrapped lines joined, cut at the page break, narrowed to its clause when
  longer than a sentence can be), or, in a Markdown table row, the row's cells each after its column's name;
- its **subject** (``text/subjects.py``): the words before it in its clause, less a start point or a base; in a
  table row, the row's label cell and the column's header (and the words before it in its cell); in a table a PDF
  printed as lines (a label over a few short lines, the value on the next), those lines when its own clause names
  nothing; in an item of a list run on in one paragraph ("payable as follows: 30% on delivery; 60% on Acceptance;"),
  the list's lead-in when the item names nothing before the value; the points of a score's "otherwise" line
  ("③否则得0分") are of the criterion scored, named with its range above ("勘察设计依据、工作目标（0～5分）");
- the **concepts** its subject names (``text/concepts.py``; the heading's when it names none), a score's pass line
  marked as a threshold, the nearest **heading**, and its page and lines, numbered as citations number them.

A bare number in a table cell is a value when its column's header names the unit ("配分", "金额（万元）", "(%)").

The key-figures sheet (``review/figures.py``) is a view of these statements, so the two quote the same sentences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from pikelocal.domain.documents import ChunkRecord, PageRecord
from pikelocal.domain.review import Value
from pikelocal.domain.statements import Statement
from pikelocal.ingest.enrich.headings import HeadingMarks
from pikelocal.ingest.enrich.table_rows import Row, bare_value, label_cell, row_sentence, table_rows
from pikelocal.text.examples import EXAMPLE_OR_CASE
from pikelocal.text.sentences import WRAPPED_WIDTH, clean_sentence, line_number, sentence_around, sentence_spans
from pikelocal.text.subjects import clean_subject, concepts_of, is_threshold, subject_in, words_before
from pikelocal.text.values import SPAN_KINDS, is_traditional, values_in

_SAMPLE = 20_000  # characters read to judge the script
LABEL_LINES = 4  # short lines above a value that may name it (a table a PDF printed as lines)
_LABEL_END = "。！？；!?;"
SUBJECT_JOIN = " · "
# A unit of measure after an English bound ("not more than 75 kW", "not less than 450 litres"): a quantity, no count.
_MEASURE_UNIT = re.compile(
    r"\s*(?:kW|MW|W|kV|V|kVA|A|mm|cm|m|km|m2|m3|m²|m³|L|l|ml|litres?|liters?|metres?|meters?|kg|g|t|tonnes?|°C|Pa"
    r"|kPa|MPa|bar|rpm|Hz|dB|hours?|minutes?|seconds?|per cent|percent)\b"
)
_PER = re.compile(r"每[\u4e00-\u9fff]{0,3}[ \t]*$")
_ONE_DAY_BEFORE = frozenset("下次上同当當前")
_ONE_AS_WORD = frozenset("同任每唯统統另某单單这這那其逐")  # 同一, 任一, 每一: "the same", "any", "each"
# A score's "otherwise" line: what it scores is the criterion above it ("③否则得 0 分", "否則不予計分").
_OTHERWISE = re.compile(r"^[\W\d_\u2460-\u2473]*(否则|否則|(?i:otherwise))")
# A score range's top ("（0～ 5 分）"): the criterion's full points, named with the criterion.
_RANGE_FROM_ZERO = re.compile(r"[0０]\s*[～~\-－—–至到]\s*$")
CRITERION_REACH = 1500  # characters: an "otherwise" line is read with the nearest criterion this far above
_LIST_ITEM_END = ";；"
_LEAD_IN_END = re.compile(r"：|:(?=\s)")  # not a time's or an address's colon (17:00, http://)
_ITEM_MARK = re.compile(r"[\W_]*(?:(?:and|or|及|和|或)\s+)?", re.I)
_AS_FOLLOWS = re.compile(r"\s*(?:(?i:as follows|the following)|如下|如次)\s*$")
LEAD_IN_ITEMS = 8  # items of a run-on list read back to its lead-in


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
        rows, header = table_rows(page.text, header)
        reader = _PageReader(doc_id, page, None if unpaged else page.page_no, traditional, headings)
        out += reader.prose(rows)
        for row in rows:
            out += reader.row(row)
    return _otherwise_of_criteria(sorted(out, key=lambda s: s.char_start))


def _otherwise_of_criteria(found: list[Statement]) -> list[Statement]:
    """A score's "otherwise" line that names nothing ("③否则得 0 分") with the criterion it scores: the subject of the
    nearest score range above it ("勘察设计依据、工作目标 （0～ 5 分）"), within ``CRITERION_REACH`` characters. The
    heading may be the section the criteria are listed in, not the criterion."""
    out: list[Statement] = []
    criterion: Statement | None = None
    for s in found:
        if s.value.unit == "points" and s.subject and _range_top(s):
            criterion = s
        elif (
            s.value.unit == "points"
            and not s.subject
            and criterion is not None
            and s.char_start - criterion.char_end <= CRITERION_REACH
            and (m := _OTHERWISE.match(s.sentence))
        ):
            subject = f"{criterion.subject} … {m.group(1)}"
            s = replace(s, subject=subject, concepts=concepts_of(subject) or s.concepts)
        out.append(s)
    return out


def _range_top(statement: Statement) -> bool:
    """The statement's points are the top of a range from zero ("（0～ 5 分）")."""
    sentence, value = statement.sentence, " ".join(statement.value.text.split())
    at = sentence.find(value)
    return at >= 0 and bool(_RANGE_FROM_ZERO.search(sentence[max(0, at - 4) : at]))


def vector_text(statement: Statement) -> str:
    """What a statement's vector embeds: the statement as one line, its subject (the heading where it has none) and
    its value as printed ("投标保证金: 人民币伍万元整"). Not its sentence: the sentence is in the full-text row, and the
    encoder's cost is per token and per text (a sentence cost a quarter of the tender's ingest, the line a tenth),
    while a question about a figure names what the figure is of."""
    return statement.line()


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


class _PageReader:
    """The statements of one page: its prose values and those of its table rows."""

    def __init__(
        self, doc_id: int, page: PageRecord, page_no: int | None, traditional: bool, headings: HeadingMarks
    ) -> None:
        self.doc_id, self.page, self.page_no, self.traditional, self.headings = (
            doc_id, page, page_no, traditional, headings,
        )  # fmt: skip
        self.text = page.text

    def prose(self, rows: Sequence[Row]) -> list[Statement]:
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
            # a value in or after an example or a supposed case states nothing of the document
            if any(m.start() < start for m in EXAMPLE_OR_CASE.finditer(text, s0, s1)):
                continue
            others = [(a, b) for a, b in value_spans if s0 <= a < s1 and (a, b) != (start, end)]
            subject = subject_in(text, s0, start, end, s1, value, others)
            if _starts(text, s0, start) and (lead := self._lead_in(spans, s0)):
                subject = f"{lead} … {subject}" if subject and subject != lead else lead
            if not subject:
                subject = self._label_above(s0, value_spans)
            threshold = value.unit == "points" and is_threshold(text, start, end)
            first = line_number(text, self.page.line_offsets, s0)
            last = line_number(text, self.page.line_offsets, max(s0, s1 - 1))
            out.append(self._statement(value, subject, clean_sentence(text[s0:s1]), start, end, first, last, threshold))
        return out

    def row(self, row: Row) -> list[Statement]:
        """The values of a table row's cells, each about the row's label cell and its column."""
        text = self.text
        out: list[Statement] = []
        line = line_number(text, self.page.line_offsets, row.start)
        sentence = row_sentence(text, row)
        for j, (a, b) in enumerate(row.cells):
            cell = text[a:b]
            column = row.header[j].strip() if j < len(row.header) else ""
            found = values_in(cell, SPAN_KINDS, traditional=self.traditional) or bare_value(cell, column)
            if not found:
                continue
            label = label_cell(text, row.cells[:j])
            spans = [(s, e) for s, e, _v in found]
            for s, e, value in found:
                others = [span for span in spans if span != (s, e)]
                words = words_before(cell, 0, s, e, value, others)
                parts = [p for p in (label, clean_sentence(column) if column != label else "") if p]
                subject = SUBJECT_JOIN.join(parts) + (f": {words}" if words and parts else words)
                threshold = value.unit == "points" and is_threshold(cell, s, e)
                out.append(self._statement(value, subject, sentence, a + s, a + e, line, line, threshold))
        return out

    def _lead_in(self, spans: Sequence[tuple[int, int]], s0: int) -> str:
        """The lead-in of a list run on in one paragraph whose item, the sentence at ``s0``, starts with its value:
        the items before it end with ";" and the first opens after a colon with a value too ("10.2 The Contract
        Price is payable as follows: 30% on delivery…; 60% on Acceptance;"); the words before that colon, "as
        follows" left out. Empty when the sentence before does not end such an item."""
        text = self.text
        i = next((k for k, (a, _b) in enumerate(spans) if a == s0), None)
        for k in range(i - 1 if i else -1, max(-1, (i or 0) - 1 - LEAD_IN_ITEMS), -1):
            a, b = spans[k]
            if text[b - 1] not in _LIST_ITEM_END:
                return ""
            if m := _LEAD_IN_END.search(text, a, b):
                first = values_in(text[m.end() : b], SPAN_KINDS, traditional=self.traditional)
                if not first or text[m.end() : m.end() + first[0][0]].strip():
                    return ""  # the first item does not open with a value: not a list of figures
                return clean_subject(_AS_FOLLOWS.sub("", text[a : m.start()]))
        return ""

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
    每一项), a lump sum (一次性付清), a quantity in a unit of measure ("not more than 75 kW"), the "one" of a rate
    (每提供1项得2分: two points per project, no count of one)."""
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
    if value.number == 1 and _PER.search(text, max(0, start - 6), start):  # 每提供1项得2分: a rate's "per one"
        return True
    return text[end : end + 1] == "性" or bool(_MEASURE_UNIT.match(text, end))


def _starts(text: str, s0: int, start: int) -> bool:
    """The value opens its sentence (after a list mark or a connective: "60% on Acceptance;")."""
    return _ITEM_MARK.fullmatch(text, s0, start) is not None


def _in_rows(rows: Sequence[Row], offset: int) -> bool:
    return any(r.start <= offset < r.end for r in rows)


def _holds(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(start <= s < end for s, _e in spans)


def _width(line: str) -> int:
    return sum(2 if "\u2e80" <= c <= "\uffef" else 1 for c in line)
