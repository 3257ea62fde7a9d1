"""Rows the system reads without the model: a form's ticked box, a data sheet's block naming the purchaser or the
agent, a labelled field (「项目名称：…」), a first page's title block, a score's composition (its criteria, and the
points of its price or technical part). Each is cited at the page and lines it was read from, and marked in the row's
``extra["read"]``."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import TypeVar

from pikelocal.domain.review import Checklist, ChecklistItem, Located, ReviewQuote, ReviewRow, Value, ValueKind
from pikelocal.query.verify.support import position_in_pages
from pikelocal.review.conflicts import VALUED, Corpus
from pikelocal.review.field_lines import Field, fields, head_of, referred_label, slash_readings
from pikelocal.review.role_names import ROLES, role_names
from pikelocal.review.score_table import PRICE, TECHNICAL, Composition, Criterion, composition, is_about
from pikelocal.review.ticks import as_yes_no, ticked_option
from pikelocal.review.title_block import title_block
from pikelocal.text import concepts
from pikelocal.text.award_rules import states_award_rule
from pikelocal.text.bid_languages import bid_language
from pikelocal.text.bid_openings import deadline_date, opening_announced, opening_at_deadline
from pikelocal.text.bid_submission import submission_way
from pikelocal.text.binding_forms import binding_form
from pikelocal.text.bounds import bound_of
from pikelocal.text.clarification_deadlines import Deadline, clarification_deadline
from pikelocal.text.copies import copies_statements, counts_the_bid
from pikelocal.text.delay_damages import delay_damages
from pikelocal.text.dispute_forums import dispute_forum
from pikelocal.text.document_periods import obtaining_period
from pikelocal.text.evaluation_methods import evaluation_method
from pikelocal.text.experience_rules import experience_rule
from pikelocal.text.fixed_price import says_fixed_price
from pikelocal.text.joint_bids import refuses_joint_bids
from pikelocal.text.procurement_methods import method_named
from pikelocal.text.sentences import clean_sentence, sentence_spans
from pikelocal.text.subcontracting import forbids_subcontracting
from pikelocal.text.term_ends import term_to_end_date
from pikelocal.text.ticked_options import TICKED, UNTICKED
from pikelocal.text.values import normalise, values_in
from pikelocal.text.waivers import waiver_clause

_Read = TypeVar("_Read")  # what a sentence reader reads (:func:`_first_reading`)


def ticked_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """The item answered from a ticked box after one of its terms (review/ticks.py). An amount, date or other
    valued item takes only a negative tick ("☑不提交": there is none), never a positive one, whose value is
    elsewhere."""
    found = ticked_option(corpus, item)
    if found is None:
        return None
    negative = as_yes_no(found.option) == "no"
    if item.kind in VALUED and not negative:
        return None
    value = Value("yesno", found.option, as_yes_no(found.option)) if item.kind == "yesno" else None
    quote = ReviewQuote(found.line, found.where, value)
    row = _read_row(checklist, item, question, found.option, value, quote, "ticked box")
    if negative and item.kind == "text" and concepts.active().concepts_in(item.label) & _BONDS:
        return replace(row, verdict="not_stated")  # 「投标保证金 ☑不收取」: no bond, so no form of it
    return row


def role_row(row: ReviewRow, item: ChecklistItem, corpus: Corpus) -> ReviewRow | None:
    """An item asking who the purchaser or the procurement agent is (its label and hints name one of the two),
    answered from the first block of the documents that names the role and then its 「名称：」
    (``review/role_names.py``), cited at that block's page and lines. Read before the model is asked: such a block
    is the data sheet's own answer, where the model's quote may be any sentence that mentions the role (the shared
    tender's 「招标代理服务费」 section gave a financing platform's name as the agent)."""
    if item.kind not in ("name", "text"):
        return None
    wanted = concepts.active().concepts_in(" ".join((item.label, *item.hints))) & ROLES
    if len(wanted) != 1:
        return None
    for doc_id, chunks in corpus.chunks.items():
        pages = corpus.pages.get(doc_id) or []
        for chunk in chunks:
            for found in role_names(chunk.text, wanted):
                lines = chunk.text.split("\n")
                start = chunk.char_start + sum(len(line) + 1 for line in lines[: found.first_line])
                end = chunk.char_start + sum(len(line) + 1 for line in lines[: found.last_line + 1]) - 1
                page, first = position_in_pages(pages, start) if pages else (None, None)
                last = position_in_pages(pages, end)[1] if pages else None
                where = Located(doc_id, corpus.titles[doc_id], page, first, last)
                text = " ".join(" ".join(lines[found.first_line : found.last_line + 1]).split())
                value = Value(item.kind, found.name, found.name)
                quote = ReviewQuote(text, where, None)
                return replace(row, answer=found.name, verdict="found", values=(value,), quotes=(quote,),
                               extra={**row.extra, "read": "role block"})  # fmt: skip
    return None


# A count is left out: a field of copies counts only the original (「正本份数：壹份；副本份数：贰份」).
_FIELD_KINDS = frozenset({"name", "text", "yesno", *VALUED}) - {"count"}
_TICKS = re.compile(f"[{TICKED}{UNTICKED}√✓]")  # a form's boxes (review/ticks.py) or a check mark in a value
_HOLES = re.compile(r"\S\s{3,}\S")  # 「上      安局宝山分局」: a text with glyphs lost, no name to show
_JOINED = re.compile(r"[及和与與、/]")  # 「投标截止及开标时间」: one value of two items
_VETO = re.compile(r"^\W*否[决決]")  # 「否决条款」 (a rejection clause) is no 否 (no)
# A value pointing elsewhere (「项目名称：项目名称见应答人须知前附表。」, 「详见第二章」): the field there is the answer
_POINTER = re.compile(
    r"^[^见見，,。；;]{0,8}(?:详|詳|参|參)?[见見][^，,。；;]{0,30}(?:表|章|节|節|条|條|附件|部分|须知|須知|公告)[。.]?$"
)
_GOES_ON = re.compile(r"^[及和与與或、]")
_COMPANY = re.compile(r"(?:公司|集团|集團)\s*$")
_TOLERANCE = re.compile(r"±|\+/-|偏离|偏離|偏差|上下浮动|上下浮動")  # a percentage that is a band around a value


def field_row(row: ReviewRow, item: ChecklistItem, checklist: Checklist, corpus: Corpus) -> ReviewRow | None:
    """An item asking for a name, a figure or a yes/no answered from the first labelled field of the documents whose
    label names the item's concept (its label's, ``text/concepts.py``) and whose value is of the item's kind
    (``review/field_lines.py``): 「2、项目名称：…」, 「3、采购金额：197.4万元」, 「7、是否接受联合体：否」, an amount's
    field saying there is none (「投标保证金：不收取」), a date's field naming another date field (「开标时间：同投标
    文件提交截止时间」, read as that field's date). A label naming another item's concept as well, not joined to it
    (「服务期限质保期」), answers neither; 「投标截止及开标时间」 answers both. A text item is read only under its own
    label (「开标地点：…」) or another name of its own concept (:func:`_only_own`: 「项目实施地点：…」), only a value
    that ends where its field does, and never a value pointing elsewhere (「见…前附表」). Cited at the field's
    lines."""
    if item.kind not in _FIELD_KINDS:
        return None
    wanted = concepts.active().concepts_in(item.label)
    own_words = {concepts.fold(w.strip()) for w in item.label.split("/")}
    if not wanted and item.kind != "text":
        return None
    others = set().union(*(concepts.active().concepts_in(i.label) for i in checklist.items if i.id != item.id))
    own = wanted - others  # concepts no other item's label names: 履约地点's place, not 开标地点's opening
    others -= wanted
    for doc_id, chunks in corpus.chunks.items():
        if not chunks:
            continue
        doc_text = "".join(c.text for c in chunks)
        found = list(fields(doc_text))
        for f in found:
            names = _names(f)
            if item.kind == "text":  # any text is a value: the label must be the item's own (「开标地点」)
                if not any(concepts.fold(n) in own_words for n in names) and not any(
                    _only_own(n, own, item) for n in names
                ):
                    continue
            else:  # a label and its alias name one field (「递交截止时间（即投标截止时间和开标时间）」): joined
                named = set().union(*(_named_by(head_of(name), wanted) for name in names))
                joined = bool(f.alias) or _JOINED.search(f.label) is not None
                if not named & wanted or (named & others and not joined):
                    continue
            read = _field_value(f, item, found)
            if read is None or (read[1] is not None and _waived_after(doc_text, f.last_line, wanted)):
                continue
            answer, value = read
            where, text = _lines_at(corpus, doc_id, f.line, f.last_line)
            quote = ReviewQuote(text, where, value)
            return replace(row, answer=answer, verdict="found", values=(value,) if value else (), quotes=(quote,),
                           extra={**row.extra, "read": "labelled field"})  # fmt: skip
    return None


WAIVER_LINES = 2  # lines after a figure's field that may waive it


def _waived_after(text: str, last_line: int, wanted: frozenset[str]) -> bool:
    """A line right after a field waives what it names (「10 谈判保证金」, 「金额:壹万元整(¥10000.00)」, then
    「本项目免缴谈判保证金，…」): the form's figure is not asked for (``text/waivers.py``)."""
    after = text.split("\n")[last_line + 1 : last_line + 1 + WAIVER_LINES]
    return any(waiver_clause(line, wanted) is not None for line in after)


