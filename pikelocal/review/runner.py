"""Running a checklist over a KB: each item asked through the answering engine, its answer read
as a value of the item's kind, cross-checked against every statement of that value in the KB, and stored.

Resumable by construction: each item's result is stored the moment it is made, with the KB state it was made on
(``store.reviews``), and an item whose stored state matches is not asked again; a kill loses at most the item in
flight, whose LLM calls the KB's completion cache still holds. Progress goes to the sink one item at a time (a
cancel stops between items).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from pikelocal.domain.answers import TO_CHECK, QueryTrace, Source
from pikelocal.domain.events import EventSink, Notice, StageAdvanced, StageFinished, StageStarted, ignore
from pikelocal.domain.review import (
    Checklist,
    ChecklistItem,
    ChecklistScript,
    Located,
    ReviewQuote,
    ReviewReport,
    ReviewRow,
    ReviewVerdict,
    Value,
    ValueKind,
)  # fmt: skip
from pikelocal.embed.base import Encoder
from pikelocal.query.verify.about import ABOUT_COSINE, Meaning
from pikelocal.query.verify.claims import strip_markers
from pikelocal.review.checklist import question_for
from pikelocal.review.conflicts import VALUED, Corpus, Statement, as_quote, disagreeing, statements
from pikelocal.review.read_rows import (
    award_row,
    binding_row,
    clarification_row,
    copies_row,
    damages_row,
    dispute_row,
    evaluation_row,
    experience_row,
    field_row,
    fixed_price_row,
    joint_bid_row,
    language_row,
    method_row,
    now,
    opening_row,
    own_concepts,
    period_row,
    role_row,
    score_row,
    subcontracting_row,
    submission_row,
    term_row,
    ticked_row,
    title_row,
    unnamed_row,
    waived_form_row,
    waiver_row,
)
from pikelocal.review.stored import row_json, stored_name, stored_rows
from pikelocal.store.store import Store
from pikelocal.text import concepts
from pikelocal.text.bounds import bound_of, reached_case
from pikelocal.text.values import (
    SPAN_KINDS,
    as_printed,
    counted_deadline,
    is_blank_date,
    normalise,
    number_text,
    printed_as_other,
    values_in,
)

STAGE = "review"
# Raised when the way rows are made changes (the cross-check, the reading of values), so that stored rows are made
# again; their LLM calls come back from the KB's completion cache.
# 46: the bid's way of submission read;
# 45: a score's parts in one sentence, 公开 before the method, a language answer naming none, 领取/评标内容/磋商有效期,
# the contract's validity no bids', 7×24小时 no duration;
# 44: (the previous stops' readers); 43: a label alone takes no placeholder or pointer below it; 42: a field's
# parts read only for a score's weight;
# 41: a score's parts in one field, a delay or a case reached no term, a criterion's points no part's weight,
# another part's weight;
# 40: a flattened table's row with no colon, a row's figure waived on the next line, a purchaser-dash-project header,
# weights labelled by the part evaluated;
# 39: a heading's attribute fields, a name with its role in brackets, a numbered field's lone tick, a waiver's box
# no amount, the binding read, an unfilled field's label no answer; 38: a form's unticked options blanked, boxes
# before their term, a ticked method, a comparison no statement;
# 37: an item stated only by name not asked where nothing names it; 36: a yes or no quoted from a sentence naming
# none of the item's own concepts; 35: a heading as a field's label, a slash label, a duration after an end, a
# pointer answer; 34: a ticked option naming the term, an opening at the deadline's time, 询比 vocabulary, a
# field's own names;
# 30: a bond's interest and 「否决条款」 are no none; 29: the evaluation method; 28: the bid's language; 27:
# subcontracting forbidden; 26: the procurement method, the clarification deadline, damages for delay, the disputes'
# forum; 25: a Word heading may be a field; 24: a fixed price; 23: a bond or an advance not asked for; 22: a term to
# an end date; 21: the award's rule; 20: the bid's copies totalled; 19: a time's colon is no next field
ROWS_VERSION = 46
# Rows read from the documents' own lines before the model is asked (``review/read_rows.py``): these are tried before
# a labelled field, these after it (a bond's field stating an amount comes first); the order the review figures were
# measured in (docs/benchmarks/reviewing.md).
RowReader = Callable[[Checklist, ChecklistItem, str, Corpus], ReviewRow | None]
READ_BEFORE_FIELDS: tuple[RowReader, ...] = (copies_row, award_row, term_row)
READ_AFTER_FIELDS: tuple[RowReader, ...] = (
    waiver_row,
    waived_form_row,
    fixed_price_row,
    method_row,
    clarification_row,
    opening_row,
    period_row,
    damages_row,
    dispute_row,
    subcontracting_row,
    joint_bid_row,
    language_row,
    evaluation_row,
    binding_row,
    submission_row,
    experience_row,
)
# Quotes a conflicting row shows besides the answer's own: one per distinct value.
MAX_CONFLICT_QUOTES = 3
# A statement counts against the answer only when the encoder puts it at most this much below the answer's nearest
# quote in similarity to the item (the item's question with its label and hints). Chosen on the conflicting rows of
# six review KBs (BENCHMARKS "Conflicts by meaning, to check needs a concept"): the true conflicts' sentences were
# within 0.07 of each other, the false ones' other sentences mostly 0.12 to 0.48 below.
CONFLICT_MARGIN = 0.10

# Ask one question, searching with extra terms (an item's hints), for a figure of a kind (an item's valued kind, or
# None); the trace of the answer.
Ask = Callable[[str, Sequence[str], ValueKind | None], QueryTrace]


def run_review(
    store: Store,
    checklist: Checklist,
    ask: Ask,
    script: ChecklistScript,
    *,
    settings_key: str = "",
    doc_ids: Sequence[int] | None = None,
    fresh: bool = False,
    sink: EventSink = ignore,
    scope: str = "",
    encoder: Encoder | None = None,
) -> ReviewReport:
    """Answer every item of ``checklist`` not yet answered on this KB state (every item with ``fresh``);
    ``settings_key`` names what else an answer depends on (model, mode), so a change there asks again too.
    ``scope`` keeps the rows apart from the checklist's other runs (one document's, for documents side by side:
    ``review/stored.py``'s :func:`~pikelocal.review.stored.stored_name`). ``encoder``: the KB's, to tell whether an
    answer's quotes are about the item (None: that check is left out)."""
    start = time.perf_counter()
    name = stored_name(checklist.name, scope)
    state = state_of(store, settings_key, script, doc_ids)
    stored = {r.item_id: r for r in store.reviews.results(name)}
    todo = [
        i for i in checklist.items if fresh or (r := stored.get(i.id)) is None or r.kb_state != item_state(state, i)
    ]
    corpus = Corpus.read(store, doc_ids)
    sink(StageStarted(STAGE, len(todo), "items"))
    for done, item in enumerate(todo, start=1):
        row = answer_item(checklist, item, ask, script, corpus, encoder)
        made_on = item_state(state, item)
        store.reviews.save_result(name, item.id, made_on, row_json(replace(row, kb_state=made_on)))
        sink(StageAdvanced(STAGE, done, len(todo), item.label))
        if row.verdict == "conflicting":
            sink(Notice("warning", f"{item.label}: the documents disagree ({_values_text(row)})"))
    seconds = time.perf_counter() - start
    sink(StageFinished(STAGE, len(todo), seconds))
    rows = tuple(stored_rows(store, checklist, scope))
    return ReviewReport(checklist, len(todo), len(checklist.items) - len(todo), rows, seconds, script)


