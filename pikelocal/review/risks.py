"""Rejection risks: every clause by which a bid is rejected or made void, a bidder disqualified, a score zeroed or
the procurement cancelled, found without the LLM, each with the stage of the procedure where it bites.

The words are concept groups (``text/concepts.toml``), so 否决投标, 不合格標 and "shall be rejected" are one rule:

- a **trigger** is a term of :data:`TRIGGERS` (``rejection``, ``bid_disqualified``, ``zero_score``,
  ``failed_evaluation``, ``procurement_cancelled``); the two groups whose words also name things other than bids
  (``not_accepted``: 拒收 a delivery; ``deemed_waived``: 视为放弃 a right) count only in a clause that names a bid,
  a bidder or a step of the procedure (:data:`BID_CONCEPTS`);
- a **termination** of the contract (``termination``: 終止契約, 解除合同, terminate) is a trigger only where the
  clause gives the purchaser or either party the power to end it (``text/powers.POWER`` before it: "機關得終止契約",
  "將據以解除、終止契約", "may terminate") or lists it as a measure ("2.終止或解除契約，並得請求損害賠償"):
  "契約終止時" or "因…致終止或解除契約者" name a termination without threatening one, and the contractor's own
  right to end it ("廠商得通知機關終止…") is no risk to it;
- a bid or step given up (``deemed_waived``) is a risk only when what is given up is a bid, a bidder's step or
  nothing said ("視同該廠商放棄簡報", "视为放弃"), not a right ("視同放棄更換、補充或解決之權益":
  ``text/powers.RIGHT``);
- a trigger the clause negates is none ("不視為不合格標", "shall not be rejected"), nor one that names an outcome in a
  list of them ("開/決/廢/流標後"), nor one inside a bare condition heading a list ("若本案流標者：");
- clauses cut at a semicolon are one risk when both are risks ("…不得參加投標；其投標者，不得作為決標對象；…"): a
  reviewer reads the consequences of one condition together.
- the **stage** is the first of :data:`STAGES` whose concepts the clause names, else the heading's, else
  "responsiveness" (a bid that does not answer the documents).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pikelocal.domain.obligations import Clause, Risk, RiskStage
from pikelocal.domain.review import Located
from pikelocal.text.concepts import ConceptGroups, Match, active, fold
from pikelocal.text.powers import POWER, POWER_DENIED, RIGHT

TRIGGERS: tuple[str, ...] = (
    "rejection",
    "bid_disqualified",
    "zero_score",
    "failed_evaluation",
    "procurement_cancelled",
)
CONTEXT_TRIGGERS: tuple[str, ...] = ("not_accepted", "deemed_waived")
GRANTED_TRIGGERS: tuple[str, ...] = ("termination",)  # a trigger only as a power given or a measure listed
BID_CONCEPTS = frozenset(
    {
        "bidder", "winning_bidder", "bid_documents", "bid_price", "bid_bond", "bid_deadline", "bid_opening",
        "evaluation", "evaluation_committee", "presentation", "questions_and_answers", "qualification", "award",
        "passing_score", "consortium", "bid_validity", "contract_signing", "performance_bond",
    }
)  # fmt: skip
# The stage of a risk by the concepts its clause names, in the order they are tried.
STAGES: tuple[tuple[RiskStage, frozenset[str]], ...] = (
    ("presentation", frozenset({"presentation", "questions_and_answers"})),
    ("evaluation", frozenset({
        "evaluation", "evaluation_committee", "evaluation_criteria", "passing_score", "failed_evaluation",
        "zero_score", "price_score", "weight", "award_basis",
    })),
    ("award", frozenset({"winning_bidder", "contract_signing", "performance_bond", "award", "termination"})),
    ("qualification", frozenset({"qualification", "consortium", "bid_disqualified", "experience", "sme"})),
    ("responsiveness", frozenset({
        "bid_price", "ceiling_price", "budget", "reserve_price", "bid_validity", "substantive_requirement",
    })),
    ("submission", frozenset({"bid_deadline", "bid_bond", "document_form", "copies", "page_limit", "language"})),
)  # fmt: skip
DEFAULT_STAGE: RiskStage = "responsiveness"
# A trigger negated by the words right before it (folded text: simplified, lower case).
_NEGATED_ZH = re.compile(r"(?:不视为|不视同|不作为|不属于|不构成|不致|不会|并非|非属|不列为|未|没有|(?<!除)非)$")
# A list number at the start of a clause ("2." "(3)" "四、"): what follows it is an item of a list of measures.
_ITEM_START = re.compile(
    r"^\s*(?:\d{1,2}[.、)）]|[(（][\d一二三四五六七八九十]{1,3}[)）]|[一二三四五六七八九十]{1,3}、)\s*$"
)
# The contractor's side: a power it holds to end the contract is its own right, no risk to it.
CONTRACTOR_SIDE = frozenset({"bidder", "winning_bidder", "contractor"})
# What a term is cut from: the end of the words that went before it in its clause.
_CLAUSE_CUT = re.compile(r"[，。；：,;:]")
_WINDOW = 30  # characters before a termination searched for the power that grants it
# A bare condition heading a list ("（一）若本案流標者：", "如有下列情形之一者:"): it states no consequence.
_CONDITION_ONLY = re.compile(
    r"^\s*(?:[(（][\d一二三四五六七八九十]{1,3}[)）]|\d{1,2}[.、])?\s*(?:若|如果|如|倘若|倘|凡|if\b)[^，。；,;]*(?:者|时|的)?\s*[：:]\s*$"
)
# A line of a table of contents (dot leaders before a page number): a title, no clause.
_CONTENTS = re.compile(r"(?:\.{4,}|…{2,}|·{4,})\s*\d*\s*$")
_NEGATED_EN = re.compile(r"\b(?:not|never|no)\s+(?:\w+\s+){0,2}$")


def find_risks(clauses: Iterable[Clause], groups: ConceptGroups | None = None) -> list[Risk]:
    """The clauses that state a rejection risk, in the order given, each with its triggers and stage."""
    groups = groups or active()
    out: list[Risk] = []
    joined = False  # the last clause read was a risk cut at a semicolon
    for clause in clauses:
        risk = risk_of(clause, groups)
        if risk is None:
            joined = False
            continue
        if joined and _continues(out[-1].clause, clause):
            out[-1] = _joined(out[-1], risk)
        else:
            out.append(risk)
        joined = clause.text.rstrip()[-1:] in ("；", ";")
    return out


def _continues(first: Clause, then: Clause) -> bool:
    a, b = first.where, then.where
    return (
        a.doc_id == b.doc_id
        and a.page == b.page
        and a.line_end is not None
        and b.line_start is not None
        and b.line_start - a.line_end in (0, 1)
    )


def _joined(first: Risk, then: Risk) -> Risk:
    a, b = first.clause.where, then.clause.where
    where = Located(a.doc_id, a.title, a.page, a.line_start, b.line_end)
    clause = Clause(f"{first.clause.text}{then.clause.text}", where, first.clause.heading, first.clause.in_table)
    return Risk(clause, first.stage, tuple(dict.fromkeys(first.triggers + then.triggers)))


def risk_of(clause: Clause, groups: ConceptGroups | None = None) -> Risk | None:
    """The risk ``clause`` states, or None."""
    groups = groups or active()
    if is_title(clause):
        return None
    folded = fold(clause.text)
    matches = groups.find(folded)
    named = {m.concept for m in matches}
    if _CONDITION_ONLY.match(folded):
        return None
    triggers: list[str] = []
    for m in matches:
        if m.concept not in TRIGGERS + CONTEXT_TRIGGERS + GRANTED_TRIGGERS:
            continue
        if _negated(folded, m.start) or folded[m.start - 1 : m.start] in ("/", "／"):
            continue
        if m.concept in GRANTED_TRIGGERS and not _granted(folded, m, groups):
            continue
        if m.concept == "deemed_waived" and not _gives_up_a_bid(folded, m, named, groups):
            continue
        if m.concept in CONTEXT_TRIGGERS and not (named & BID_CONCEPTS):
            continue
        triggers.append(m.concept)
    if not triggers:
        return None
    return Risk(clause, stage_of(named, groups.concepts_in(clause.heading)), tuple(dict.fromkeys(triggers)))


def stage_of(named: set[str] | frozenset[str], heading: frozenset[str] = frozenset()) -> RiskStage:
    """The first stage whose concepts the clause names, else the heading's, else the default."""
    for concepts in (named, heading):
        for stage, wanted in STAGES:
            if concepts & wanted:
                return stage
    return DEFAULT_STAGE