def _names(f: Field) -> tuple[str, ...]:
    """A field's label and alias, and what a label with a slash stands for where that is a term (「项目实施/提供
    地点」 is 项目实施地点)."""
    return f.names + tuple(r for r in slash_readings(f.label) if concepts.only_terms(r))


def _named_by(label: str, wanted: frozenset[str]) -> set[str]:
    """The concepts a label names, less one whose term only qualifies a wanted concept's term that overlaps it and
    ends after it: in 「采购平台电子投标截止时间」 the bids' deadline (投标截止时间) is what is named, 电子投标 (the
    form of the documents) only says which bids; in 「服务期限质保期」 the two terms stand side by side, and both are
    named."""
    folded = concepts.fold(label)
    matches = concepts.active().find(folded)
    spans = concepts.term_spans(folded, wanted)
    return {
        m.concept
        for m in matches
        if m.concept in wanted or not any(m.start < start < m.end < end for start, end in spans)
    }


# The documents a field may name besides its own concept: 「投标文件递交地点」 is where the bid is handed in.
_OBJECTS = frozenset({"bid_documents", "tender_documents"})


def _only_own(name: str, own: frozenset[str] | set[str], item: ChecklistItem) -> bool:
    """Whether a field's label (not its brackets: 「授权代表（签字）」 is a signature's place) is nothing but names
    of concepts, one of them the item's own (no other item's label names it) and the others only the documents
    (``_OBJECTS``), and holds one of the item's hints: the place item's 「项目实施地点」 or 「服务地点」, other names
    of its 履约地点; the submission's 「投标文件递交地点」. A longer label that only holds such a name
    (「法定代表人或授权委托人」) is another field, and so is one naming another concept (「投标保函格式」 is a
    guarantee's template) or another side of a broad one (「签字盖章」 is the document's form, as 装订 is, but not
    the binding the item asks for)."""
    named = concepts.active().concepts_in(name)
    if not (named & own and named <= own | _OBJECTS and concepts.only_terms(name)):
        return False
    folded = concepts.fold(name)
    return any(concepts.fold(hint) in folded for hint in item.hints)