def state_of(store: Store, settings_key: str, script: ChecklistScript, doc_ids: Sequence[int] | None) -> str:
    """What a stored result was made on: the KB's contents, the answering settings, the questions' script and the
    documents reviewed. A result made on another state is asked again."""
    docs = "all" if doc_ids is None else ",".join(map(str, sorted(doc_ids)))
    return f"{store.reviews.contents_state()}:{settings_key}:{script}:{docs}:v{ROWS_VERSION}"


def item_state(state: str, item: ChecklistItem) -> str:
    """``state`` for one item, with its definition: an item whose question, kind or hints were edited in the
    checklist file is asked again."""
    return f"{state}:{hashlib.sha256(repr(item).encode()).hexdigest()[:12]}"


def _values_text(row: ReviewRow) -> str:
    return " / ".join(dict.fromkeys(q.value.normal for q in row.quotes if q.value is not None))


def answer_item(
    checklist: Checklist,
    item: ChecklistItem,
    ask: Ask,
    script: ChecklistScript,
    corpus: Corpus,
    encoder: Encoder | None = None,
) -> ReviewRow:
    """One item: asked, its answer read as a value, its quotes located, and the KB's other statements of the value
    compared with it."""
    question = question_for(item, script)
    ticked = ticked_row(checklist, item, question, corpus)
    if ticked is not None:  # a form's ticked box, read by the system: the model is not asked
        return ticked
    # the item as the encoder reads it, one query vector for every check of this row
    meaning = Meaning(encoder, question, (item.label, *item.hints)) if encoder is not None else None
    scored = score_row(checklist, item, question, corpus)
    if scored is not None:  # a score's composition, read by the system: the model is not asked; the weight is
        return cross_checked(scored, item, corpus, meaning)  # still set against the documents' other statements
    for read_first in READ_BEFORE_FIELDS:  # the bid's copies, the award's rule, a term to an end date
        if (read := read_first(checklist, item, question, corpus)) is not None:
            return read  # read by the system: the model is not asked
    unasked = ReviewRow(
        checklist=checklist.name, item_id=item.id, label=item.label, section=item.section, kind=item.kind,
        question=question, answer="", verdict="not_stated", answered_at=now(),
    )  # fmt: skip
    blocked = role_row(unasked, item, corpus)
    if blocked is not None:  # a data sheet's block naming the purchaser or the agent: the model is not asked
        return blocked
    labelled = field_row(unasked, item, checklist, corpus)
    if labelled is not None:  # a labelled field (「项目名称：…」, 「开标时间：同…」): the model is not asked; a figure
        return cross_checked(labelled, item, corpus, meaning)  # is still set against the other statements of it
    for read_after in READ_AFTER_FIELDS:  # a bond not asked for, a fixed price, the method, … (the tuple's order)
        if (read := read_after(checklist, item, question, corpus)) is not None:
            return read  # read by the system: the model is not asked
    unnamed = unnamed_row(unasked, item, checklist, corpus)
    if unnamed is not None:  # stated only by name, and no sentence names it: not stated, the model is not asked
        return unnamed
    agreed = agreed_row(unasked, item, corpus)
    if agreed is not None:  # every statement of the figure in the documents says the same: the model is not asked
        return agreed
    began = time.perf_counter()
    trace = ask(question, item.hints, item.kind if item.kind in VALUED else None)
    seconds = time.perf_counter() - began
    answer = trace.answer
    to_check = answer.unsupported and any(c.method == TO_CHECK for c in answer.claims)
    quotes = _answer_quotes(trace, item, TO_CHECK if to_check else "")
    text = answer.draft.strip() if to_check else strip_markers(answer.text).strip()
    value = None if answer.unsupported and not to_check else _value_of(text, item)
    if value is None and not answer.unsupported:
        value = next((q.value for q in quotes if q.value is not None), None)
    value = _printed(value, quotes)
    if (
        item.kind == "date"
        and value is None
        and not answer.unsupported
        and (counted := _counted_deadline(text, quotes))
    ):
        text, value = counted, Value("text", counted, counted)  # 「投标截止日10日前」: no day, yet a deadline
    blank = item.kind == "date" and value is None and is_blank_date(text)  # the form's date was never filled in
    # a name answered by a field's label or a party's role ("招标人") names nobody
    blank = blank or _valueless(item, value, text) or (item.kind == "name" and concepts.only_terms(text))
    blank = blank or _names_no_language(item, text)  # 「不褪色墨水笔」 for the bid's language
    blank = blank or _other_kind(value, quotes)  # "30" for an amount, where the quote says 「30 日」
    blank = blank or _unbound(item, value, quotes)  # a daily rate offered as the damages' cap
    blank = blank or _a_case_s_threshold(item, value, quotes)  # 「累計達…20%者」: when, not how much
    blank = blank or _not_printed(item, value, quotes)  # 「1%」 from a list's 「(1)」
    blank = blank or _another_part_s(item, value, quotes)  # 「商务得分占 30 分」 for the price's weight
    blank = blank or (bool(quotes) and all(_PAGE_FOOTER.match(q.text) for q in quotes))  # 「第 48 頁，共 51 頁」
    blank = blank or _after_an_end(value, quotes)  # 「响应有效期满后28天」 offered as the bids' validity
    blank = blank or _POINTS_ELSEWHERE.match(text) is not None  # 「详见合同相关条款」 states nothing
    blank = blank or (bool(quotes) and all(_unfilled(q, corpus) for q in quotes))  # 「…的归属：          。」
    found = not answer.unsupported and not to_check
    blank = blank or (found and meaning is not None and _about_none(item, quotes, corpus, meaning))
    blank = blank or (to_check and _names_none(item, quotes, corpus))  # near by meaning, yet about nothing asked
    blank = blank or (found and _yes_no_of_another(checklist, item, quotes, corpus))  # 「不允许联合体」 for 分包
    value = None if blank else value  # the row states no value: none to compare with the documents' statements
    verdict: ReviewVerdict = "not_stated" if (answer.unsupported and not to_check) or blank else "found"
    row = ReviewRow(
        checklist=checklist.name, item_id=item.id, label=item.label, section=item.section, kind=item.kind,
        question=question, answer=text, verdict="to_check" if to_check and not blank else verdict,
        values=(value,) if value is not None else (), quotes=quotes,
        answered_at=now(), seconds=round(seconds, 2), trace_id=trace.id,
        extra={"draft": answer.draft.strip()} if answer.draft.strip() else {},  # the model's, before the checks
    )  # fmt: skip
    if row.verdict in ("not_stated", "to_check"):
        read = title_row(row, item, corpus)
        if read is not None:
            return read
    if row.verdict == "to_check":
        return row
    return cross_checked(row, item, corpus, meaning)


