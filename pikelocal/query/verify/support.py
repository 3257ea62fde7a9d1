"""Does a source sentence support a claim? Units of the sources (sentences, table rows) and the verdict.

A claim is *supported* by a unit when
  1. every hard fact of the claim (numbers by value, dates, quoted names) stands in the unit;
  2. the question is about that unit: the terms the question quotes stand in it, and at least ``FOCUS_SHARE`` of
     the question's focus terms stand in it or in its source's heading (title › section);
  3. a claim without hard facts shares at least ``TERM_SHARE`` of its content terms with the unit.
A unit is one sentence of prose; in a table (lines without sentence punctuation) one line, so that a number is
bound to its own row and not to the row above it. A claim is *contradicted* when no unit supports it but a unit
that the question is about holds a different number of the same kind (the table says 30 %, the claim 20 %).
Everything else is *unsupported*.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pikelocal.domain.answers import Evidence, Source
from pikelocal.query.verify.about import Meaning
from pikelocal.query.verify.claims import (
    Fact,
    asked_terms,
    content_terms,
    facts_in,
    focus_terms,
    focus_weights,
    numbers_in,
    quoted_terms,
)
from pikelocal.text import concepts
from pikelocal.text.script import to_simplified

FOCUS_SHARE = 0.4  # set on the first 37 honesty questions (all tender); docs/BENCHMARKS.md
TERM_SHARE = 0.6
_SENTENCE = re.compile(r"[^。！？；!?;]+(?:[。！？；!?;]+|\.(?=\s)|$)|[。！？；!?;]+")
_SENTENCE_END = re.compile(r"[。！？；!?;]|\.(?:\s|$)")
_TABLE_MIN_LINES = 3
LABEL_LINES = 3
_CLAUSE_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?\s*)?(?:[（(]\d{1,2}[)）])?")  # "5.2.1（5） 解密时间"
WRAPPED_LINE_MIN = 24  # characters: a line this long without a closing mark is wrapped prose, not a table row
_CLAUSE_END = "，,；;。：:！？!?"
_OPENING = "（(【[「『"
_CLOSING = "）)】]」』"
_LINE_MIN_WORDS = re.compile(r"[\u3400-\u9fffA-Za-z]")


@dataclass(frozen=True)
class Unit:
    """A sentence or table row of one source: its text and where it stands in the source's text."""

    source: Source
    start: int
    end: int
    text: str
    table_row: bool
    numbers: frozenset[str]
    terms: frozenset[str]
    squashed: str  # simplified, without whitespace (for quoted names)
    above: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = ()  # table rows: lines above (text, terms,
    # number kinds), nearest first
    pair: bool = False  # two table lines together (a wrapped cell): not for claims with numbers


def label_terms(unit: Unit, kinds: frozenset[str]) -> frozenset[str]:
    """Terms of the lines above a table row up to the first that holds a number of a kind the claim states (that
    line is another row: 押标金：5万元 above 预算：35万元 does not make 35万 the bid bond). A claim without
    numbers takes only lines without any number."""
    out: set[str] = set()
    for _text, terms, line_kinds in unit.above:
        if (line_kinds & kinds) if kinds else line_kinds:
            break
        out |= terms
    return frozenset(out)


# (source, start, end) → (page_start, page_end, line_start, line_end) of that span, when the KB can tell.
Locator = Callable[[Source, int, int], tuple[int | None, int | None, int | None, int | None] | None]