def _field_value(f: Field, item: ChecklistItem, found: list[Field]) -> tuple[str, Value | None] | None:
    """The field's answer and value for the item, or None when the value is not of the item's kind."""
    if item.kind in ("name", "text"):
        f = _name_or_code(f, item)
        blank = not f.whole or (item.kind == "text" and not f.closed) or _HOLES.search(f.value) is not None
        blank = blank or len(f.value) < 2 or concepts.only_terms(f.value) or _TICKS.search(f.value) is not None
        blank = blank or _POINTER.match(f.value.strip()) is not None
        # a row with no colon whose value has cells (「1 评标方法 中标候选人排序方法 按得分…」: a third column) or
        # goes on from a label cut at its space (「4 …的语言 及计量单位 符合…」): no name or text read
        cells = re.search(r"\s", f.value.strip()) is not None or _GOES_ON.match(f.value) is not None
        blank = blank or (f.colonless and cells)
        # a project's name is no company's (「3 项目名称 华润万家有限公司」 names the purchaser's)
        company = _COMPANY.search(f.value) is not None
        blank = blank or ("project_name" in concepts.active().concepts_in(item.label) and company)
        return None if blank else (f.value, Value(item.kind, f.value, f.value))
    if _VETO.match(f.value):
        return None  # a reference to the rejection clauses, no answer
    if item.kind == "yesno":
        said = normalise(f.value, "yesno") if _TICKS.search(f.value) is None else None
        return (f.value, said) if said is not None else None
    if item.kind == "percentage" and _TOLERANCE.search(f.value):
        return None  # 「评分偏离超过…均值±20%」: a tolerance, no share or weight
    part = concepts.active().concepts_in(item.label) & {PRICE, TECHNICAL}
    if item.kind == "percentage" and part and (parts := _parts(f.value)):
        of_part = [v for words, v in parts if concepts.active().concepts_in(words) & part]
        return (f.value, of_part[0]) if len(of_part) == 1 else None  # 「商务部分10.0分 技术部分60.0分 报价得分30.0分」
    value = normalise(f.value, item.kind)
    if value is not None:
        return f.value, value
    if item.kind == "amount" and (share := _share_set(f.value)) is not None:
        return f.value, share  # 「履约保证金的金额：中标金额的5%」: a sum set as a share of the price
    if item.kind == "amount" and (no := normalise(f.value, "yesno")) is not None and no.normal == "no":
        return f.value, None  # 「投标保证金：不收取」: there is none
    if item.kind == "date" and (label := referred_label(f.value)):
        other = concepts.active().concepts_in(label)
        for g in found:
            named = concepts.fold(g.label) == concepts.fold(label) or (
                other and concepts.active().concepts_in(g.label) == other
            )
            if g is not f and named and (date := normalise(g.value, "date")) is not None:
                return f"{g.value}（{f.value}）", date
    return None


_SHARE_KINDS: tuple[ValueKind, ...] = ("percentage",)


def _parts(value: str) -> list[tuple[str, Value]]:
    """A value listing the parts of a score, each its words and its points or share (「商务部分10.0分 技术部分60.0分
    报价得分30.0分」); [] for a value of one figure."""
    found = [(start, end, v) for start, end, v in values_in(value, _SHARE_KINDS)]
    if len(found) < 2:
        return []
    ends = [0, *(end for _s, end, _v in found[:-1])]
    return [(value[before:start], v) for before, (start, _e, v) in zip(ends, found, strict=True)]


def _share_set(value: str) -> Value | None:
    """The share a field's value sets a sum as (「中标金额的5%，以万元为单位向上取整」), the first one, not points; None
    for a ceiling (「履约保证金的数额不得超过政府采购合同金额的10%」: the rule's limit, not the sum)."""
    for start, end, share in values_in(value, _SHARE_KINDS):
        if share.unit == "points":
            continue
        return None if bound_of(value, start, end) == "max" else share
    return None