_SHARE: tuple[ValueKind, ...] = ("percentage",)


def _value_of(text: str, item: ChecklistItem) -> Value | None:
    """The answer's value of the item's kind; for an amount, else a share of a base, as a bond or a payment is often
    set ("投标报价的1.5%-2%", "合同价格的10%"): an amount the document states as a percentage."""
    value = normalise(text, item.kind)
    if value is None and item.kind == "amount":  # a share as printed (%, ‰, 百分之), never points
        return next((v for _s, _e, v in values_in(text, _SHARE) if v.unit != "points"), None)
    return value


def _counted_deadline(text: str, quotes: Sequence[ReviewQuote]) -> str:
    """A date item answered with a count of days ("10日") that the answer or a quote prints as a deadline counted
    from an event (「投标截止时间 10 日前」, ``text/values.counted_deadline``): that phrase as printed; "" else."""
    number = re.search(r"\d{1,3}|[一二三四五六七八九十两]{1,3}", text)
    if number is None:
        return ""
    for said in (text, *(q.text for q in quotes)):
        if (span := counted_deadline(said, number.group(0))) is not None:
            return " ".join(said[span[0] : span[1]].split())
    return ""


def _valueless(item: ChecklistItem, value: Value | None, text: str) -> bool:
    """An item asking for a figure (a date, an amount, a duration …) answered without one, in the answer or its
    quotes, and not with a no ("不组织", "不提交", "none": there is none): the answer states no figure ("投标截止时间
    见投标人须知前附表" refers elsewhere), so the row is not stated, its words kept for the reviewer."""
    if item.kind not in VALUED or value is not None:
        return False
    negative = normalise(text, "yesno")
    return not (negative is not None and negative.normal == "no")


