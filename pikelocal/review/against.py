"""A bid against its tender: each requirement of the tender that a bid can answer, the bid's sentence that answers
it, and a state, without the LLM.

- **which requirements**: the sentences with a binding word (``review/requirements.py``) and the clauses whose figure
  is bounded without one ("投标有效期为…不少于90日历天"), binding the bidder or the winning bidder, or nobody
  named; what the purchaser or the evaluators must do is no bid's to answer.
- **the answer**: the bid's clauses (sentences and whole table rows, ``review/clauses.py``) in the chunks the KB's
  hybrid search finds for the requirement within the bid, and those naming a concept of the requirement (its concept
  groups, ``text/concepts.py``, the parties aside). A clause is *about* the requirement by meaning: the encoder puts
  it near (cosine at least :data:`ABOUT_COSINE`, or :data:`SHARED_COSINE` when it names one of the requirement's
  concepts), and no other requirement of the tender is clearly nearer to it (by :data:`CLAIMED_MARGIN`): a bid's
  「产品合格证及出厂检验报告」 is near a required 「原厂授权书」 too, but it answers the requirement of 合格证, and the
  授权书 is missing. Shared words alone decide nothing. The nearest clause about it is the answer; none: **not
  found**.
- **the figures**: each figure of the requirement (an amount, a duration, a date, a count, a percentage:
  ``text/values.py``) against the answer's figures of the same kind and unit, in the direction the requirement
  states (``text/bounds.py``: at least, at most, else exactly). One that fails: **differs**; the answer prints
  none of that kind: the answer stands for it. Otherwise **met**.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
from numpy.typing import NDArray

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.obligations import BidCheck, BidCheckState, Clause, FigureCheck, Requirement
from pikelocal.domain.review import Value
from pikelocal.domain.statements import Statement
from pikelocal.embed.base import Encoder
from pikelocal.query.verify import about
from pikelocal.review.requirements import PARTIES, bounded_requirement, find_requirements
from pikelocal.review.risks import is_title
from pikelocal.text.bounds import Bound, bound_of
from pikelocal.text.concepts import ConceptGroups, active, fold
from pikelocal.text.values import SPAN_KINDS, same_currency, values_in

ANSWERABLE = frozenset({"bidder", "winning_bidder", ""})  # whom a requirement binds for a bid to answer it
# Concepts that name who is bound or which papers, not what is required: every clause of a bid names them.
WHO_CONCEPTS = frozenset(PARTIES) | {"bid_documents", "tender_documents"}
ABOUT_COSINE = about.ABOUT_COSINE  # calibrated on labelled question–sentence pairs (BENCHMARKS)
# A clause naming one of the requirement's concepts may be a little farther; measured at this value (BENCHMARKS "A bid
# against its tender"), apart from the review's to-check edge, which moved after.
SHARED_COSINE = 0.35
# Set on the composed tender and bid of tests/data/review/against (EmbeddingGemma), not on a held-out pair.
CLAIMED_MARGIN = 0.06
MAX_CANDIDATES = 40  # clauses of the search's chunks read per requirement, best chunk first
_DAYS = {"days": 1.0, "weeks": 7.0, "hours": 1 / 24, "minutes": 1 / 1440, "months": 365 / 12, "years": 365.0}
_TOLERANCE = 0.005  # relative: 3年 and 36个月 are one period


@dataclass(frozen=True)
class Figure:
    """A value printed in a clause and the bound the words around it put on it."""

    value: Value
    bound: Bound


def figures_of(text: str) -> list[Figure]:
    """Every amount, date, duration, count and percentage of ``text``, with its bound, left to right."""
    return [Figure(v, bound_of(text, s, e)) for s, e, v in values_in(text, SPAN_KINDS)]


def magnitude(a: Value, b: Value) -> tuple[float, float] | None:
    """``a`` and ``b`` as two numbers on one scale, or None when they cannot be compared (other kinds, another
    currency or measure word, working days against calendar days, a date without its day)."""
    if a.kind != b.kind:
        return None
    if a.kind == "date":
        da, db = _day(a.normal), _day(b.normal)
        return None if da is None or db is None else (float(da), float(db))
    if a.kind == "duration":
        qa, qb = _duration(a), _duration(b)
        return None if qa is None or qb is None or qa[0] != qb[0] else (qa[1], qb[1])
    if a.number is None or b.number is None:
        return None
    if a.kind == "amount" and not same_currency(a, b):
        return None
    if a.kind == "count" and a.unit and b.unit and a.unit != b.unit:
        return None
    if a.kind == "percentage" and a.unit != b.unit:
        return None
    return a.number, b.number


def _day(normal: str) -> int | None:
    try:
        return date.fromisoformat(normal).toordinal()
    except ValueError:
        return None


def _duration(v: Value) -> tuple[str, float] | None:
    """(scale, length): calendar time in days, working days apart."""
    try:
        n = float(v.normal.split()[0])
    except (ValueError, IndexError):
        return None
    if v.unit == "working days":
        return "working days", n
    per = _DAYS.get(v.unit)
    return None if per is None else ("days", n * per)


def meets(required: Value, bound: Bound, offered: Value) -> bool | None:
    """Whether ``offered`` meets ``required`` under ``bound`` (at least, at most, exactly); None: not comparable."""
    pair = magnitude(required, offered)
    if pair is None:
        return None
    r, o = pair
    slack = _TOLERANCE * abs(r) if required.kind == "duration" else 1e-9 * max(1.0, abs(r))
    if bound == "min":
        return o >= r - slack
    if bound == "max":
        return o <= r + slack
    return abs(o - r) <= slack


def compare_figures(required_text: str, offered_text: str) -> tuple[FigureCheck, ...]:
    """Each figure of the requirement against the answer's: of one kind, the n-th against the n-th when both print
    as many (响应2小时, 到场24小时 against 4小时, 48小时), else against any that meets it."""
    required = figures_of(required_text)
    offered = [f.value for f in figures_of(offered_text)]
    out: list[FigureCheck] = []
    for kind in dict.fromkeys(f.value.kind for f in required):
        want = [f for f in required if f.value.kind == kind]
        have = [v for v in offered if v.kind == kind]
        paired = len(want) == len(have)
        for i, f in enumerate(want):
            if paired and (verdict := meets(f.value, f.bound, have[i])) is not None:
                out.append(FigureCheck(f.value, f.bound, have[i], verdict))
                continue
            judged = [(v, ok) for v in have if (ok := meets(f.value, f.bound, v)) is not None]
            if not judged:
                out.append(FigureCheck(f.value, f.bound, None, True))
                continue
            chosen = next(((v, ok) for v, ok in judged if ok), judged[0])
            out.append(FigureCheck(f.value, f.bound, chosen[0], chosen[1]))
    return tuple(out)


def decide(figures: Sequence[FigureCheck]) -> BidCheckState:
    """met, unless a figure of the answer fails the requirement's (differs)."""
    return "differs" if any(not f.meets for f in figures) else "met"


