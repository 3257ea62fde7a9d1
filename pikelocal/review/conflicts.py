"""Conflicts between documents: every statement of a checklist item's value in the KB, found
without the LLM, and those whose value differs from the answer's.

The answer call reads a few sources and quotes one sentence; a deadline written again in the evaluation rules, or a
weight in a scoring table and again in the text, is never in front of it. So the system reads the whole text for
each item: a statement is a sentence holding one of the item's hint terms (both vocabularies: 押標金 and 投标保证金)
with a value of the item's kind soon after it, in the same sentence. Two statements disagree when their normal forms
differ (``text/values.py``: 35萬900元 and 350,900元 agree).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.review import ChecklistItem, Located, ReviewQuote, Value, ValueKind
from pikelocal.query.verify.support import position_in_pages
from pikelocal.store.store import Store
from pikelocal.text import concepts
from pikelocal.text.bounds import bound_of, reached_case
from pikelocal.text.copies import copies_statements, counts_the_bid
from pikelocal.text.examples import EXAMPLE, SUPPOSED_CASE
from pikelocal.text.numerals import ZH_DIGIT_CHARS, ZH_FINANCIAL_CHARS, ZH_UNIT_CHARS
from pikelocal.text.subjects import LINE_AFTER, LINE_BEFORE, START_POINT
from pikelocal.text.ticked_options import blank_unticked
from pikelocal.text.values import SPAN_KINDS, prepare, same_value, values_in

# The kinds whose values can be compared; a name, list or text answer is never "in conflict" by this check.
VALUED: frozenset[ValueKind] = frozenset({"amount", "date", "duration", "count", "percentage"})
# A value belongs to a term when it is the first value of the item's kind after the term and starts within this
# many characters of it in the same sentence (further on, a sentence about the bid bond turns to the deadline it is
# due by). English spends more characters on the same words: "initial term of 36 months ending on 28 February 2030".
NEAR_CHARS = 30
NEAR_CHARS_EN = 60
# Between a term and its value the sentence goes on about the term: a comma, semicolon or 并/且 (and) turns it to
# another subject ("在投标有效期内并在…之日起30天内" is not the validity period).
_CLAUSE_TURN = re.compile(r"[，,；;]|并|且")
# A clause that gives an example states nothing of this tender ("例如投标截止日为2014年6月30日": text/examples.py).
_CLAUSE_START = re.compile(r"[，,；;。:：]")
# Words that say an item is a score's weight, so that a value in points (26.25分) states it; a damages cap in points
# ("最高得14分") is a scoring rule, not a cap.
_SCORING = re.compile(r"评分|评审|总分|權重|权重|配分|評分|分值|(?i:weight|score|points)")
MIN_TERM_CHARS = 2
LINES_CHARS = 600  # the most of a citation's lines read back (a table flattened into one line)
# A line that starts a field of its own (a number, an ordinal, a bracket, or a label and its colon), not one that
# continues the line above.
_FIELD_START = re.compile(r"\s*(?:[\d一二三四五六七八九十（(【\[]|[^\n：:]{1,16}[：:])")
COMPOUND_CHARS = 6  # how far before a term a word it is part of may start (履约保证金, contract's 付款期限)
SHORT_LINE_CHARS = 30  # a line this short ends its sentence (a heading, a form's field); a longer one wraps
_SENTENCE_END = re.compile(r"[。！？；!?;\n]{1}|\.\s")
# What a share is of: a concept followed by 的 or 之 right before the value ("不超过合同总价的10%", "契約價金總額之
# 20%") is its base.
# A difference from another value (「應較履約期限長120日以上」, 「比合同期限多30天」): 長, 短, 多 or 少 right before the
# value, and 較/较/比 a little before that.
_COMPARED = re.compile(r"(?:長|长|短|多|少|久)\s*$")
_COMPARING = re.compile(r"較|较|比")
COMPARE_CHARS = 24  # how far before the value 較 may stand (「較契約規定之保固期長 」)


def _compared(text: str, start: int, value_at: int) -> bool:
    """The value at ``value_at`` is a difference from another (「較…保固期長 90 日」), within its sentence from
    ``start``."""
    if _COMPARED.search(text, max(start, value_at - 3), value_at) is None:
        return False
    return _COMPARING.search(text, max(start, value_at - COMPARE_CHARS), value_at) is not None


_BASE = re.compile(r"\s*(?:总额|总价|金额)?\s*[的之]\s*(?:百分之|千分之)?\s*$")
# A sentence that opens with a proviso states an exception to the rule before it ("但涉及向補助機關申請核撥補助款者，
# 付款期限為30工作天", "惟…", "Provided that …", "However, …"): a value of it is the exception's, never a conflict.
_PROVISO = re.compile(
    r"\s*(?:[(（]?[\d一二三四五六七八九十]{1,3}[.、)）]\s*)?(?:但|惟|(?i:provided(?:,)? (?:however|that)|however)\b)"
)
UNIT_REACH = 12  # how far before a term a value it is the unit of may start ("（14）分鐘")
# The measure word a count item's question counts in (几页, 幾份, 多少人), in prepared (simplified) text.
_MEASURE_ASKED = re.compile(r"(?:几|幾|多少)\s*(?:个)?([人份页次名家条项天位])")
# Measure words that count one thing: people are counted in 人, 名 or 位 (「5人以上」 answers 「多少名成员」).
_SAME_MEASURE = {"名": "人", "位": "人"}
# A value right after a period's term and its end counts from that end, not the period's length: 「投标有效期满后30天」
# is how long a guarantee outlives the bid validity, 「保固期屆滿後30日內」 when a bond is returned;
# 「有效期截止日后30天」 and 「合同有效期终止前2个月」 the same, on and back.
_FROM_END = re.compile(
    r"\s*(?:期)?(?:满|滿|届满|屆滿|到期|结束|結束|终止|終止|截止)\s*(?:之日|日)?\s*"
    r"(?:以后|以後|之后|之後|后|後|起|以前|之前|前)"
    r"|\s*(?:以后|以後|之后|之後|后|後)"  # right after the period's name: 「直到投标文件有效期后 30 天内有效」
)
# A value that an "in the range" clause bounds is a condition's, not a statement of the item: 「采购预算金额在1000万元
# 以上的」 says when a rule applies.
_IN_RANGE = re.compile(r"在\s*$")
_BOUND_OF_A_CASE = re.compile(
    r"\s*(?:以上|以下|以内|以內|及以上|及以下)\s*(?:[（(][^（）()]{0,12}[)）])?\s*的"
)  # 「5万元以上的，…」, 「3天以上（包括3天）的」
# A table's next cell naming a criterion before its points (「| 技术部分 | 技术响应情况 (36.0分)」)
_CRITERION_CELL = re.compile(r"\|\s*[\u4e00-\u9fff]{2,}")
# 「给予1%的价格扣除」: a value followed by 的 and a concept is a measure of that concept.
_OF_WHAT = re.compile(r"\s*[的之]\s*")
# A bracket that opens on these notes what a sum includes (「付至合同价款的85%（含预付款）」); a term inside it is the
# note's, and a value after the bracket closes is not the term's. A bracket of other words glosses the term before it
# (「商务部分（投标报价）为70分」), whose value follows.
_NOTE = re.compile(r"\s*(?:含|包含|包括|不含|不包括|除|(?i:incl|excl))")
_BRACKETS = {"（": "）", "(": ")"}
_SUPPOSED = re.compile(SUPPOSED_CASE)
# A contract signed each year for a longer service (「合同一年一签」, 「每年一簽」): its sentence states two terms at
# once, the service's and each contract's, and is set against neither.
_YEARLY = re.compile(r"[一每]\s*年\s*一\s*[签簽]|逐年\s*[签簽]|按年\s*[签簽]")
# 「…澄清问题的截止时间」: the words before 的 (or 之) right before a term name whose it is.
_OWNER = re.compile(r"[的之]\s*$")
OWNER_CHARS = 10


@dataclass(frozen=True)
class Statement:
    """A sentence of the KB that states a value for an item: the value, the sentence and where it stands."""

    value: Value
    sentence: str
    where: Located
    offset: int  # of the sentence in its document's text


def _ticked_only(chunk: ChunkRecord) -> ChunkRecord:
    """The chunk with its form's unticked options blanked, their boxes kept for the readers of ticks
    (``text/ticked_options.py``)."""
    text = blank_unticked(chunk.text, keep_boxes=True)
    return chunk if text == chunk.text else replace(chunk, text=text)


@dataclass
class Corpus:
    """The KB's documents read once for a review: titles, chunks, page starts (for page and line numbers)."""

    titles: dict[int, str]
    chunks: dict[int, list[ChunkRecord]]
    pages: dict[int, list[tuple[int, int, tuple[int, ...]]]]
    first_pages: dict[int, str] = field(default_factory=dict)  # each document's first page (its title block)
    _named: frozenset[str] | None = field(default=None, repr=False)  # :meth:`named_concepts`, once read

    def named_concepts(self) -> frozenset[str]:
        """Every concept some chunk of the documents names (``text/concepts.py``, with those its terms hold), read
        once a review."""
        if self._named is None:
            found: set[str] = set()
            for chunks in self.chunks.values():
                for chunk in chunks:
                    found |= concepts.active().broad_concepts_in(chunk.text)
            self._named = frozenset(found)
        return self._named

    @classmethod
    def read(cls, store: Store, doc_ids: Sequence[int] | None = None) -> Corpus:
        docs = [d for d in store.docs.documents() if doc_ids is None or d.id in doc_ids]
        titles = {d.id: d.title or d.path.replace("\\", "/").rsplit("/", 1)[-1] for d in docs}
        # a form's options not ticked are blanked (same length): no reader takes one for the project's fact
        chunks = {d.id: [_ticked_only(c) for c in store.chunks.chunks_of(d.id)] for d in docs}
        pages = {d.id: store.docs.page_starts(d.id) for d in docs}
        first = {d.id: p.text for d in docs if (p := store.docs.page(d.id, 1)) is not None}
        return cls(titles, chunks, pages, first)

    def lines_text(self, where: Located) -> str:
        """The whole lines a citation points to (a quote cut from them is read with its sentence's words); "" when
        the corpus does not hold them."""
        found = self._lines(where)
        return found[0].text[found[1] : found[2]] if found is not None else ""

    def context_text(self, where: Located) -> str:
        """The lines a citation points to read as a reader reads a field: under the section its chunk stands in, and
        after the line above when the first line continues it (a table cell wrapped: 「9 投标有效期 是否符合招标文件
        前附」 over 「表要求（开标后 90 天）。」); "" when the corpus does not hold them."""
        found = self._lines(where)
        if found is None:
            return ""
        chunk, start, end = found
        text = chunk.text[start:end]
        if not _FIELD_START.match(text):
            start = chunk.text.rfind("\n", 0, max(0, start - 1)) + 1
        section = " › ".join(chunk.section_path[-2:])
        return f"{section}\n{chunk.text[start:end]}"

    def _lines(self, where: Located) -> tuple[ChunkRecord, int, int] | None:
        """The chunk holding the lines a citation points to, and where they start and end in its text."""
        pages = self.pages.get(where.doc_id) or []
        if where.line_start is None or not pages:
            return None
        index = next((i for i, p in enumerate(pages) if p[0] == (where.page or pages[0][0])), None)
        if index is None:
            return None
        _page, page_start, lines = pages[index]
        first, last = where.line_start, where.line_end or where.line_start
        if not 1 <= first <= len(lines):
            return None
        start = page_start + lines[first - 1]
        after = pages[index + 1][1] if index + 1 < len(pages) else start + LINES_CHARS
        end = min(page_start + lines[last] if last < len(lines) else after, start + LINES_CHARS)
        for chunk in self.chunks.get(where.doc_id, []):
            if chunk.char_start <= start < chunk.char_end:
                return chunk, start - chunk.char_start, end - chunk.char_start
        return None