# A language's name, as an answer about the bid's language prints it (中文, 简体中文, 正體中文, 英文, English …)
_LANGUAGE_NAME = re.compile(
    r"中文|中英|汉语|漢語|汉字|漢字|华文|華文|国语|國語|简体|簡體|繁体|繁體|正體|英文|英语|英語|外文|日文|俄文|法文|德文|双语"
    r"|雙語|english|chinese|mandarin",
    re.IGNORECASE,
)


def _names_no_language(item: ChecklistItem, text: str) -> bool:
    """An item asking the language of the bid answered without naming a language: 「打印或用不褪色墨水笔书写」 (how
    the bid is written, not in what language) states no language, so the row is not stated."""
    if item.kind != "text" or "language" not in concepts.active().concepts_in(item.label):
        return False
    return bool(text.strip()) and _LANGUAGE_NAME.search(text) is None


# An answer's number and the short unit the reader wrote after it (3名, 100%, 15天): the number is judged as printed
_NUMBER_AND_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:[%％]|[^\d\s.,%％]{1,3})")


def _other_kind(value: Value | None, quotes: Sequence[ReviewQuote]) -> bool:
    """The answer's number is printed in its quotes only as a value of another kind than the item asks for
    (「30 日」内缴纳履约保证金 answering the bond's amount with "30"; 「前3 年内」 answering the committee's size with
    "3名"): the reader took the figure beside the one asked for, or gave it a unit of its own, so the row is not
    stated (its words kept for the reviewer)."""
    if value is None or not quotes:
        return False
    bare = _NUMBER_AND_UNIT.fullmatch(value.text.replace(",", "").strip())
    if bare is not None:  # "3名" where the quote prints 「前3 年内」, "100%" where it prints 「100万元」
        value = replace(value, text=bare.group(1))
    printed = [printed_as_other(value, q.text) for q in quotes if value.text.replace(",", "").strip() in q.text]
    return bool(printed) and all(printed)


