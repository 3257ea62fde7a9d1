"""What a reviewer reads first, found without the LLM: every clause that rejects a bid (:class:`Risk`),
every sentence that binds someone (:class:`Requirement`) and every dated or relative deadline
(:class:`TimelineEntry`), each cited by document, page and lines, with the reviewer's newest mark and note on the row
(kept in the KB by the row's stable id, ``store/view_marks.py``).

The finders are ``review/risks.py``, ``review/requirements.py`` and ``review/timeline.py``; their words are concept
groups (``text/concepts.toml``), so a mainland, a Taiwanese and an English document are read by one rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pikelocal.domain.review import Located, ReviewMark, Value

RiskStage = Literal["qualification", "submission", "responsiveness", "evaluation", "presentation", "award"]
# In the order a bid meets them; "submission" is the "form and submission", "award" what follows the award
# (signing, the performance bond): a winner can still lose the contract there.
RISK_STAGES: tuple[RiskStage, ...] = (
    "qualification", "submission", "responsiveness", "evaluation", "presentation", "award",
)  # fmt: skip
STAGE_NAMES: dict[str, str] = {
    "qualification": "qualification",
    "submission": "form and submission",
    "responsiveness": "responsiveness",
    "evaluation": "evaluation",
    "presentation": "presentation",
    "award": "award and signing",
}
Party = Literal["bidder", "winning_bidder", "purchaser", "evaluators", ""]
PARTY_NAMES: dict[str, str] = {
    "bidder": "bidder",
    "winning_bidder": "winning bidder",
    "purchaser": "purchaser",
    "evaluators": "evaluators",
    "": "",
}
# The views a reviewer marks rows of (the bid checked against its tender is not one: it is recomputed per bid).
ViewName = Literal["risks", "requirements", "timeline"]
VIEW_NAMES: tuple[ViewName, ...] = ("risks", "requirements", "timeline")
RequirementKind = Literal["mandatory", "prohibition", "deadline", "form"]
REQUIREMENT_KINDS: tuple[RequirementKind, ...] = ("mandatory", "prohibition", "deadline", "form")


@dataclass(frozen=True)
class Clause:
    """A sentence of a page as a reader cuts it (``text/sentences.py``), or a table row whole, with where it stands
    and the nearest heading above it."""

    text: str
    where: Located
    heading: str = ""
    in_table: bool = False


@dataclass(frozen=True)
class Risk:
    """A clause by which a bid is rejected, made void, scored zero, or the procurement cancelled.

    ``triggers`` are the concept groups that made it one (``rejection``, ``zero_score`` …), ``stage`` the step of
    the procedure where it bites."""

    clause: Clause
    stage: RiskStage
    triggers: tuple[str, ...]
    row_id: str = ""  # the row's stable id (review/view_rows.py): the same row keeps it when the view is found again
    mark: ReviewMark = ""  # the reviewer's newest mark on the row ("" = none)
    note: str = ""
    marked_at: str = ""  # ISO-8601 UTC, when the newest mark was made


@dataclass(frozen=True)
class Requirement:
    """A sentence that binds someone: who (``party``: "" when the sentence names nobody), its kind, the binding
    word as printed (``modal``: 应, 不得, shall …) and the figures the KB's statements read in it."""

    clause: Clause
    party: Party
    kind: RequirementKind
    modal: str
    figures: tuple[Value, ...] = ()
    row_id: str = ""  # the row's stable id (review/view_rows.py): the same row keeps it when the view is found again
    mark: ReviewMark = ""  # the reviewer's newest mark on the row ("" = none)
    note: str = ""
    marked_at: str = ""  # ISO-8601 UTC, when the newest mark was made


@dataclass(frozen=True)
class TimelineEntry:
    """A dated or relative deadline and what happens then.

    ``date`` is ISO (Gregorian) for a dated entry, None for a relative one; ``roc`` the same day as a Taiwanese
    document writes it (民國115年1月27日), ``value`` the date or period as the document prints it, ``what`` what
    it is the date of (the statement's subject, else its sentence)."""

    clause: Clause
    date: str | None
    roc: str
    value: str
    what: str
    row_id: str = ""  # the row's stable id (review/view_rows.py): the same row keeps it when the view is found again
    mark: ReviewMark = ""  # the reviewer's newest mark on the row ("" = none)
    note: str = ""
    marked_at: str = ""  # ISO-8601 UTC, when the newest mark was made


# A row of one of the views a reviewer marks.
ViewRow = Risk | Requirement | TimelineEntry

BidCheckState = Literal["met", "not_found", "differs"]
BID_CHECK_STATES: tuple[BidCheckState, ...] = ("met", "not_found", "differs")
BID_CHECK_NAMES: dict[str, str] = {"met": "met", "not_found": "not found", "differs": "differs"}


@dataclass(frozen=True)
class FigureCheck:
    """One figure of a requirement against the bid's figure of the same kind: the bound the requirement puts on it
    ("min": at least, "max": at most, "": exactly), what the bid offers (None: the bid's sentence prints no
    figure of that kind) and whether the offer meets it."""

    required: Value
    bound: Literal["min", "max", ""]
    offered: Value | None
    meets: bool


@dataclass(frozen=True)
class BidCheck:
    """One requirement of a tender checked against a bid: the bid's sentence that answers it (None when the bid
    has no sentence about it), the state, each figure compared, and how near the answer is in meaning (the
    encoder's cosine between the two sentences; 0.0 when none was found)."""

    requirement: Requirement
    state: BidCheckState
    answer: Clause | None
    figures: tuple[FigureCheck, ...] = ()
    similarity: float = 0.0