# A reference code ending a value (「進氣閥等4項採購　C13A07469A 。」): spaces, the code, an end mark at most.
_TRAILING_CODE = re.compile(r"\s+([A-Za-z0-9][A-Za-z0-9\-_/.]{3,}[A-Za-z0-9])\s*[。.]?$")


def _name_or_code(f: Field, item: ChecklistItem) -> Field:
    """A field labelled both the project's name and its case number (「採購標的名稱及案號：進氣閥等4項採購
    C13A07469A」) split where its value ends with a code: the code for the case number's item, the words before it
    for the name's; the field itself otherwise."""
    named = set().union(*(concepts.active().concepts_in(n) for n in f.names))
    code = _TRAILING_CODE.search(f.value)
    if not {"project_name", "case_number"} <= named or code is None or not any(c.isdigit() for c in code[1]):
        return f
    own = concepts.active().concepts_in(item.label)
    if "case_number" in own:
        return replace(f, value=code[1])
    if "project_name" in own:
        return replace(f, value=f.value[: code.start()].strip())
    return f


def title_row(row: ReviewRow, item: ChecklistItem, corpus: Corpus) -> ReviewRow | None:
    """An item asking for the project's name or its purchaser (its label and hints name the concept), answered
    from the first document whose first page's heading names it (``review/title_block.py``), cited at page 1."""
    if item.kind not in ("name", "text"):
        return None
    named = concepts.active().concepts_in(" ".join((item.label, *item.hints)))
    field = "name" if "project_name" in named else "purchaser" if "purchaser" in named else ""
    if not field:
        return None
    for doc_id, page in corpus.first_pages.items():
        block = title_block(page)
        value = (block.name if field == "name" else block.purchaser) if block is not None else ""
        if block is not None and value:
            where = Located(doc_id, corpus.titles[doc_id], 1, block.line_start, block.line_end)
            quote = ReviewQuote(" ".join(block.text.split()), where, None)
            return replace(row, answer=value, verdict="found", values=(Value(item.kind, value, value),),
                           quotes=(quote,), extra={**row.extra, "read": "title block"})  # fmt: skip
    return None


def score_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """An item asking for the evaluation's criteria (a list naming that concept), or for the weight of the price or
    the technical part (a percentage naming the price score or the technical score), answered from the first score
    composition of the documents (``review/score_table.py``), cited at its lines; the model is not asked. A weight
    is its points, with the total when it is not 100 (「投标报价：26.25分」 of 101.25), or the sum of the rows about
    the part where they stand together (「价格 45」, 「价格 5」: 50); a composition naming no such part, or naming
    it in rows apart, answers nothing."""
    named = concepts.active().concepts_in(" ".join((item.label, *item.hints)))
    if item.kind == "list" and "evaluation_criteria" in named:
        part = ""
    elif item.kind == "percentage" and len(named & {PRICE, TECHNICAL}) == 1:
        part = next(iter(named & {PRICE, TECHNICAL}))
    else:
        return None
    for doc_id, chunks in corpus.chunks.items():
        # a sentence's parts (「其中商务部分30分、技术部分30分…」) weigh the parts but name no criteria
        if not chunks or (read := composition("".join(c.text for c in chunks), sentences=bool(part))) is None:
            continue
        picked = [c for c in read.criteria if is_about(c, part)] if part else list(read.criteria)
        if part and not _one_run(picked, read):
            continue
        first, last = (picked[0].first_line, picked[-1].last_line) if part else (read.first_line, read.last_line)
        where, text = _lines_at(corpus, doc_id, first, last)
        answer = (
            _points(sum((c.points for c in picked), Decimal(0)), read)
            if part
            else "；".join(f"{c.label}（{_number(c.points)}分）" for c in picked)
        )
        value = normalise(answer, item.kind) or Value(item.kind, answer, answer)
        quote = ReviewQuote(text, where, None)
        return _read_row(checklist, item, question, answer, value, quote, "score composition")
    return None


def _one_run(picked: list[Criterion], read: Composition) -> bool:
    """The criteria about a part are one or more rows standing together in the composition (「价格 45」 and 「价格
    5」 under one 价格部分): their points add up to the part's weight. Rows apart, or none, answer nothing."""
    if not picked:
        return False
    at = [read.criteria.index(c) for c in picked]
    return at == list(range(at[0], at[0] + len(at)))


def copies_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """An item asking how many copies the bid is handed in as (a count whose label names copies), answered from the
    first statement of the documents that counts the bid's copies (``text/copies.py``): 「正本1份，副本4份」 is 5,
    「一正二副」 3, 「磋商响应文件一式三份」 3, cited at the statement's lines; the model is not asked. The total is
    the answer because the model, shown 「正本1份、副本4份」, answers 4 or 1, and a check against the documents'
    other counts finds each part as a conflicting value. A statement about another paper (「本合同一式四份」) or a
    number in all not naming the bid counts nothing."""
    if item.kind != "count" or "copies" not in concepts.active().concepts_in(item.label):
        return None
    for doc_id, chunks in corpus.chunks.items():
        text = "".join(c.text for c in chunks)
        for said in copies_statements(text):
            if not counts_the_bid(said):
                continue
            first, last = text.count("\n", 0, said.start), text.count("\n", 0, said.end)
            where, lines = _lines_at(corpus, doc_id, first, last)
            printed = " ".join(text[said.start : said.end].split())
            answer = f"{said.total}份（{printed}）"
            value = normalise(f"{said.total}份", "count") or Value("count", f"{said.total}份", str(said.total))
            return _read_row(checklist, item, question, answer, value, ReviewQuote(lines, where, value), "copies")
    return None


