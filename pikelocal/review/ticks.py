"""The ticked box of a form, read by the system: "3.4.1 投标保证金的递交 ☑不提交 □提交" answers the bid-bond
item with "不提交", and "1.11 分包 ☑不允许 □允许" the subcontracting item with "no".

Chinese tender templates state most of their choices this way, and the 1.5B reader does not read a tick mark: it
answered none of the shared tender's ticked items right (docs/BENCHMARKS.md, "Checklist review"). A ticked option
shortly after one of an item's hint terms, with no sentence end between, is taken as the item's answer, quoted
with its document, page and lines, and the model is not asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pikelocal.domain.review import ChecklistItem, Located
from pikelocal.query.verify.support import position_in_pages
from pikelocal.review.conflicts import Corpus
from pikelocal.text import concepts
from pikelocal.text.negation import NO_ANSWER
from pikelocal.text.ticked_options import TICKED, UNTICKED

# The tick must come within this many characters after the term, as a form's boxes follow its field label ("1.11 分包
# ☑不允许", "3.4.1 投标保证金的递交 ☑不提交"), with no clause number between (the next field's).
NEAR_CHARS = 12
_CLAUSE_NUMBER = re.compile(r"\d+\.\d+")
SHORT_TERM_CHARS = 2
# a clause number before the label, in the text or in a table's first cell (「| 1.6.1 | 踏勘现场 | ☑不组织」)
_FIELD_START = re.compile(r"(?:^|\s)\d+(?:\.\d+)*\s*(?:\|\s*)?$")
# A label whose head is a count (「推荐中标候选人的人数 ☑常规类项目」) asks how many, whatever it counts: its box is no
# answer to an item about the thing counted.
_COUNT_HEAD = re.compile(r"的?(?:人数|数量|數量|个数|個數|家数|家數|名额|名額|数目|數目)")
_OPTION = re.compile(rf"[{TICKED}]\s*([^\s{TICKED}{UNTICKED}，,；;。:：（(/]{{1,20}})")
_SENTENCE_END = re.compile(r"[。！？!?]")
_WORD = re.compile(r"[^\W_或和与與及]")  # an option names something: 「”或“」 between two marks names nothing
# A bare yes or no answers the field's whole question ("是否授权评标委员会确定中标人 □是 ☑否"), so only a yes/no item:
# not the count of the committee named in it, nor a method.
_BARE_YES_NO = re.compile(r"是|否|(?i:yes|no)")


@dataclass(frozen=True)
class Ticked:
    """The option ticked after an item's term, the line it stands on and where."""

    option: str
    line: str
    where: Located


def ticked_option(corpus: Corpus, item: ChecklistItem) -> Ticked | None:
    """The first ticked option that follows one of ``item``'s hint terms in the documents, in document order; None
    when no term is followed by a ticked box (with unticked ones beside it, so a lone ☑ in prose is not a form). A
    bare 是/否 answers a yes/no item only."""
    for doc_id, chunks in corpus.chunks.items():
        for chunk in chunks:
            text = chunk.text
            for term in item.hints:
                if _names_only_another(term, item):
                    continue  # 投标预备会 helps find a site visit; its box (「☑不召开」) is the meeting's
                for m in _wrapped(term).finditer(text):
                    at, term_end = m.start(), m.end()
                    among = _among_options(text, at, term) if _names_the_item(term, item) else None
                    if among is not None:
                        option, start, end = among
                        return Ticked(
                            option, _line(text, start, end), _where(corpus, doc_id, chunk.char_start, start, end)
                        )
                    found = _after(text, term_end, alone=_numbered(text, at)) if _labels(text, at, term) else None
                    if found is not None and _names_another(text[term_end : found[1]], item):
                        found = None  # 「开标前答疑会 ■不召开」: the box is the meeting's, not the opening's
                    if found is not None and _names_another(_phrase_after_run(text, found[1]), item):
                        found = None  # 「投標廠商資格■不允許□允許 分包廠商…」: the boxes are the subcontractors'
                    if found is None and item.kind == "yesno":
                        found = _before(
                            text, at, m.end() - at
                        )  # 「本採購■不允許□允許 共同投標」: the boxes say it of the term after
                    if found is not None and item.kind != "count" and _COUNT_HEAD.search(text[term_end : found[1]]):
                        found = None  # 「中标候选人的人数 ☑常规类项目」: how many, not how the award is made
                    if found is not None and item.kind != "yesno" and _about_a_reduction(text, at, term_end, found[1]):
                        found = None  # 「是否减免履约保证金：☑不减免」: whether it is waived, not what it is
                    if found is not None and (item.kind == "yesno" or not _BARE_YES_NO.fullmatch(found[0])):
                        option, start, end = found
                        return Ticked(option, _line(text, at, end), _where(corpus, doc_id, chunk.char_start, at, end))
    return None