def _not_printed(item: ChecklistItem, value: Value | None, quotes: Sequence[ReviewQuote]) -> bool:
    """A share or a sum whose number the quotes print only as a list's number (「1%」 drafted from 「(1) 實支實付
    項目經費共計27 個月」): the answer stands on nothing. A number printed elsewhere, or nowhere, is left to the
    other checks (a range 「1.5-2%」 answers 1.5 %)."""
    if value is None or value.number is None or not quotes or value.kind not in ("percentage", "amount"):
        return False
    number = number_text(value.number)
    at = [(q.text, m) for q in quotes for m in re.finditer(rf"(?<![\d.]){re.escape(number)}(?![\d.])", q.text)]
    return bool(at) and all(m.start() > 0 and _LIST_NUMBER.match(text, m.start() - 1) is not None for text, m in at)


# a list's number: 「(1)」, 「（2）」
_LIST_NUMBER = re.compile(r"[（(]\d{1,2}[)）]")


# The parts a score is made of: a weight's figure standing after another part's name is that part's.
_PARTS = frozenset({"price_score", "technical_score", "business_score"})
_CLAUSE_BEFORE = re.compile(r"[^，,；;。：:\n|]*$")


def _another_part_s(item: ChecklistItem, value: Value | None, quotes: Sequence[ReviewQuote]) -> bool:
    """A part's weight answered with a figure that every quote prints right after another part's name (「技术得分占 60
    分，商务得分占 30 分，价格得分占 10 分」 answering the price's weight with 30): the reader took the figure beside
    the one asked for. Judged on the clause before each place the figure stands."""
    own = concepts.active().concepts_in(item.label) & _PARTS
    if len(own) != 1 or value is None or value.number is None or not quotes:
        return False
    number = number_text(value.number)
    named = [
        concepts.active().concepts_in(_CLAUSE_BEFORE.search(q.text[: m.start()]).group(0)) & _PARTS  # type: ignore[union-attr]
        for q in quotes
        for m in re.finditer(rf"(?<![\d.]){re.escape(number)}(?![\d.])", q.text)
    ]
    return bool(named) and all(parts and not parts & own for parts in named)