def award_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """An item asking how the winner is picked (a text item whose label names the award and its basis), answered with
    the first sentence of the documents that names the winner or its candidates and an order of ranking
    (``text/award_rules.py``: 「按得分由高到低顺序推荐中标候选人」), cited at its lines; the model is not asked. Shown
    such a sentence, the model answered the evaluation method (综合评分法), which is another item."""
    if item.kind != "text" or not {"award", "award_basis"} <= concepts.active().concepts_in(item.label):
        return None  # the award's basis (定标方式), not the evaluation method (评标方法), which names no award
    found = _first_sentence(corpus, lambda sentence: sentence if states_award_rule(sentence) else None)
    if found is None:
        return None
    said = Value("text", found.answer, found.answer)
    return _read_row(checklist, item, question, found.answer, said, found.quote(None), "award rule")


def term_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """An item asking for the contract's term (a duration whose label names it) answered with the first span of the
    documents from the contract's start to an end date (``text/term_ends.py``: 「自決標次日起至115年12月31日止」), as
    printed, cited at its sentence's lines; the model is not asked. The model, asked for a length, answered such a
    sentence with one it made up (1年, 30天) or none."""
    if item.kind != "duration" or "contract_term" not in concepts.active().concepts_in(item.label):
        return None
    found = _first_sentence(corpus, term_to_end_date)
    if found is None:
        return None
    span = Value("text", found.answer, found.answer)
    return _read_row(checklist, item, question, found.answer, span, found.quote(None), "term to an end date")


def fixed_price_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A yes/no item asking whether the price is adjusted (its label names price adjustment) answered no from the
    first sentence of the documents saying the price is fixed (``text/fixed_price.py``: 「签约合同价为固定价格」,
    「投标报价应是固定不变的」), cited at its lines; the model is not asked. Shown such a sentence, the model said
    not stated or yes (the sentence names 调整)."""
    if item.kind != "yesno" or "price_adjustment" not in concepts.active().concepts_in(item.label):
        return None
    return _no_row(checklist, item, question, corpus, says_fixed_price, "fixed price")


def method_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking for the procurement method (its label names it) answered with the method the first
    sentence of the documents says this procurement is run by (``text/procurement_methods.py``: 「现对该项目进行国内
    公开招标」, 「招標方式為限制性招標」), as printed, cited at its lines; the model is not asked. Shown such a
    sentence, the model drafted the method and the checks left it to check or withdrew it: the sentence names 招标,
    not 采购方式."""
    if item.kind != "text" or "procurement_method" not in concepts.active().concepts_in(item.label):
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, method_named), "procurement method")


# Characters before a sentence the clarification reader looks for its label in: a data sheet's 「2.2.1 投标人要求澄清
# 招标文件的截止时间」 (21 characters) over its value, with room for a longer label; rows above it are cut off at the
# last sentence's end only, so the reach stays short.
CLARIFICATION_LABEL = 40