def source_units(source: Source) -> list[Unit]:
    """The source's sentences; a long stretch of short unpunctuated lines (a table) as one unit per line.

    A table row also carries up to ``LABEL_LINES`` lines above it: a form's "行政监督部门：…" above its
    "电话：…" names what the row is about. ``label_terms`` decides, per claim, how far up they count.
    """
    text = source.text
    units: list[Unit] = []
    for m in _SENTENCE.finditer(text):
        start, end = m.start(), m.end()
        piece = text[start:end]
        lines = piece.split("\n")
        if len(lines) >= _TABLE_MIN_LINES and looks_tabular(lines):
            rows: list[tuple[int, int]] = []
            offset = start
            for line in lines:
                line_end = offset + len(line)
                if rows and line.strip() and not _LINE_MIN_WORDS.search(line):
                    rows[-1] = (rows[-1][0], line_end)  # a line of bare numbers continues the row above
                elif line.strip():
                    rows.append((offset, line_end))
                offset = line_end + 1
            for i, (a, b) in enumerate(rows):
                above = tuple(_line(text[la:lb]) for la, lb in reversed(rows[max(0, i - LABEL_LINES) : i]))
                units.append(span_unit(source, a, b, table_row=True, above=above))
                if i + 1 < len(rows):
                    if (span := _wrapped_clause(text, (a, b), rows[i + 1])) is not None:
                        units.append(span_unit(source, *span, table_row=False))
                    # a cell wrapped over two lines ("…相关专" / "业中级…"), for claims without numbers
                    units.append(span_unit(source, a, rows[i + 1][1], table_row=True, above=above, pair=True))
        elif piece.strip():
            units.append(span_unit(source, start, end, table_row=False))
    return units


def _wrapped_clause(text: str, line: tuple[int, int], following: tuple[int, int]) -> tuple[int, int] | None:
    """The clause that a long line of wrapped prose carries over into the next line (PDF text breaks Chinese
    prose mid-clause: "…施工图设计完成后支付至合同" / "签订额的 75%）；"), from the last comma of the line to the
    first of the next. None when the line is short (a table row) or ends its sentence."""
    body = text[line[0] : line[1]].rstrip()
    if len(body.strip()) < WRAPPED_LINE_MIN or body[-1:] in _CLAUSE_END:
        return None
    cut = _last_clause_end(body)
    start = line[0] + cut + 1
    rest = text[following[0] : following[1]]
    stops = [i for i in (rest.find(c) for c in _CLAUSE_END) if i >= 0]
    end = following[0] + (min(stops) + 1 if stops else len(rest))
    return start, end


def _last_clause_end(body: str) -> int:
    """Where the last clause of a line begins, less one: its last clause mark outside brackets (a comma inside
    「（投标截止时间，下同）」 does not end the clause around it); -1 when there is none."""
    depth, cut = 0, -1
    for i, ch in enumerate(body):
        if ch in _OPENING:
            depth += 1
        elif ch in _CLOSING:
            depth = max(0, depth - 1)
        elif ch in _CLAUSE_END and depth == 0:
            cut = i
    return cut


def looks_tabular(lines: Sequence[str]) -> bool:
    """Most lines end without sentence punctuation and are short: a table or a form, not wrapped prose."""
    filled = [ln.strip() for ln in lines if ln.strip()]
    if not filled:
        return False
    open_ended = sum(1 for ln in filled if not _SENTENCE_END.search(ln[-1:] + " ")) / len(filled)
    short = sum(1 for ln in filled if len(ln) <= 60) / len(filled)
    return open_ended >= 0.6 and short >= 0.6 and sum(1 for ln in filled if numbers_in(ln)) >= 2


def _line(text: str) -> tuple[str, frozenset[str], frozenset[str]]:
    """A line above a table row: its text, terms, and the kinds of number it holds (its clause number aside)."""
    kinds = frozenset(f.kind for f in facts_in(_CLAUSE_NUMBER.sub("", text)) if f.kind != "name")
    return text, frozenset(content_terms(text)), kinds


def span_unit(
    source: Source,
    start: int,
    end: int,
    *,
    table_row: bool,
    above: tuple[tuple[str, frozenset[str], frozenset[str]], ...] = (),
    pair: bool = False,
) -> Unit:
    text = source.text[start:end]
    return Unit(
        above=above,
        pair=pair,
        source=source,
        start=start,
        end=end,
        text=text,
        table_row=table_row,
        numbers=frozenset(numbers_in(text)),
        terms=frozenset(content_terms(text)),
        squashed="".join(to_simplified(text).split()).lower(),
    )