@dataclass(frozen=True)
class _Subject:
    """What an item is about, as the statements of its value must be: its kind, the concepts its label, hints and
    questions name (``text/concepts.py``), and the measure word its question counts in (几页: 页)."""

    kind: ValueKind
    concepts: frozenset[str]
    measure: str
    bound: str = ""  # the item's (a cap: "max"), which its values must be printed as
    weight: bool = False  # a score's weight: a fixed share, never a bound
    named: frozenset[str] = frozenset()  # the concepts of the item's label (违约金上限: liquidated_damages)

    @classmethod
    def of(cls, item: ChecklistItem) -> _Subject:
        words = " ".join((item.label, *item.hints, *item.questions.values()))
        asked = next((m for q in item.questions.values() if (m := _MEASURE_ASKED.search(prepare(q)))), None)
        measure = asked.group(1) if asked else ""
        named = concepts.active().concepts_in(item.label)
        return cls(item.kind, concepts.active().concepts_in(words), measure, item.bound, _is_weight(item), named)

    def generic(self, term: str) -> bool:
        """A bound item's hint term naming none of its concepts (不超过, 累计, 上限 for the cap on damages): a
        sentence it stands in must name the item's label's concept to state the item (「相对湿度：日平均值不超过
        95%」 does not)."""
        return bool(self.bound and self.named) and not concepts.active().concepts_in(term) & self.concepts

    def names_label(self, sentence: str) -> bool:
        return bool(concepts.active().broad_concepts_in(sentence) & self.named)

    def bounded_as_asked(self, text: str, start: int, end: int) -> bool:
        """The value at ``text[start:end]`` is printed as the item asks: as its bound where it has one (a cap:
        「累计不超过合同总价的10%」, not 「每日千分之六」), and a weight's share with none (「不得超过投标报价的10%」
        is a rule on prices, not the price's weight)."""
        bound = bound_of(text, start, end)
        if self.bound:
            return bound == self.bound
        return not (self.weight and bound and text[start:end].rstrip().endswith(("%", "％")))

    def names_another(self, text: str, at: int, size: int) -> bool:
        """The term at ``text[at:at + size]`` is part of a word that names another concept than the item's: 期限 in
        付款期限 (the payment's deadline, not the contract's term), 保证金 in 履约保证金 for the bid bond (judged on
        the folded words that end at the term or hold it), or is another concept's by 的 (「澄清问题的截止时间」 is the
        clarification's deadline, not the bids'; 「递交投标文件的截止时间」 is the bids')."""
        left = max(0, at - COMPOUND_CHARS)
        before, word = concepts.fold(text[left:at]), concepts.fold(text[at : at + size])
        whole = before + word
        for m in concepts.active().find(whole):
            joined = m.end == len(before) or m.start < len(before) < m.end  # ends at the term, or holds its start
            if joined and m.concept not in self.concepts:
                return True
        owner = _OWNER.search(text, max(0, at - 3), at)
        if owner is None:
            return False
        named = concepts.active().find(concepts.fold(text[max(0, owner.start() - OWNER_CHARS) : owner.start()]))
        return bool(named) and named[-1].concept not in self.concepts  # 「澄清问题的截止时间」: the clarification's

    def measures_another(self, text: str, end: int) -> bool:
        """The value ending at ``text[end]`` is followed by 的 and a concept not the item's: it measures that
        (「给予1%的价格扣除」 is a deduction, not the price's weight)."""
        joined = _OF_WHAT.match(text, end)
        if joined is None:
            return False
        found = concepts.active().find(concepts.fold(text[joined.end() : joined.end() + 12]))
        return bool(found) and found[0].start == 0 and found[0].concept not in self.concepts

    def owns(self, value: Value, between: str) -> bool:
        """A value belongs to the item when the concept named nearest before it (after the item's term) is one
        the item names, or none is (a passing line of 80 分 after 技術評分…及格 is no weight), it is not counted from
        the end of the item's period (「有效期满后30天」), and a count is in the item's measure (3 份 of copies is no
        page limit; 人, 名 and 位 count people alike)."""
        if _FROM_END.match(between):
            return False
        folded = concepts.fold(START_POINT.sub(" ", between))
        found = concepts.active().find(folded)
        if found and _BASE.match(folded, found[-1].end):  # "合同总价的 10%": the share's base, not its subject
            found.pop()
        if found and found[-1].concept not in self.concepts:
            return False
        unit = _SAME_MEASURE.get(prepare(value.unit)[-1:], prepare(value.unit)[-1:])
        measure = _SAME_MEASURE.get(self.measure, self.measure)
        if self.kind == "count" and measure and unit and unit != measure:
            return False
        # a committee is never of one or two (「由评标委员会讨论确定一名候选人」, 「委員互推一人」 count others)
        committee = self.kind == "count" and "evaluation_committee" in self.named
        return not (committee and value.number is not None and value.number < MIN_COMMITTEE)