def tender_requirements(
    clauses: Sequence[Clause], statements: Sequence[Statement] = (), groups: ConceptGroups | None = None
) -> list[Requirement]:
    """What a tender requires of a bid, in document order: every sentence with a binding word (the requirements
    view's rows) and every clause whose figure is bounded without one ("投标有效期为…不少于90日历天")."""
    groups = groups or active()
    stated = {id(r.clause): r for r in find_requirements(clauses, statements, groups)}
    out: list[Requirement] = []
    for clause in clauses:
        found = stated.get(id(clause)) or bounded_requirement(clause, groups)
        if found is not None:
            out.append(found)
    return out


def answerable(requirement: Requirement) -> bool:
    return requirement.party in ANSWERABLE


def concepts_of(text: str, groups: ConceptGroups) -> frozenset[str]:
    """What ``text`` names by the concept groups, the parties and the papers aside."""
    return frozenset(m.concept for m in groups.find(fold(text))) - WHO_CONCEPTS


def is_about(similarity: float, best_elsewhere: float, shares_concept: bool = False) -> bool:
    """A bid clause is about a requirement when the encoder puts it near (:data:`ABOUT_COSINE`; one naming a
    concept of the requirement at :data:`SHARED_COSINE`) and no other requirement of the tender is clearly nearer
    to it (by :data:`CLAIMED_MARGIN`): the clause then answers that one, and this requirement's answer is missing."""
    floor = SHARED_COSINE if shares_concept else ABOUT_COSINE
    return similarity >= floor and best_elsewhere < similarity + CLAIMED_MARGIN