@dataclass(frozen=True)
class Question:
    """What the checks need of the question, computed once; ``meaning`` (the encoder's reading of it) decides
    whether a sentence is about it where the words differ (``query/verify/about.py``)."""

    text: str
    focus: frozenset[str]
    quoted: tuple[str, ...]
    asked: frozenset[str] = frozenset()  # what the question asks of its subject (邮政编码): one must be there
    meaning: Meaning | None = field(default=None, compare=False)
    # a concept's weight among the focus terms: the words its term replaced (押標金 2); others weigh 1
    weights: Mapping[str, int] = field(default_factory=dict, compare=False)
    # the concepts the question names, with those its terms hold (評選方式: the award basis and evaluation)
    concepts: frozenset[str] = field(default=frozenset(), compare=False)

    @classmethod
    def of(cls, question: str, meaning: Meaning | None = None) -> Question:
        quoted = tuple("".join(q.split()).lower() for q in quoted_terms(question))
        focus = frozenset(focus_terms(question))
        named = concepts.active().broad_concepts_in(question)
        return cls(question, focus, quoted, frozenset(asked_terms(question)), meaning, focus_weights(question), named)

    def share(self, terms: frozenset[str], of: frozenset[str]) -> float:
        """The weighted share of ``of`` (focus terms) that ``terms`` holds."""
        total = sum(self.weights.get(t, 1) for t in of)
        return sum(self.weights.get(t, 1) for t in of & terms) / total if total else 1.0


def is_about(
    question: Question, unit: Unit, heading_terms: frozenset[str], kinds: frozenset[str] | None = None
) -> bool:
    """The question is about the unit: the terms it quotes stand in it, and its focus terms (concepts aligned) do
    at ``FOCUS_SHARE``, or the unit names one of the question's concepts and the encoder puts it near the question
    (``about.Meaning``)."""
    if not quoted_in(question, unit):
        return False
    if focus_share(question, unit, heading_terms, kinds) >= FOCUS_SHARE:
        return True
    if question.meaning is None or (question.asked and not question.asked & (unit.terms | heading_terms)):
        return False  # what the question asks of its subject (its interest, its postal code) is not in the unit
    text = meaning_text(unit)
    return shares_a_concept(question, text) and question.meaning.about(text)


def shares_a_concept(question: Question, text: str) -> bool:
    """The text names one of the concepts the question names (broadly: 評審委員 shares evaluation with 評選方式), or
    the question names none. The encoder alone would take "本项目采用以下方式支持中小企业发展" as being about "本项目
    采用什么采购方式": the words are near, the notion (small firms, not the procurement method) is not."""
    return not question.concepts or bool(question.concepts & concepts.active().broad_concepts_in(text))


def meaning_text(unit: Unit) -> str:
    """What the encoder reads of a unit: the section it stands under and, for a table row, the label lines above
    it, then the unit ("名 称：黄梅县水利和湖泊局" means the purchaser under 「招标人」)."""
    section = " › ".join(unit.source.section[-2:])
    labels = [text.strip() for text, _terms, _kinds in reversed(unit.above)] if unit.table_row else []
    return "\n".join(t for t in (section, *labels, unit.text.strip()) if t)


@dataclass(frozen=True)
class Finding:
    verdict: str  # supported | unsupported | contradicted
    unit: Unit | None
    reason: str
    method: str = "lexical"


def fact_in(fact: Fact, unit: Unit) -> bool:
    if fact.kind == "name":
        return any(v in unit.squashed for v in fact.values)
    return bool(fact.values & unit.numbers) or (bool(fact.parts) and fact.parts <= unit.numbers)


def focus_share(
    question: Question, unit: Unit, heading_terms: frozenset[str], kinds: frozenset[str] | None = None
) -> float:
    """The share of the question's focus terms in the unit (its label lines and its source's heading too).

    Terms of the source's document title are left out on both sides: "本招标文件（黄梅县…招标）中" names the
    document, not the clause.
    """
    title = _title_terms(unit.source)
    focus = question.focus - title
    if not focus:
        return 1.0
    own = unit.terms | heading_terms
    alone = question.share(own, focus)
    labels = label_terms(unit, kinds) if kinds is not None and unit.above else frozenset()
    if alone >= FOCUS_SHARE or not labels or (question.asked and not question.asked & own):
        # The label lines above a row say whose it is (the company's); what is asked of it (its postal code)
        # must stand in the row itself, or the row is another field of the same record (its address).
        return alone
    return question.share(own | labels, focus)


def _title_terms(source: Source) -> frozenset[str]:
    name = source.path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return frozenset(content_terms(f"{source.title or ''} {name}"))


def quoted_in(question: Question, unit: Unit) -> bool:
    return all(q in unit.squashed for q in question.quoted)


