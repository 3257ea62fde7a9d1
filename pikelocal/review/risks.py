"""Rejection risks: every clause by which a bid is rejected or made void, a bidder disqualified, a score zeroed or
the procurement cancelled, found without the LLM, each with the stage of the procedure where it bites.

The words are concept groups (``text/concepts.toml``), so 否决投标, 不合格標 and "shall be rejected" are one rule:

- a **trigger** is a term of :data:`TRIGGERS` (``rejection``, ``bid_disqualified``, ``zero_score``,
  ``failed_evaluation``, ``procurement_cancelled``); the two groups whose words also name things other than bids
  (``not_accepted``: 拒收 a delivery; ``deemed_waived``: 视为放弃 a right) count only in a clause that names a bid,
  a bidder or a step of the procedure (:data:`BID_CONCEPTS`);
- a trigger the clause negates is none ("不視為不合格標", "shall not be rejected");
- the **stage** is the first of :data:`STAGES` whose concepts the clause names, else the heading's, else
  "responsiveness" (a bid that does not answer the documents).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pikelocal.domain.obligations import Clause, Risk, RiskStage
from pikelocal.text.concepts import ConceptGroups, active, fold

TRIGGERS: tuple[str, ...] = (
    "rejection",
    "bid_disqualified",
    "zero_score",
    "failed_evaluation",
    "procurement_cancelled",
)
CONTEXT_TRIGGERS: tuple[str, ...] = ("not_accepted", "deemed_waived")
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
    ("award", frozenset({"winning_bidder", "contract_signing", "performance_bond", "award"})),
    ("qualification", frozenset({"qualification", "consortium", "bid_disqualified", "experience", "sme"})),
    ("responsiveness", frozenset({
        "bid_price", "ceiling_price", "budget", "reserve_price", "bid_validity", "substantive_requirement",
    })),
    ("submission", frozenset({"bid_deadline", "bid_bond", "document_form", "copies", "page_limit", "language"})),
)  # fmt: skip
DEFAULT_STAGE: RiskStage = "responsiveness"
# A trigger negated by the words right before it (folded text: simplified, lower case).
_NEGATED_ZH = re.compile(r"(?:不视为|不视同|不作为|不属于|不构成|不致|不会|并非|非属|不列为|未|没有)$")
# A line of a table of contents (dot leaders before a page number): a title, no clause.
_CONTENTS = re.compile(r"(?:\.{4,}|…{2,}|·{4,})\s*\d*\s*$")
_NEGATED_EN = re.compile(r"\b(?:not|never|no)\s+(?:\w+\s+){0,2}$")


def find_risks(clauses: Iterable[Clause], groups: ConceptGroups | None = None) -> list[Risk]:
    """The clauses that state a rejection risk, in the order given, each with its triggers and stage."""
    groups = groups or active()
    out: list[Risk] = []
    for clause in clauses:
        risk = risk_of(clause, groups)
        if risk is not None:
            out.append(risk)
    return out


def risk_of(clause: Clause, groups: ConceptGroups | None = None) -> Risk | None:
    """The risk ``clause`` states, or None."""
    groups = groups or active()
    if is_title(clause):
        return None
    folded = fold(clause.text)
    matches = groups.find(folded)
    named = {m.concept for m in matches}
    triggers: list[str] = []
    for m in matches:
        if m.concept not in TRIGGERS and m.concept not in CONTEXT_TRIGGERS:
            continue
        if _negated(folded, m.start):
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


def _negated(folded: str, start: int) -> bool:
    before = folded[max(0, start - 24) : start]
    return bool(_NEGATED_ZH.search(before) or _NEGATED_EN.search(before))