# a period before or after an event (「截止时间 3 年内」, 「截止时间前 10 日」): a date after it is the period's end
_DURATIONS: tuple[ValueKind, ...] = ("duration",)
_WINDOW = re.compile(r"\s*(?:以内|之内|内|內|以前|之前|前|以后|之后|后|後)")
MIN_COMMITTEE = 3  # members: mainland law asks three or more (five for a tender), Taiwan's five or more


def statements(corpus: Corpus, item: ChecklistItem) -> list[Statement]:
    """Every sentence stating a value of ``item``'s kind right after one of its hint terms, once each, in
    document order."""
    terms = [t for t in item.hints if len(t) >= MIN_TERM_CHARS]
    if item.kind not in VALUED or not terms:
        return []
    points = _is_weight(item)
    subject = _Subject.of(item)
    if subject.kind == "count" and {"copies", "bid_documents"} <= subject.concepts:  # the bid's copies: totals
        return _copies(corpus)
    found: dict[tuple[int, int], Statement] = {}
    for doc_id, chunks in corpus.chunks.items():
        for chunk in chunks:
            folded = chunk.text.lower()  # English hints match whatever the case ("Warranty", "warranty")
            for term in terms:
                for at in _occurrences(folded, term.lower()):
                    if subject.names_another(chunk.text, at, len(term)) or _unit_of_value(chunk.text, at, len(term)):
                        continue
                    s = _statement(corpus, doc_id, chunk, at, len(term), subject)
                    if s is not None and subject.generic(term) and not subject.names_label(s.sentence):
                        continue  # 「不超过95%」 of humidity is no cap on damages
                    if s is not None and (points or s.value.unit != "points"):
                        found.setdefault((doc_id, s.offset), s)
    if points and any(s.value.unit == "points" for s in found.values()):  # a score's weights are its points
        found = {k: s for k, s in found.items() if s.value.unit == "points"}
    return sorted(found.values(), key=lambda s: (s.where.doc_id, s.offset))