def check_claim(claim: str, question: Question, units: Sequence[Unit], headings: dict[int, frozenset[str]]) -> Finding:
    """The lexical verdict on one claim (see the module's docstring)."""
    facts = facts_in(claim)
    all_terms = content_terms(claim)
    # What the claim adds to the question: "…要求为水利水电工程相关专业中级及以上职称" is checked on its answer,
    # not on the question it restates (unless restating is all it does: "Floods count.").
    terms = (all_terms - question.focus) or (set() if facts else all_terms)
    kinds = frozenset(f.kind for f in facts if f.kind != "name")
    best: tuple[float, Unit] | None = None
    near: Unit | None = None  # a unit the question is about, holding none of the claim's facts
    facts_somewhere = False
    for unit in units:
        if unit.pair and kinds:
            continue  # a number must stand in its own row, not in the row below or above it
        focus = focus_share(question, unit, headings[unit.source.number], kinds)
        lexical = quoted_in(question, unit) and focus >= FOCUS_SHARE
        has_facts = all(fact_in(f, unit) for f in facts)
        facts_somewhere = facts_somewhere or (bool(facts) and has_facts)
        share = len(terms & unit.terms) / len(terms) if terms else 1.0
        # the encoder reads only a unit that holds the claim's facts (and, without facts, shares its terms)
        holds = has_facts and (bool(facts) or share >= TERM_SHARE)
        if holds and (lexical or is_about(question, unit, headings[unit.source.number], kinds)):
            score = focus + share
            if best is None or score > best[0]:
                best = (score, unit)
        elif (
            lexical
            and facts
            and len(all_terms & unit.terms) >= TERM_SHARE / 2 * len(all_terms)  # about what the claim is about
            and _disagrees(facts, unit)
            and (near is None or _closer(question, unit, near, headings))
        ):
            near = unit
    if best is not None:
        return Finding("supported", best[1], "", "table-row" if best[1].table_row else "lexical")
    if near is not None:
        return Finding("contradicted", near, "the sentence about the question holds another figure")
    if not facts and not terms:
        return Finding("unsupported", None, "no checkable content")
    if facts_somewhere:
        shown = ", ".join(f.text for f in facts)
        return Finding("unsupported", None, f"{shown} is in the sources, but not in a sentence about the question")
    if facts:
        return Finding("unsupported", None, f"{', '.join(f.text for f in facts)} is in no source")
    return Finding("unsupported", None, "no source sentence about the question says this")


def _closer(question: Question, a: Unit, b: Unit, headings: dict[int, frozenset[str]]) -> bool:
    return focus_share(question, a, headings[a.source.number]) > focus_share(question, b, headings[b.source.number])


def _disagrees(facts: Sequence[Fact], unit: Unit) -> bool:
    """The unit holds a number of a kind the claim states (a percentage, an amount, …) with another value."""
    numeric = [f for f in facts if f.kind != "name"]
    if not numeric:
        return False
    kinds = {f.kind for f in numeric} | {"count"}  # a bare number (a table cell) may be of any kind
    theirs = [f for f in facts_in(unit.text) if f.kind in kinds]
    return bool(theirs) and not any(f.values & g.values for f in numeric for g in theirs)


def headings_terms(sources: Sequence[Source]) -> dict[int, frozenset[str]]:
    return {s.number: frozenset(content_terms(s.heading())) for s in sources}


def evidence(unit: Unit, locate: Locator | None) -> Evidence:
    """The unit as evidence, at its own page and lines when ``locate`` can tell (else the source's)."""
    s = unit.source
    where = locate(s, unit.start, unit.end) if locate else None
    p0, p1, l0, l1 = where if where else (s.page_start, s.page_end, s.line_start, s.line_end)
    return Evidence(s.number, " ".join(unit.text.split()), p0, p1, l0, l1, s.path)


def position_in_pages(pages: Sequence[tuple[int, int, tuple[int, ...]]], offset: int) -> tuple[int, int]:
    """(page_no, line_no) of a document offset, from the store's ``page_starts`` rows."""
    starts = [p[1] for p in pages]
    i = max(0, bisect_right(starts, offset) - 1)
    page_no, page_start, lines = pages[i]
    line = max(0, bisect_right(lines, offset - page_start) - 1) if lines else 0
    return page_no, line + 1