# A label asking whether a thing is reduced or waived (「是否减免履约保证金」, 「履约保证金减免」): its box answers
# that, not what the thing is (an amount, a form), though it names the thing.
_REDUCTION = re.compile(r"减免|減免|减收|減收|减少|減少|免收|免除|减半|減半")
REDUCTION_BEFORE_CHARS = 8


def _about_a_reduction(text: str, at: int, term_end: int, end: int) -> bool:
    """The label around the term (a few characters before it, and up to the box) asks about a reduction."""
    line_start = text.rfind("\n", 0, at) + 1
    before = text[max(line_start, at - REDUCTION_BEFORE_CHARS) : at]
    label = text[term_end:end]
    box = _ANY_BOX.search(label)
    return _REDUCTION.search(before + (label[: box.start()] if box else label)) is not None


def _wrapped(term: str) -> re.Pattern[str]:
    """The term as a form's narrow cell may print it, wrapped over lines (「是否允许联合\n体\n□是 /☑否」)."""
    return re.compile("\n?".join(re.escape(ch) for ch in term))


def _names_only_another(term: str, item: ChecklistItem) -> bool:
    """Whether a hint term names concepts, none of them one the item's label names (the site visit's hint
    投标预备会 is the pre-bid meeting)."""
    own = concepts.active().concepts_in(item.label)
    named = concepts.active().concepts_in(term)
    return bool(own) and bool(named) and not named & own


def _names_another(rest: str, item: ChecklistItem) -> bool:
    """Whether the label's words after the item's term (up to the box) name a concept the item does not: the field is
    another thing's that starts with the term (「开标」 + 「前答疑会」 is the pre-bid meeting, not the opening). A
    remark in brackets names no other thing (「| 11 | 联合体（实质性要求） | ☑本项目不允许联合体参加 |」)."""
    named = concepts.active().concepts_in(" ".join((item.label, *item.hints)))
    return bool(concepts.active().concepts_in(_REMARK.sub(" ", rest)) - named)


_REMARK = re.compile(r"[（(][^（）()\n]{1,12}[）)]")


# The term inside a box's option (「□有投标保证金 ☑无投标保证金」, 「□ 是 最高限价 （元） ☑ 否」): the options are the
# field, and the ticked one answers it. A box, a yes/no word (有, 无, 是, 否, 不), then the term: an option that
# opens with the term names who acts (「☑采购人确认中标人」), not whether there is one.
_BOX_BEFORE = re.compile(rf"[{TICKED}{UNTICKED}][ \t]*(?:有|无|無|是|否|不)[ \t]*$")
_BOXED = re.compile(rf"([{TICKED}{UNTICKED}])([^{TICKED}{UNTICKED}\n]*)")
_ANY_BOX = re.compile(rf"[{TICKED}{UNTICKED}]")
# A bare negative tick (「☑ 否」, 「☑无」) after the term's own option: there is no such thing.
_BARE_NO = re.compile(r"否|无|無|不|没有|沒有")


def _names_the_item(term: str, item: ChecklistItem) -> bool:
    """Whether ``term`` names the concept of the item's label (the options are about the item's own thing): the
    budget's hint 最高限价 is a ceiling price, and 「☑无最高限价」 says nothing of a budget."""
    return bool(concepts.active().concepts_in(term) & concepts.active().concepts_in(item.label))


def _among_options(text: str, at: int, term: str) -> tuple[str, int, int] | None:
    """The ticked option of a run of boxes on the term's line, where the term stands inside an option (after its box
    and a yes/no word): (the option, the run's start, its end). One box ticked and one at least not, or None.
    A bare 否/无 ticked against the term's option reads as 「无」 + the term (「无最高限价」)."""
    box = _BOX_BEFORE.search(text[max(0, at - 20) : at])
    if box is None:
        return None
    start = max(0, at - 20) + box.start()
    line_start = text.rfind("\n", 0, start) + 1
    first_box = _ANY_BOX.search(text, line_start, start)
    start = first_box.start() if first_box is not None else start  # the run's first box: an unticked option before
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    reach = _SENTENCE_END.search(text, at, line_end)
    end = min(reach.start() if reach else line_end, at + len(term) + NEAR_CHARS + 30)
    options = [(m.group(1), " ".join(m.group(2).split()), m) for m in _BOXED.finditer(text, start, end)]
    ticked = [(option, m) for mark, option, m in options if mark in TICKED]
    if len(ticked) != 1 or len(options) < 2 or not ticked[0][0]:
        return None
    option, m = ticked[0]
    if m.start() > at:  # the ticked box follows the term's own: a bare 「否」 denies it
        option = f"无{term}" if _BARE_NO.fullmatch(option) else option
    elif term not in option.replace(" ", ""):
        return None
    option = re.sub(r"\s+", "", option)
    return option, start, end