# A sentence whose subject is the contract (「本合同自…生效」, 「11.2 本协议有效期…」, 「契約…」), naming no
# bid before the term: a validity it states is the contract's.
_CONTRACT_SUBJECT = re.compile(r"^\s*(?:[\d.．]+\s*)?(?:本|该|該|此)?(?:合同|协议|協議|契約|合約)")
_BID_WORD = re.compile(r"投标|投標|响应|響應|报价|報價|磋商|谈判|談判|应答|應答|标书|標書|bid|tender", re.IGNORECASE)


def _about_the_contract(before_term: str) -> bool:
    """The sentence up to a validity's term (the term included) has the contract as its subject and names no bid."""
    return _CONTRACT_SUBJECT.match(before_term) is not None and _BID_WORD.search(before_term) is None


def _copies(corpus: Corpus) -> list[Statement]:
    """Every statement of the bid's copies, each as its total (「正本1份，副本4份」 states 5, not 1 and 4;
    ``text/copies.py``), leaving out those of other papers (「本合同一式四份」)."""
    out: list[Statement] = []
    for doc_id, chunks in corpus.chunks.items():
        for chunk in chunks:
            for c in copies_statements(chunk.text):
                if counts_the_bid(c):
                    value = Value("count", chunk.text[c.start : c.end], str(c.total), float(c.total), "份")
                    start, end = _sentence_bounds(chunk.text, c.start)
                    out.append(_located(corpus, doc_id, chunk, start, end, value))
    unique = {(s.where.doc_id, s.offset): s for s in out}
    return sorted(unique.values(), key=lambda s: (s.where.doc_id, s.offset))