def by_stage(risks: Sequence[Risk]) -> list[tuple[RiskStage, list[Risk]]]:
    """The risks grouped by stage, stages in the order a bid meets them, each group in document order."""
    from pikelocal.domain.obligations import RISK_STAGES

    return [(s, [r for r in risks if r.stage == s]) for s in RISK_STAGES if any(r.stage == s for r in risks)]


def is_title(clause: Clause) -> bool:
    """A heading or a line of the table of contents: it names a subject ("8.3 终止招标"), it states no rule. A
    Markdown heading is read without its marks ("## 一、投标文件")."""
    text = clause.text.strip().lstrip("#").strip()
    if _CONTENTS.search(text):
        return True
    return not clause.in_table and text == clause.heading.strip() and text[-1:] not in "：:。；;"


def _granted(folded: str, m: Match, groups: ConceptGroups) -> bool:
    """A termination the purchaser or either party may decide ("机关得以书面通知厂商终止契约", "将据以解除、终止契约",
    "may terminate"), or one listed as a measure at the start of an item ("2.终止或解除契约"), not one merely named
    ("契约终止时") nor the contractor's own right ("厂商得通知机关终止…契约", "勘察设计人有权解除合同")."""
    if _ITEM_START.match(folded[: m.start]):
        return True
    start = max(0, m.start - _WINDOW)
    before = folded[start : m.start]
    power = POWER.search(before)
    if power is None or POWER_DENIED.search(before):
        return False
    holder = folded[max(0, start + power.start() - 8) : start + power.start()]
    return not any(h.end >= len(holder) - 1 and h.concept in CONTRACTOR_SIDE for h in groups.find(holder))


def _gives_up_a_bid(folded: str, m: Match, named: set[str], groups: ConceptGroups) -> bool:
    """What a "deemed to have given up" gives up, read up to the next clause mark: a right or a chance
    (``RIGHT``) is no risk; a bid or a step of the procedure is; nothing said, the clause decides."""
    after = _CLAUSE_CUT.split(folded[m.end : m.end + _WINDOW], maxsplit=1)[0]
    if RIGHT.search(after):
        return False
    said = after.strip(" （）()【】「」")
    if not said:
        return True
    return bool(groups.concepts_in(said) & (BID_CONCEPTS | {"presentation", "questions_and_answers", "award"}))


def _negated(folded: str, start: int) -> bool:
    before = folded[max(0, start - 24) : start]
    return bool(_NEGATED_ZH.search(before) or _NEGATED_EN.search(before))