def clarification_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A date item asking for the last day to ask for clarification (its label names the clarification) answered from
    the first sentence of the documents giving the bidder that day (``text/clarification_deadlines.py``: 「应于2025年6月
    9日9:00前向招标人提出」, or 「均应在投标截止期15 天前」 as days before the bids' deadline, with no date), cited at
    its lines; the model is not asked. Shown such a sentence, the model said not stated or gave the bids' deadline."""
    if item.kind != "date" or "clarification" not in concepts.active().concepts_in(item.label):
        return None

    read: list[Deadline] = []

    def deadline(sentence: str, label: str) -> str | None:
        found = clarification_deadline(sentence, label)
        if found is None:
            return None
        read.append(found)
        return found.text

    found = _first_sentence(corpus, deadline, label=CLARIFICATION_LABEL)
    if found is None:
        return None
    day = read[-1].date
    return _read_row(checklist, item, question, found.answer, day, found.quote(day), "clarification deadline")


def period_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A date item asking when the tender documents are obtained (its label names that period) answered from the first
    sentence of the documents inviting bidders to obtain them within a period (``text/document_periods.py``: 「请于
    2024年12月20日08时30分至2024年12月24日23时59分…登录…平台下载电子招标文件」), its start as the value, cited at its
    lines; the model is not asked. Shown such a sentence, the model said not stated."""
    if item.kind != "date" or "document_period" not in concepts.active().concepts_in(item.label):
        return None
    reading = _first_reading(corpus, obtaining_period, lambda period: period.text)
    if reading is None:
        return None
    found, period = reading
    start = period.start
    return _read_row(checklist, item, question, found.answer, start, found.quote(start), "document period")


def opening_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """An item asking when the bids are opened (a date whose label names the opening) or where (a text item whose
    label names the opening's place) answered from the first sentence of the documents announcing it
    (``text/bid_openings.py``: 「兹定于2026年5月25日9:30时，在…会议室公开开标」), cited at its lines; the model is not
    asked. Shown such a sentence, the model said not stated for the date or answered the procurement website for the
    place."""
    named = concepts.active().concepts_in(item.label)
    if "bid_opening" not in named or item.kind not in ("date", "text", "name"):
        return None
    if item.kind != "date" and not _PLACE_LABEL.search(item.label):
        return None
    reading = _first_reading(corpus, opening_announced, lambda o: o.when if item.kind == "date" else o.place)
    if reading is None:
        return _at_deadline_row(checklist, item, question, corpus)
    found, opening = reading
    if item.kind == "date":
        return _read_row(checklist, item, question, found.answer, opening.date, found.quote(opening.date), "opening")
    return _text_row(checklist, item, question, found, "opening")


def _at_deadline_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """The opening held at the deadline's own time (``text/bid_openings.py``: 「将于上述应答截止时间的同一时间在…系统
    进行唱价」): the place as the sentence names it; the date as the first sentence giving that deadline a date does
    (quoted second), or no row where none does. Shown the opening's sentence, the model said not stated."""
    reading = _first_reading(corpus, opening_at_deadline, lambda at: at.place)
    if reading is None:
        return None
    found, at = reading
    if item.kind != "date":
        return _text_row(checklist, item, question, found, "opening at the deadline")
    dated = _first_reading(corpus, lambda sentence: deadline_date(sentence, at.deadline), lambda date: date[0])
    if dated is None:
        return None
    deadline, (when, value) = dated
    answer = f"{when}（{at.when}）"
    row = _read_row(checklist, item, question, answer, value, found.quote(None), "opening at the deadline")
    return replace(row, quotes=(*row.quotes, deadline.quote(value)))


_PLACE_LABEL = re.compile(r"地点|地點|place|venue", re.IGNORECASE)


def damages_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking for the damages for late performance (its label names liquidated damages) answered with
    the first clause of the documents setting them at a rate per day, week or time of delay
    (``text/delay_damages.py``: 「每逾期一天，按合同总额的万分之三计算」), cited at its lines; the model is not asked.
    Shown such a clause, the model answered the cap, another penalty or not stated."""
    if item.kind != "text" or "liquidated_damages" not in concepts.active().concepts_in(item.label):
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, delay_damages), "damages for delay")


def dispute_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking how disputes are settled (its label names dispute resolution) answered with the first clause
    of the documents naming the forum of the contract's disputes (``text/dispute_forums.py``:
    「协商不成的，…向甲方所在地人民法院提起诉讼」), cited at its lines; the model is not asked. Shown such a clause,
    the model answered with the challenge procedure of the procurement law or not stated."""
    if item.kind != "text" or "dispute_resolution" not in concepts.active().concepts_in(item.label):
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, dispute_forum), "dispute forum")


def subcontracting_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A yes/no item asking whether the work may be subcontracted (its label names subcontracting) answered no from
    the first sentence of the documents forbidding it (``text/subcontracting.py``: 「本项目不允许分包转包」, 「转包：否
    分包：否」, 「非经采购单位同意，不得转包、分包」), cited at its lines; the model is not asked. Shown such a
    sentence, the model said not stated, or yes (the sentence names 分包)."""
    if item.kind != "yesno" or "subcontracting" not in concepts.active().concepts_in(item.label):
        return None
    return _no_row(checklist, item, question, corpus, forbids_subcontracting, "subcontracting forbidden")


def joint_bid_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A yes/no item asking whether joint bids are accepted (its label names a consortium) answered no from the
    first sentence of the documents refusing them (``text/joint_bids.py``: 「本项目不接受联合体投标」, 「联合体投标 |
    不接受」, 「本機關「不允許」投標廠商以「共同投標」方式參與」), cited at its lines; the model is not asked. Shown
    such a sentence, the model answered yes (the sentence names 联合体投标)."""
    if item.kind != "yesno" or "consortium" not in concepts.active().concepts_in(item.label):
        return None
    return _no_row(checklist, item, question, corpus, refuses_joint_bids, "joint bids refused")


def language_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking the language of the bid (its label names the language) answered with the first sentence of
    the documents stating it (``text/bid_languages.py``: 「投标文件应使用中文文本」, 「請以正體中文呈現」), cited at
    its lines; the model is not asked. The model answered 中文 where the sentence asks for 中文简体 or 正體中文, or
    the check left it to check (the sentence does not say 语言)."""
    if item.kind != "text" or "language" not in concepts.active().concepts_in(item.label):
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, bid_language), "bid language")


_SUBMISSION = re.compile(r"递交方式|遞交方式|投標方式|提交方式|submission", re.IGNORECASE)


def submission_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking how the bid is handed in (its label names the way of submission) answered with the first
    sentence of the documents naming a way of handing in the bid (``text/bid_submission.py``: 「供应商须派代表当面递交
    纸质版响应文件」, 「通过电子采购系统完成加密电子响应文件的上传」), cited at its lines; the model is not asked.
    Shown such a sentence, the model answered a date or said not stated."""
    if item.kind != "text" or _SUBMISSION.search(item.label) is None:
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, submission_way), "submission")