def _labels(text: str, at: int, term: str) -> bool:
    """The term at ``at`` can be a field's label: a longer term anywhere; a short one ("分包", "递交") only right after
    a clause number ("1.11 分包 ☑…", not "投标保证金的递交 ☑…", even where a line break falls before 递交)."""
    if len(term) > SHORT_TERM_CHARS:
        return True
    return _numbered(text, at)


def _numbered(text: str, at: int) -> bool:
    """A clause number stands right before ``at`` (「1.11 分包」, a table's 「| 1.6.1 | 踏勘现场」): a field's label."""
    return _FIELD_START.search(text[max(0, at - 12) : at]) is not None


def _after(text: str, start: int, alone: bool = False) -> tuple[str, int, int] | None:
    """The ticked option within reach after ``start``: (option, its start, the end of the boxes' run). An unticked
    box must stand beside it, unless ``alone`` (the term is a numbered field's label: 「1.9.1 踏勘现场 ☑不组织」,
    where a PDF printed the chosen option only)."""
    window = text[start : start + NEAR_CHARS + 30]
    reach = _SENTENCE_END.search(window)
    window = window[: reach.start()] if reach else window
    m = _OPTION.search(window)
    if m is None or m.start() > NEAR_CHARS or not (alone or any(c in window for c in UNTICKED)):
        return None
    if _CLAUSE_NUMBER.search(window[: m.start()]):
        return None
    option = re.sub(r"\s+", "", m.group(1))
    if _WORD.search(option) is None:  # a form's legend (「以“■”或“☑”表示」): marks named, nothing ticked
        return None
    return option, start + m.start(), start + len(window)


# A run of boxes with their options' words (「■不允許□允許」), then what the options are about, up to a mark.
_RUN = re.compile(rf"(?:[ \t]*[{TICKED}{UNTICKED}][^\s{TICKED}{UNTICKED}，,；;。:：]*)+")
_PHRASE = re.compile(r"[ \t]*([^，,；;。:：\n]{0,20})")
_TERM_ENDS = re.compile(r"[^，,；;。\n]{0,4}(?:[，,；;。]|$)", re.M)  # the term ends the options' clause
BEFORE_CHARS = 20  # at most this much space (an unticked option blanked) between a run of boxes and its term


def _phrase_after_run(text: str, at: int) -> str:
    """The words after the run of boxes that stands at or just after ``at`` (「■不允許□允許 分包廠商就其…」 →
    「分包廠商就其…」), up to a mark or the line's end; "" where none follow."""
    run = _RUN.match(text, at)
    end = run.end() if run is not None else at
    phrase = _PHRASE.match(text, end)
    return phrase.group(1) if phrase is not None else ""


def _before(text: str, at: int, term_size: int) -> tuple[str, int, int] | None:
    """The ticked option of a run of boxes that ends right before the term at ``at`` and says something of it
    (「十三、本採購■不允許□允許 共同投標。」: no joint bids): (the option, the run's start, the term's end). The run
    must hold an unticked box besides the ticked one, only space (an unticked option's blanked words) may stand
    between it and the term, and the term must end the clause (a few characters at most before a mark)."""
    line_start = text.rfind("\n", 0, at) + 1
    boxes = [m for m in _ANY_BOX.finditer(text, line_start, at)]
    if not boxes:
        return None
    run = _RUN.match(text, boxes[0].start())
    if run is None or run.end() > at or text[run.end() : at].strip() or at - run.end() > BEFORE_CHARS:
        return None
    body = run.group()
    ticked = [m for m in _OPTION.finditer(body)]
    if len(ticked) != 1 or not any(c in body for c in UNTICKED):
        return None
    option = re.sub(r"\s+", "", ticked[0].group(1))
    if _WORD.search(option) is None or not _TERM_ENDS.match(text, at + term_size):
        return None  # 「■不允許□允許 分包廠商就其分包部分具有者代替之」: the options say it of the whole clause
    return option, run.start(), at + term_size


def _line(text: str, start: int, end: int) -> str:
    return " ".join(text[text.rfind("\n", 0, start) + 1 : end].split())


def _where(corpus: Corpus, doc_id: int, chunk_start: int, start: int, end: int) -> Located:
    pages = corpus.pages.get(doc_id) or []
    if not pages:
        return Located(doc_id, corpus.titles[doc_id], None, None, None)
    page, line = position_in_pages(pages, chunk_start + start)
    return Located(doc_id, corpus.titles[doc_id], page, line, position_in_pages(pages, chunk_start + end - 1)[1])


# The subject an option may open with before its verb: 「☑本项目不接受联合体投标」 is 不接受.
_OPTION_SUBJECT = re.compile(r"^(?:本招标项目|本采购项目|本项目|本項目|本次招标|本次采购|本次|本案|本標案)\s*")


def as_yes_no(option: str) -> str:
    """A ticked option as a yes/no answer: 不允许, 否, 不接受, 本项目不接受… → no; 允许, 是, 本项目接受… → yes."""
    return "no" if NO_ANSWER.match(_OPTION_SUBJECT.sub("", option)) else "yes"
