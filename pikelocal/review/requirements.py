"""Obligations as rows: every sentence that binds someone (须, 應, 必须, 应当, 不得, 禁止, shall, must, may not …),
with who it binds, its kind and the figures the KB's statements read in it. Without the LLM.

- **the binding word** (:data:`MODAL`): a Chinese modal not inside another word (响应, 供应商, 须知 and 需求 are
  no modals), or an English one ("shall mean" defines, it binds nobody). 得 (may) and 請 (please) grant or ask,
  they do not bind, and are not read.
- **who** (:data:`PARTIES`): the party concept (``text/concepts.toml``) named last before the binding word, else
  the first after it; "" when the sentence names none.
- **kind**: a prohibition when the word is negative (不得, 禁止, shall not); a deadline when the sentence holds a
  date or a period (a statement of the KB) or names a deadline; a form when it names the documents' form (signed,
  sealed, copies, format: the ``document_form``, ``copies``, ``page_limit`` and ``language`` groups); else mandatory.
- **figures**: the statements on the sentence's page and lines whose value the sentence prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pikelocal.domain.obligations import Clause, Party, Requirement, RequirementKind
from pikelocal.domain.statements import Statement
from pikelocal.review.risks import is_title
from pikelocal.text.bounds import bound_of
from pikelocal.text.concepts import ConceptGroups, Match, active, fold
from pikelocal.text.values import SPAN_KINDS, values_in

_PROHIBIT_ZH = r"不得|禁止|严禁|不允许|不准|不可|不应|切勿|不许"
_MUST_ZH = (
    r"必须|必需|务必|应当|应该|(?<![响供相对反适回效感呼答])应(?![用急变付收])|(?<!所)须(?!知)"
    r"|(?<![所急必])需(?![求要知])"
)
_PROHIBIT_EN = (
    r"shall\s+not|must\s+not|may\s+not|will\s+not\s+be\s+permitted|is\s+not\s+permitted\s+to"
    r"|are\s+not\s+permitted\s+to|is\s+prohibited|are\s+prohibited"
)
_MUST_EN = r"shall(?!\s+(?:mean|have\s+the\s+meaning|be\s+deemed))|must|is\s+required\s+to|are\s+required\s+to"
MODAL = re.compile(
    rf"(?P<no>{_PROHIBIT_ZH}|(?<![a-z]){_PROHIBIT_EN}(?![a-z]))|(?P<yes>{_MUST_ZH}|(?<![a-z])(?:{_MUST_EN})(?![a-z]))"
)
PARTIES: dict[str, Party] = {
    "bidder": "bidder",
    "winning_bidder": "winning_bidder",
    "contractor": "winning_bidder",
    "purchaser": "purchaser",
    "agency": "purchaser",
    "evaluation_committee": "evaluators",
}
FORM_CONCEPTS = frozenset({"document_form", "copies", "page_limit", "language"})
DEADLINE_CONCEPTS = frozenset({"bid_deadline"})
_DEADLINE_WORDS = re.compile(
    r"截止|之前|以前|以内|之内|(?<![a-z])(?:within|no later than|prior to|before|deadline)(?![a-z])"
)
_TIME_KINDS = frozenset({"date", "duration"})
# A sentence that introduces the rules listed under it (「…補繳規定如下：」): its rows bind, not the heading. Only
# rules: 「應檢附文件如下：」 binds the bidder to attach what its list names.
_INTRODUCES_LIST = re.compile(r"[规規]定如下\s*[:：]\s*$")
_CLAUSE_SPLIT = re.compile(r"[，,；;]")
_CONDITION = re.compile(r"(?:[时時者]\s*$)|^\s*(?:如|若|倘|假如|如果|(?:if|where|when)(?![a-z]))")


def find_requirements(
    clauses: Iterable[Clause], statements: Sequence[Statement] = (), groups: ConceptGroups | None = None
) -> list[Requirement]:
    """The clauses that bind someone, in the order given, each with its party, kind, modal and figures."""
    groups = groups or active()
    by_page: dict[tuple[int, int | None], list[Statement]] = {}
    for s in statements:
        by_page.setdefault((s.doc_id, s.page), []).append(s)
    out: list[Requirement] = []
    for clause in clauses:
        where = clause.where
        found = requirement_of(clause, by_page.get((where.doc_id, where.page), []), groups)
        if found is not None:
            out.append(found)
    return out


def requirement_of(
    clause: Clause, statements: Sequence[Statement] = (), groups: ConceptGroups | None = None
) -> Requirement | None:
    """The requirement ``clause`` states, or None. ``statements`` are those of its page (or more)."""
    groups = groups or active()
    if is_title(clause):
        return None
    folded = fold(clause.text)
    modal = MODAL.search(folded)
    if modal is None or _INTRODUCES_LIST.search(folded) or _only_in_condition(folded):
        return None
    matches = groups.find(folded)
    named = {m.concept for m in matches}
    figures = tuple(s.value for s in statements if _holds(clause, s))
    party = _party(matches, modal.start())
    kind: RequirementKind
    if modal.group("no"):
        kind = "prohibition"
    elif any(v.kind in _TIME_KINDS for v in figures) or named & DEADLINE_CONCEPTS or _DEADLINE_WORDS.search(folded):
        kind = "deadline"
    elif named & FORM_CONCEPTS:
        kind = "form"
    else:
        kind = "mandatory"
    return Requirement(clause, party, kind, " ".join(modal.group(0).split()), figures)


def bounded_requirement(clause: Clause, groups: ConceptGroups | None = None) -> Requirement | None:
    """A clause with no binding word whose figure is bounded ("投标有效期为自投标截止之日起不少于90日历天",
    "预付款不超过合同金额的30%": ``text/bounds.py``): the bound binds as 须 would. Its ``modal`` is the bound
    ("at least" or "at most"). The requirements view lists the sentences with a binding word; the bid check reads
    these too, since a bid must meet them as well."""
    groups = groups or active()
    if is_title(clause) or MODAL.search(fold(clause.text)):
        return None
    text = clause.text
    bounded = [(v, b) for s, e, v in values_in(text, SPAN_KINDS) if (b := bound_of(text, s, e))]
    if not bounded:
        return None
    folded = fold(text)
    kind: RequirementKind = "deadline" if any(v.kind in _TIME_KINDS for v, _b in bounded) else "mandatory"
    party = _party(groups.find(folded), len(folded))
    modal = "at least" if bounded[0][1] == "min" else "at most"
    return Requirement(clause, party, kind, modal, tuple(v for v, _b in bounded))


def _only_in_condition(folded: str) -> bool:
    """Every binding word stands in a condition (a clause ending 時/时/者, or opening 如/若/倘/if) and the rest of the
    sentence binds nobody: 「應繳影印本時，得以正本替代」 grants, 「倘規定需繳納押標金者，其押標金不予發還」 states a
    consequence."""
    clauses = [c for c in _CLAUSE_SPLIT.split(folded) if c.strip()]
    bound = [c for c in clauses if MODAL.search(c)]
    return bool(bound) and len(bound) < len(clauses) and all(_CONDITION.search(c) for c in bound)


def _party(matches: Sequence[Match], at: int) -> Party:
    before = [m for m in matches if m.end <= at and m.concept in PARTIES]
    after = [m for m in matches if m.start >= at and m.concept in PARTIES]
    chosen = before[-1] if before else (after[0] if after else None)
    return PARTIES[chosen.concept] if chosen is not None else ""


def _holds(clause: Clause, statement: Statement) -> bool:
    """Whether ``statement`` is a figure of ``clause``: same document and page, lines that overlap, and its value
    printed in the clause."""
    w = clause.where
    if statement.doc_id != w.doc_id or statement.page != w.page or w.line_start is None:
        return False
    last = w.line_end if w.line_end is not None else w.line_start
    if statement.line_end < w.line_start or statement.line_start > last:
        return False
    return "".join(statement.value.text.split()) in "".join(clause.text.split())