_BINDING = re.compile(r"装订|裝訂|binding", re.IGNORECASE)


def binding_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking how the bid is bound (its label names binding) answered with the first sentence of the
    documents stating a way of binding the bid (``text/binding_forms.py``: 「投标文件须用A4纸胶装成册」), cited at its
    lines; the model is not asked. Shown such a sentence, the model answered with the signature or sealing rules
    beside it, or the number of copies."""
    if item.kind != "text" or _BINDING.search(item.label) is None:
        return None
    found = _first_sentence(corpus, binding_form) or _first_sentence(corpus, partial(binding_form, named=False))
    return _text_row(checklist, item, question, found, "binding")


def experience_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking the bidder's past performance (its label names experience) answered with the first
    sentence of the documents asking for or scoring it (``text/experience_rules.py``), cited at its lines; the model
    is not asked. The model answered with the proof's paperwork or a project manager's record."""
    if item.kind != "text" or "experience" not in concepts.active().concepts_in(item.label):
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, experience_rule), "experience")


def evaluation_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """A text item asking the evaluation method (its label names the award's basis and not the award itself, which
    ``award_row`` reads) answered with the method the first sentence of the documents applies
    (``text/evaluation_methods.py``: 「本项目采用“综合评分法 ”评标」, 「優勝廠商評定方式：序位法」), as printed, cited
    at its lines; the model is not asked. Shown such a sentence, the model answered it, or left it not stated where the
    sentence says 評選 and not 評選方式."""
    named = concepts.active().concepts_in(item.label)
    if item.kind != "text" or "award_basis" not in named or "award" in named:
        return None
    return _text_row(checklist, item, question, _first_sentence(corpus, evaluation_method), "evaluation method")


_UNTICKED = re.compile(f"[{UNTICKED}]")


def waiver_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """An item asking for a security's or a payment's amount or share (a bond, an advance) answered with the first
    clause of the documents saying none is asked for (``text/waivers.py``: 「本项目不收取投标保证金」, 「预付款：无」),
    cited at its sentence's lines, with no value; the model is not asked. A clause after an unticked box
    (「□本项目不收取履约保证金」) is an option not taken. Shown such a clause, the model answered 0, a percentage from
    elsewhere, or not stated."""
    wanted = concepts.active().concepts_in(item.label)
    if item.kind not in ("amount", "percentage") or not wanted:
        return None
    found = _waiver(corpus, wanted)
    if found is None:
        return None
    return _read_row(checklist, item, question, found.answer, None, found.quote(None), "none asked for")


def _waiver(corpus: Corpus, wanted: frozenset[str]) -> _Sentence | None:
    """The first clause of the documents saying none of ``wanted`` is asked for, not one after an unticked box."""

    def waived(sentence: str) -> str | None:
        clause = waiver_clause(sentence, wanted)
        return None if clause is None or _UNTICKED.search(clause) else clause

    return _first_sentence(corpus, waived)


_BONDS = frozenset({"bid_bond", "performance_bond", "warranty_bond"})
_REPLACES = re.compile(r"代替|替代|取代|代之")  # something given instead of the bond (a credit pledge)


def waived_form_row(checklist: Checklist, item: ChecklistItem, question: str, corpus: Corpus) -> ReviewRow | None:
    """How a bond is to be paid (a text item about a bond) where the documents say no such bond is asked for
    (``text/waivers.py``: 「13.1 投标保证金 ☑不收取」): not stated, cited at that clause; the model is not asked.
    Shown the sources, the model answered with a guarantee form's title from the file's forms (投标保函). Where
    something is given instead (「采用信用承诺代替投标保证金」), that is the form: the model is asked."""
    wanted = concepts.active().concepts_in(item.label) & _BONDS
    if item.kind != "text" or not wanted:
        return None

    def replaced(sentence: str) -> str | None:  # 「采用信用承诺代替投标保证金」: the pledge is the bond's form
        named = _REPLACES.search(sentence) and concepts.active().concepts_in(sentence) & wanted
        return sentence if named else None

    found = _waiver(corpus, wanted)
    if found is None or _first_sentence(corpus, replaced) is not None:
        return None
    row = _read_row(checklist, item, question, found.answer, None, found.quote(None), "none asked for")
    return replace(row, verdict="not_stated")


@dataclass(frozen=True)
class _Sentence:
    """A sentence of the documents a reader answered from: its answer, the sentence on one line, where it stands."""

    answer: str
    text: str
    where: Located

    def quote(self, value: Value | None) -> ReviewQuote:
        """The sentence as the row's quote, holding ``value``."""
        return ReviewQuote(self.text, self.where, value)