# a page's running footer (「第 48 頁，共 51 頁」): its numbers are the page's, never an answer
_PAGE_FOOTER = re.compile(r"^\s*第\s*\d{1,4}\s*[页頁]\s*[，,、/\s]*共\s*\d{1,4}\s*[页頁]\s*$")


def _unbound(item: ChecklistItem, value: Value | None, quotes: Sequence[ReviewQuote]) -> bool:
    """An item asking for a ceiling or a floor (its ``bound``) answered with a figure that no quote prints as one:
    「每日千分之六」 (a daily rate) or 「合同总值5%的违约金」 (a penalty) offered as the cap on damages, which a
    document states as 「累计不超过合同总价的10%」 or 「以契約價金總額之20%為上限」. The row is not stated, its words
    kept. Judged on the quotes' values of the answer's kind and number; a quote that prints the figure otherwise
    (百分之五 for 5%) is read as printed."""
    if not item.bound or value is None or value.number is None or not quotes:
        return False
    return not any(
        printed.kind == value.kind and printed.number == value.number and bound_of(q.text, s, e) == item.bound
        for q in quotes
        for s, e, printed in values_in(q.text, SPAN_KINDS)
    )


def _a_case_s_threshold(item: ChecklistItem, value: Value | None, quotes: Sequence[ReviewQuote]) -> bool:
    """An item asking for a figure (not a cap: its ``bound``) answered with one that every quote prints only as the
    point a case reaches: 「受罰累計達契約含稅總價 20%者，本公司得沒入履約保證金」 sets when the bond is forfeited,
    not the bond's 20%. Judged on the quotes' values of the answer's kind and number."""
    if item.bound or value is None or value.number is None or not quotes:
        return False
    printed_at = [
        (q.text, s, e)
        for q in quotes
        for s, e, printed in values_in(q.text, SPAN_KINDS)
        if printed.kind == value.kind and printed.number == value.number
    ]
    return bool(printed_at) and all(reached_case(text, s, e) for text, s, e in printed_at)


# the words that end a period before a value counted from that end (「响应有效期满后28天」, 「合同到期后30日」); not
# 截止, since a validity is counted from the bids' deadline (「投标截止之日起90天」)
_AFTER_AN_END = re.compile(
    r"(?:满|滿|届满|屆滿|到期|结束|結束|终止|終止)\s*(?:之日)?\s*(?:以后|以後|之后|之後|后|後|起)\s*$"
)
# an answer that only sends the reader elsewhere (「详见合同相关条款」, 「见投标人须知前附表」): it states nothing
# A form's field never filled in, its label ending the quote (「…文件的著作权的归属：          。」): an answer
# drawn from it is a word of the label (发包人), not the field's value.
_UNFILLED = re.compile(r"[：:][\s_＿]*[。；;]\s*$")
_POINTS_ELSEWHERE = re.compile(
    r"^\s*(?:详|詳|参|參)?[见見][^，,。；;]{0,30}(?:表|章|节|節|条|條|款|附件|部分|须知|須知|公告|合同|文件|规定|規定)[。.]?\s*$"
)


def _after_an_end(value: Value | None, quotes: Sequence[ReviewQuote]) -> bool:
    """A duration that each quote prints only as counted from the end of another period (「投标保证金的有效期应为
    在响应有效期满后28天内继续有效」 offered as the bids' validity): a time after a period ends is not that period,
    so the row is not stated, its words kept."""
    if value is None or value.kind != "duration" or value.number is None or not quotes:
        return False
    printed = [
        _AFTER_AN_END.search(q.text[max(0, s - 8) : s]) is not None
        for q in quotes
        for s, _e, v in values_in(q.text, SPAN_KINDS)
        if v.kind == "duration" and v.number == value.number
    ]
    return bool(printed) and all(printed)


def _about_none(item: ChecklistItem, quotes: Sequence[ReviewQuote], corpus: Corpus, meaning: Meaning) -> bool:
    """The answer's quotes name none of the concepts of the item (:func:`_names_none`), and the encoder does not
    put any of them near the item either (``about.ABOUT_COSINE``): 「15、服務建議書撰寫規定」 for a bid's validity, a
    transfer period after the contract's end for whether it renews. Such a row is not stated, the model's draft
    kept."""
    if not _names_none(item, quotes, corpus):
        return False
    return max(meaning.similarities([_with_lines(q, corpus) for q in quotes])) < ABOUT_COSINE


