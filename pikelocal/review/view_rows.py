"""The rows of the review views (rejection risks, requirements, the timeline) named so that a reviewer's mark finds
its row again, and the marks the KB keeps put on them.

The views are found again, without the model, each time they are asked for; a row's id is therefore made of what
the row is, never of its place in a listing: the view, its document's content hash, the page, the first line, and the
row's text (the clause; for a timeline entry also the date or period as printed, since one sentence may hold two).
The same documents give the same ids on every run, whatever else the KB holds or the listing is limited to; a
document replaced by another version is another hash, so its rows get new ids and lose their marks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from pikelocal.domain.obligations import Requirement, Risk, TimelineEntry, ViewName, ViewRow
from pikelocal.domain.review import REVIEW_MARKS, ReviewMark
from pikelocal.store.view_marks import StoredViewMark

# The first letter of each view's ids, so an id names its view: R-…, Q-… (requirements), T-…
ID_PREFIXES: dict[ViewName, str] = {"risks": "R", "requirements": "Q", "timeline": "T"}
ID_HEX = 10  # 40 bits: no two rows of a KB's view share one but by a chance of about 1 in 10^7 per 1,000 rows
_MARKS: dict[str, ReviewMark] = {m: m for m in REVIEW_MARKS}

Row = TypeVar("Row", Risk, Requirement, TimelineEntry)


def view_of(row: ViewRow) -> ViewName:
    """The view ``row`` belongs to."""
    if isinstance(row, Risk):
        return "risks"
    return "requirements" if isinstance(row, Requirement) else "timeline"


def row_text(row: ViewRow) -> str:
    """What the row says: its clause, and for a timeline entry the date or period as printed."""
    return row.clause.text + (f"\0{row.value}" if isinstance(row, TimelineEntry) else "")


def row_id(view: ViewName, doc_sha256: str, row: ViewRow) -> str:
    """``R-3fa9c21b0d``: the view's letter and a digest of the view, the document's content hash, the page, the
    first line and the row's text."""
    where = row.clause.where
    text = hashlib.sha256(row_text(row).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    key = "\n".join((view, doc_sha256, str(where.page or ""), str(where.line_start or ""), text))
    return f"{ID_PREFIXES[view]}-{hashlib.sha256(key.encode()).hexdigest()[:ID_HEX]}"


def with_ids(view: ViewName, rows: Sequence[Row], shas: Mapping[int, str]) -> list[Row]:
    """``rows`` with their ids (``shas``: each document's content hash by id); a row that would repeat an id already
    given (the same text on the same line twice) gets ``-2``, ``-3``… after it, in the view's order."""
    seen: dict[str, int] = {}
    out: list[Row] = []
    for row in rows:
        base = row_id(view, shas.get(row.clause.where.doc_id, ""), row)
        seen[base] = seen.get(base, 0) + 1
        out.append(replace(row, row_id=base if seen[base] == 1 else f"{base}-{seen[base]}"))
    return out


def with_marks(rows: Sequence[Row], marks: Mapping[str, StoredViewMark]) -> list[Row]:
    """``rows`` with the newest mark the KB keeps for each (``marks`` by row id, of the row's own document: a mark
    left by a removed document is gone with it)."""
    out: list[Row] = []
    for row in rows:
        stored = marks.get(row.row_id)
        if stored is None or stored.doc_id != row.clause.where.doc_id:
            out.append(row)
            continue
        out.append(replace(row, mark=_MARKS.get(stored.mark, ""), note=stored.note, marked_at=stored.at))
    return out