def _first_sentence(corpus: Corpus, answer_of: Callable[..., str | None], label: int = 0) -> _Sentence | None:
    """The first sentence of the documents (``text/sentences.py``, on one line) that ``answer_of`` answers from. With
    ``label`` > 0, ``answer_of`` is given besides the sentence the words before it on one line: at most ``label``
    characters, back to the last sentence's end (a data sheet's label on the lines above its value)."""
    for doc_id, chunks in corpus.chunks.items():
        text = "".join(c.text for c in chunks)
        for start, end in sentence_spans(text):
            sentence = clean_sentence(text[start:end])
            if label:
                before = "".join(text[max(0, start - label) : start].split())
                answer = answer_of(sentence, re.split(r"[。；;！？!?]", before)[-1])
            else:
                answer = answer_of(sentence)
            if answer is None:
                continue
            where, _lines = _lines_at(corpus, doc_id, text.count("\n", 0, start), text.count("\n", 0, end))
            return _Sentence(answer, sentence, where)
    return None


def _first_reading(
    corpus: Corpus, read: Callable[[str], _Read | None], answer: Callable[[_Read], str]
) -> tuple[_Sentence, _Read] | None:
    """The first sentence of the documents (:func:`_first_sentence`) that ``read`` reads something from, and what it
    read; the sentence's answer is ``answer`` of that."""
    readings: list[_Read] = []

    def answer_of(sentence: str) -> str | None:
        reading = read(sentence)
        if reading is None:
            return None
        readings.append(reading)
        return answer(reading)

    found = _first_sentence(corpus, answer_of)
    return None if found is None else (found, readings[-1])


def unnamed_row(row: ReviewRow, item: ChecklistItem, checklist: Checklist, corpus: Corpus) -> ReviewRow | None:
    """An item stated only where the documents name it (``named = true``: a warranty bond, a site visit, a page
    limit) that no chunk of the documents names, by any term of its own concepts (:func:`own_concepts`) in the three
    vocabularies: not stated, and the model is not asked, so it can invent nothing and costs no call. None where
    some chunk names one, or the item is not so marked or has no concept of its own (BENCHMARKS "Items stated only
    by name")."""
    if not item.named:
        return None
    own = own_concepts(checklist, item)
    if not own or own & corpus.named_concepts():
        return None
    return replace(row, extra={**row.extra, "read": "not named"})


def own_concepts(checklist: Checklist, item: ChecklistItem) -> frozenset[str]:
    """The concepts the item's label names and no other item's label does: 质量保证金's warranty bond, 分包's
    subcontracting, 含税's tax (not 报价's price, which the price's weight names too)."""
    others = set().union(*(concepts.active().concepts_in(i.label) for i in checklist.items if i.id != item.id))
    return concepts.active().concepts_in(item.label) - others


def _no_row(
    checklist: Checklist,
    item: ChecklistItem,
    question: str,
    corpus: Corpus,
    says_no: Callable[[str], bool],
    read: str,
) -> ReviewRow | None:
    """A yes/no item answered no from the first sentence of the documents that ``says_no`` holds ("否：" and the
    sentence), cited at its lines; None where no sentence does (the model is asked)."""
    found = _first_sentence(corpus, lambda sentence: f"否：{sentence}" if says_no(sentence) else None)
    if found is None:
        return None
    no = normalise("否", "yesno")
    return _read_row(checklist, item, question, found.answer, no, found.quote(no), read)


def _text_row(
    checklist: Checklist, item: ChecklistItem, question: str, found: _Sentence | None, read: str
) -> ReviewRow | None:
    """A text item's row read from ``found`` (None: no sentence, the model is asked): its answer as the value."""
    if found is None:
        return None
    said = Value("text", found.answer, found.answer)
    return _read_row(checklist, item, question, found.answer, said, found.quote(said), read)


def _read_row(
    checklist: Checklist,
    item: ChecklistItem,
    question: str,
    answer: str,
    value: Value | None,
    quote: ReviewQuote,
    read: str,
) -> ReviewRow:
    """A row the system read without the model: found, with ``value`` (none where the documents say there is none),
    its one quote, and the reader's name in ``extra["read"]``."""
    return ReviewRow(
        checklist=checklist.name, item_id=item.id, label=item.label, section=item.section, kind=item.kind,
        question=question, answer=answer, verdict="found", values=(value,) if value else (), quotes=(quote,),
        answered_at=now(), extra={"read": read},
    )  # fmt: skip


def _points(points: Decimal, read: Composition) -> str:
    total = "" if read.total == 100 else f"（总分{_number(read.total)}分）"
    return f"{_number(points)}分{total}"


def _number(n: Decimal) -> str:
    return format(n.normalize(), "f")


def _lines_at(corpus: Corpus, doc_id: int, first: int, last: int) -> tuple[Located, str]:
    """Where lines ``first``..``last`` (0-based, of the document's text) stand, and their text on one line."""
    chunks = corpus.chunks[doc_id]
    lines = "".join(c.text for c in chunks).split("\n")
    start = chunks[0].char_start + sum(len(line) + 1 for line in lines[:first])
    end = start + sum(len(line) + 1 for line in lines[first : last + 1]) - 1
    pages = corpus.pages.get(doc_id) or []
    page, line_start = position_in_pages(pages, start) if pages else (None, None)
    line_end = position_in_pages(pages, end)[1] if pages else None
    text = " ".join(" ".join(lines[first : last + 1]).split())
    return Located(doc_id, corpus.titles[doc_id], page, line_start, line_end), text


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