def in_chunk(clause: Clause, chunk: ChunkRecord) -> bool:
    """Whether ``clause`` stands in ``chunk`` (same document; its page and lines within the chunk's)."""
    w = clause.where
    if w.doc_id != chunk.doc_id:
        return False
    if chunk.page_start is not None and w.page is not None:
        last_page = chunk.page_end if chunk.page_end is not None else chunk.page_start
        if not chunk.page_start <= w.page <= last_page:
            return False
        if chunk.page_start != last_page:
            return True
    if w.line_start is None or chunk.line_start is None or chunk.line_end is None:
        return True
    return w.line_start <= chunk.line_end and (w.line_end or w.line_start) >= chunk.line_start


def check_bid(
    requirements: Iterable[Requirement],
    bid_clauses: Sequence[Clause],
    search_bid: Callable[[str, NDArray[np.float32]], Sequence[ChunkRecord]],
    encoder: Encoder,
    groups: ConceptGroups | None = None,
) -> list[BidCheck]:
    """Each answerable requirement checked against the bid, in the tender's order. ``search_bid(text, vector)`` is
    the KB's search restricted to the bid (the chunks it ranks best first); the requirements are encoded once, for
    the search and the cosines both."""
    groups = groups or active()
    wanted = [r for r in requirements if answerable(r)]
    if not wanted:
        return []
    bid_clauses = [c for c in bid_clauses if not is_title(c)]  # a heading names a subject, it answers nothing
    named = [concepts_of(c.text, groups) for c in bid_clauses]
    queries = encoder.encode([r.clause.text for r in wanted], role="query")
    topics = [concepts_of(r.clause.text, groups) for r in wanted]
    candidates: list[list[int]] = []
    for req, vector, topic in zip(wanted, queries, topics, strict=True):
        picked: list[int] = []
        for chunk in search_bid(req.clause.text, vector):
            picked += [i for i, c in enumerate(bid_clauses) if in_chunk(c, chunk) and i not in picked]
        picked = picked[:MAX_CANDIDATES]
        candidates.append(picked + [i for i, n in enumerate(named) if n & topic and i not in picked])
    read = sorted({i for picked in candidates for i in picked})
    column = {i: j for j, i in enumerate(read)}
    passages = encoder.encode([bid_clauses[i].text for i in read], role="passage") if read else None
    sims = queries @ passages.T if passages is not None else np.zeros((len(wanted), 0), dtype=np.float32)
    out: list[BidCheck] = []
    for row, (req, picked) in enumerate(zip(wanted, candidates, strict=True)):
        about_it: list[tuple[float, int]] = []
        for i in picked:
            col = sims[:, column[i]]
            elsewhere = float(np.max(np.delete(col, row))) if len(col) > 1 else -1.0
            if is_about(float(col[row]), elsewhere, bool(named[i] & topics[row])):
                about_it.append((float(col[row]), i))
        if not about_it:
            out.append(BidCheck(req, "not_found", None))
            continue
        cos, best = max(about_it, key=lambda a: (a[0], -a[1]))
        answer = bid_clauses[best]
        figures = compare_figures(req.clause.text, answer.text)
        out.append(BidCheck(req, decide(figures), answer, figures, cos))
    return out