def _unit_of_value(text: str, at: int, size: int) -> bool:
    """The term at ``text[at:at + size]`` is part of a value before it, its unit ("（14）分鐘及（7）分鐘": 分鐘 after
    14; "30日前": 日前 after 30), so it names no subject: the value after it is the next one, of something else."""
    left = max(0, at - UNIT_REACH)
    return any(s < at - left < e for s, e, _v in values_in(text[left : at + size], SPAN_KINDS))


def _is_weight(item: ChecklistItem) -> bool:
    """A percentage item about a score's weight (its label or a question says so)."""
    return item.kind == "percentage" and bool(_SCORING.search(" ".join((item.label, *item.questions.values()))))


def _occurrences(text: str, term: str) -> list[int]:
    """Where ``term`` stands in ``text``; an English term only as whole words ("renewal" is not in "non-renewal")."""
    out, at = [], text.find(term)
    while at >= 0:
        if not (term[:1].isascii() and term[:1].isalpha()) or not _inside_word(text, at, len(term)):
            out.append(at)
        at = text.find(term, at + len(term))
    return out


def _inside_word(text: str, at: int, size: int) -> bool:
    before = text[at - 1] if at > 0 else " "
    after = text[at + size] if at + size < len(text) else " "
    return before.isalnum() or before == "-" or after.isalpha()