def _names_none(item: ChecklistItem, quotes: Sequence[ReviewQuote], corpus: Corpus) -> bool:
    """The quotes name none of the concepts of the item (its label and hints, in any of the three vocabularies:
    ``text/concepts.py``), each read with the whole lines it was cut from (「15工作天」 from 「於接到廠商請款單據後
    15工作天內付款」), under its section (「获取时间：…」 under 「四、招标文件的获取」) and after the line it continues
    (``Corpus.context_text``). An item whose words name no concept, or a row without quotes, is not judged so.

    A row "to check" (its quote only fairly near the item by meaning) must also name one of the item's concepts:
    on the review sheets the band alone held 3 right rows of 25, mostly a sentence of another thing (a warranty bond
    offered as the performance bond, an opening date as the document period), which the concepts tell apart
    (BENCHMARKS "Conflicts by meaning, to check needs a concept")."""
    wanted = concepts.active().concepts_in(" ".join((item.label, *item.hints)))
    if not wanted or not quotes:
        return False
    return not any(concepts.active().broad_concepts_in(_with_lines(q, corpus)) & wanted for q in quotes)


def _yes_no_of_another(
    checklist: Checklist, item: ChecklistItem, quotes: Sequence[ReviewQuote], corpus: Corpus
) -> bool:
    """A yes or no answered from quotes that name none of the item's own concepts (those its label names and no
    other item's label does: 分包 for subcontracting, 含税's tax for the price's tax), each read with its lines and
    section as :func:`_names_none` reads them: 「本项目不允许联合体参选」 says no to a consortium, not to
    subcontracting, and 「投标人应在…报价表上列明单价和总价」 says nothing of tax. Such a row is not stated, the
    model's draft kept. An item whose label names no concept of its own is not judged so."""
    if item.kind != "yesno" or not quotes:
        return False
    own = own_concepts(checklist, item)
    if not own:
        return False
    return not any(concepts.active().broad_concepts_in(_with_lines(q, corpus)) & own for q in quotes)


def _unfilled(quote: ReviewQuote, corpus: Corpus) -> bool:
    """The quote is the label of a field never filled in: its last line ends in a colon and nothing else before the
    stop, and the quote's end stands before that colon."""
    last = corpus.context_text(quote.where).rstrip().rsplit("\n", 1)[-1]
    field = _UNFILLED.search(last)
    if field is None:
        return False
    label = "".join(last[: field.start()].split())[-4:]  # the label's end (its last line may hold only that)
    return bool(label) and "".join(quote.text.split()).rstrip("：:。；;_＿").endswith(label)


def _with_lines(quote: ReviewQuote, corpus: Corpus) -> str:
    return f"{corpus.context_text(quote.where)}\n{quote.text}"


def _printed(value: Value | None, quotes: Sequence[ReviewQuote]) -> Value | None:
    """The answer's bare number read as its quote prints it ("10" from 「新臺幣10萬元整」 is 100000 TWD): the small
    reader often copies the digits and drops 萬 and the currency."""
    if value is None:
        return None
    for quote in quotes:
        if (printed := as_printed(value, quote.text)) is not value:
            return printed
    return value