def _statement(
    corpus: Corpus, doc_id: int, chunk: ChunkRecord, at: int, size: int, subject: _Subject
) -> Statement | None:
    """The value of the subject's kind nearest after the term at ``at`` in its sentence, as a statement, when it
    belongs to the subject (``_Subject.owns``); None without one."""
    start, end = _sentence_bounds(chunk.text, at)
    if _in_example(chunk.text[start:at]) or _PROVISO.match(chunk.text, start):
        return None
    near = NEAR_CHARS_EN if chunk.text[at : at + 1].isascii() else NEAR_CHARS
    after = chunk.text[at + size : end]
    turn = _CLAUSE_TURN.search(after)
    reach = min(near, turn.start() if turn else near, _aside_end(chunk.text[start:at], after))
    found = [
        (s, e, v)
        for s, e, v in values_in(after, VALUED)
        if v.kind == subject.kind and s < reach and not (v.unit == "points" and _threshold(after, s, e))
    ]
    if not found:
        return None
    s, e, value = found[0]
    if not subject.owns(value, after[:s]) or _conditional(after, s, e) or subject.measures_another(after, e):
        return None
    # 「| 技术部分 | 技术响应情况 (36.0分)」: a criterion's points under the part, not the part's weight
    if subject.weight and _CRITERION_CELL.search(after[:s]):
        return None
    if _compared(chunk.text, start, at + size + s):
        return None  # 「其有效期應較…保固期長 90 日」: a time longer than the item's by 90 days, not the item
    if subject.kind == "date" and any(_WINDOW.match(after, pe) for _s, pe, _v in values_in(after[:s], _DURATIONS)):
        return None  # 「递交截止时间 3 年内（2023 年 8 月 1 日后…）」: a date a period away from the item's, not it
    if not subject.bounded_as_asked(chunk.text, at + size + s, at + size + e) or _supposed(chunk.text, start, at, end):
        return None
    if "bid_validity" in subject.concepts and _about_the_contract(chunk.text[start : at + size]):
        return None  # 「本合同自双方签字盖章之日起生效，有效期为2年」: the contract's validity, not the bids'
    if subject.kind == "duration" and _YEARLY.search(chunk.text, start, end):
        return None  # the service's term and each yearly contract's, both
    return _located(corpus, doc_id, chunk, start, end, value)


def _located(corpus: Corpus, doc_id: int, chunk: ChunkRecord, start: int, end: int, value: Value) -> Statement:
    """The statement of ``value`` in the sentence ``chunk.text[start:end]``, with its page and lines."""
    sentence = " ".join(chunk.text[start:end].split())
    offset = chunk.char_start + start
    pages = corpus.pages.get(doc_id) or []
    page, line = position_in_pages(pages, offset) if pages else (None, None)
    last_line = position_in_pages(pages, chunk.char_start + end - 1)[1] if pages else None
    where = Located(doc_id, corpus.titles[doc_id], page, line, last_line)
    return Statement(value, sentence, where, offset)


def _aside_end(before: str, after: str) -> int:
    """Where the bracketed note a term stands in closes (「（含预付款）、…付至审核价的97%」: the term is the note's,
    the value after it is not), or a reach no value has."""
    depth: list[tuple[str, int]] = []
    for i, ch in enumerate(before):
        if ch in _BRACKETS:
            depth.append((_BRACKETS[ch], i + 1))
        elif depth and ch == depth[-1][0]:
            depth.pop()
    if not depth or not _NOTE.match(before, depth[-1][1]):
        return len(after) + 1
    at = after.find(depth[-1][0])
    return at if at >= 0 else len(after) + 1