def cross_checked(row: ReviewRow, item: ChecklistItem, corpus: Corpus, meaning: Meaning | None = None) -> ReviewRow:
    """``row`` against every statement of the item's value in the documents (``review/conflicts.py``): in conflict
    when one states another value than the answer's, or, when the model found none, when the statements disagree
    among themselves (the reader saw neither, or could not choose: the reviewer sees both). With ``meaning`` (the
    item as the encoder reads it), only statements about as near the item as the nearest of the answer's quotes, or
    of the statements, count (:func:`near_as`)."""
    if item.kind not in VALUED:
        return row
    found = statements(corpus, item)
    if row.values:
        found = near_as(found, [q.text for q in row.quotes], meaning)
        others = disagreeing(row.values[0], found)[:MAX_CONFLICT_QUOTES]
        if not others:
            return row
        return replace(row, verdict="conflicting", quotes=row.quotes + tuple(as_quote(s) for s in others),
                       values=(row.values[0], *(s.value for s in others)))  # fmt: skip
    if row.verdict != "not_stated" or not found:
        return row
    found = near_as(found, [s.sentence for s in found], meaning)
    distinct = [found[0], *disagreeing(found[0].value, found)][: MAX_CONFLICT_QUOTES + 1]
    if len(distinct) < 2:
        return row
    return replace(row, verdict="conflicting", answer=" / ".join(s.value.text for s in distinct),
                   values=tuple(s.value for s in distinct), quotes=tuple(as_quote(s) for s in distinct),
                   extra={**row.extra, "read": "statements"})  # fmt: skip


def agreed_row(row: ReviewRow, item: ChecklistItem, corpus: Corpus) -> ReviewRow | None:
    """A figure item answered from the documents' statements of it (``review/conflicts.py``: a hint term with a
    value of the item's kind soon after it, owned by the item), when there are some and every one states the same
    value: 「本项目投标有效期为90天」 and 「投标文件有效期为90日历天」 answer 90 days, cited at the first. None where
    there are none or any two disagree, even one the encoder would judge about another thing (the model is asked,
    and the statements then set against its answer, so no conflict is lost). On the gold sheets it was written
    from, its rows were right where the model's were wrong 11 times, and wrong where the model's were right 3 times
    (BENCHMARKS "Agreed statements")."""
    if item.kind not in VALUED:
        return None
    found = statements(corpus, item)
    if not found or disagreeing(found[0].value, found):
        return None
    if item.kind == "amount" and statements(corpus, replace(item, kind="percentage")):
        return None  # 「投标保证金的金额：投标报价的1.5-2%」: a sum set as a share too, which the model reads
    first = found[0]
    return replace(row, answer=first.value.text, verdict="found", values=(first.value,), quotes=(as_quote(first),),
                   extra={**row.extra, "read": "agreed statements"})  # fmt: skip


def near_as(found: Sequence[Statement], anchors: Sequence[str], meaning: Meaning | None) -> list[Statement]:
    """The statements the encoder puts at most ``CONFLICT_MARGIN`` below the nearest of ``anchors`` (the answer's
    quotes, or the statements themselves) in similarity to the item: a statement of another thing that shares a
    hint word (「验收证书一式二份」 for the bid's copies, 「履约保证金…合同总价的5%」 for the damages' cap) is far
    below the sentence that answers, while two sentences stating the item's value are near each other. Without
    ``meaning`` or anchors, all of them."""
    if meaning is None or not anchors or not found:
        return list(found)
    best = max(meaning.similarities(anchors))
    sims = meaning.similarities([s.sentence for s in found])
    return [s for s, sim in zip(found, sims, strict=True) if sim >= best - CONFLICT_MARGIN]


def _answer_quotes(trace: QueryTrace, item: ChecklistItem, method: str = "") -> tuple[ReviewQuote, ...]:
    """The sentences the checked answer stands on (its supported claims' evidence; with ``method``, the evidence of
    the claims of that method instead: a to-check answer's sentence), where they stand, each with the first value
    of the item's kind it holds."""
    by_number: dict[int, Source] = {s.number: s for s in trace.answer.sources}
    out: list[ReviewQuote] = []
    for claim in trace.answer.claims:
        ev = claim.evidence
        wanted = claim.method == method if method else claim.verdict == "supported"
        if not wanted or ev is None or ev.source not in by_number:
            continue
        source = by_number[ev.source]
        title = source.title or source.path.replace("\\", "/").rsplit("/", 1)[-1]
        where = Located(source.doc_id, title, ev.page_start, ev.line_start, ev.line_end)
        found = values_in(ev.text, (item.kind,)) if item.kind in VALUED else []
        quote = ReviewQuote(ev.text, where, found[0][2] if found else None)
        if quote not in out:
            out.append(quote)
    return tuple(out)