def _conditional(text: str, start: int, end: int) -> bool:
    """The value at ``text[start:end]`` bounds a condition (「金额在1000万元以上」, 「人民币5万元以上的，应从基本账户
    转出」: where a sum is that or more; 「工期延误超过3个月的，乙方有权暂停施工」: when a case is reached), not the
    item."""
    if _IN_RANGE.search(text[max(0, start - 3) : start]) and LINE_AFTER.match(text, end):
        return True
    if reached_case(text, start, end):
        return True
    return _BOUND_OF_A_CASE.match(text, end) is not None


def _supposed(text: str, start: int, at: int, end: int) -> bool:
    """The term at ``at`` stands in a case supposed to explain a rule (「如投标截止日为2025年10月1日，则近3年是指…」:
    ``text/examples.SUPPOSED_CASE``), in its sentence ``text[start:end]``."""
    return any(m.start() <= at < m.end() for m in _SUPPOSED.finditer(text, start, end))


def _threshold(text: str, start: int, end: int) -> bool:
    """Points at ``text[start:end]`` set a line a score must reach ("達80分以上", "未達70分者"), not a weight."""
    return bool(LINE_BEFORE.search(text[max(0, start - 3) : start]) or LINE_AFTER.match(text, end))


def _in_example(before: str) -> bool:
    """The clause leading to a term (the sentence's text before it, from the last comma) gives an example, or the
    clause before it is the example's marker alone ("for example, if the closing date is …")."""
    starts = [0, *(m.end() for m in _CLAUSE_START.finditer(before))]
    if EXAMPLE.search(before[starts[-1] :]):
        return True
    marker = before[starts[-2] : starts[-1]] if len(starts) > 1 else ""
    return bool(EXAMPLE.fullmatch(marker.strip(" \t\n,，;；:：")))


def _sentence_bounds(text: str, at: int) -> tuple[int, int]:
    """[start, end) of the sentence around ``at``: after the last sentence end before it, to the next one (a line
    break ends a sentence only when the line is short, as a table row; a wrapped line does not)."""
    start = 0
    for m in _SENTENCE_END.finditer(text, 0, at):
        if m.group(0) != "\n" or _short_line(text, m.start()):
            start = m.end()
    end = len(text)
    for m in _SENTENCE_END.finditer(text, at):
        if m.group(0) != "\n" or _short_line(text, m.start()):
            end = m.end() if m.group(0) != "\n" else m.start()
            break
    return start, end


def _short_line(text: str, newline: int) -> bool:
    """The line ending at ``newline`` is short (a heading) or a Markdown table row, so the break ends its
    sentence."""
    line_start = text.rfind("\n", 0, newline) + 1
    line = text[line_start:newline].strip()
    if _FIGURE_ENDS.search(line) and _UNIT_STARTS.match(text, newline + 1):
        return False  # 「…最高限价为人民币玖拾柒」 then 「万元整」: a figure wrapped, its unit on the next line
    return newline - line_start < SHORT_LINE_CHARS or line.startswith("|") or line.endswith("|")


_FIGURE_ENDS = re.compile(rf"[\d{ZH_DIGIT_CHARS}{ZH_UNIT_CHARS}{ZH_FINANCIAL_CHARS}]$")
_UNIT_STARTS = re.compile(r"[ \t]*[万萬亿億元圆圓%％‰]")


def disagreeing(answer: Value, found: Sequence[Statement]) -> list[Statement]:
    """The statements whose value differs from the answer's, one per distinct value (the first in document
    order). Counts of different things (5人 and 1个) do not disagree."""
    out: list[Statement] = []
    for s in found:
        if not _comparable(answer, s.value):
            continue
        if not same_value(answer, s.value) and not any(same_value(s.value, o.value) for o in out):
            out.append(s)
    return out


def _comparable(a: Value, b: Value) -> bool:
    """Values of one kind (a bond as a share of the price and one as a sum are not compared), and counts in one
    measure."""
    if a.kind != b.kind:
        return False
    return a.kind != "count" or not (a.unit and b.unit) or a.unit.lower().rstrip("s") == b.unit.lower().rstrip("s")


def as_quote(s: Statement) -> ReviewQuote:
    return ReviewQuote(text=s.sentence, where=s.where, value=s.value)
