"""Documents side by side, from the rows a checklist stored per document: the columns' headings, and for each item
whether the documents that state it agree (no model; the runs themselves are ``kb/side_by_side.py``'s).

A document states an item when its row was found with a value (``to check``, ``not stated`` and a document in
conflict with itself state none); values are compared by :func:`pikelocal.text.values.same_value`, so 35 萬 900 元
and 350,900 元 are one value, and 新臺幣 and 元 of the same number too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from pikelocal.domain.documents import DocumentRecord
from pikelocal.domain.review import Checklist, ChecklistScript, ReviewRow, Value
from pikelocal.domain.side_by_side import Agreement, ComparedDocument, SideBySide, SideBySideRow
from pikelocal.text.values import same_value


def columns(docs: Sequence[DocumentRecord]) -> tuple[ComparedDocument, ...]:
    """One column per document, headed by its title (its file name where it has none); where two documents share
    a heading, each is told apart by its file name, then by its id."""
    titles = [d.title or Path(d.path).name for d in docs]
    shared = {t for t, n in Counter(titles).items() if n > 1}
    headings = [f"{t} [{Path(d.path).name}]" if t in shared else t for t, d in zip(titles, docs, strict=True)]
    still = {h for h, n in Counter(headings).items() if n > 1}
    return tuple(
        ComparedDocument(d.id, t, f"{h} #{d.id}" if h in still else h, d.path)
        for d, t, h in zip(docs, titles, headings, strict=True)
    )


def stated(cell: ReviewRow | None) -> Value | None:
    """The value a document states for the item: its found row's first value (None: it states none)."""
    if cell is None or cell.verdict != "found" or not cell.values:
        return None
    return cell.values[0]


def agreement(cells: Sequence[ReviewRow | None]) -> Agreement:
    """``same`` when every document that states the item states the same value, ``differs`` when two of them do
    not, ``""`` when fewer than two state it."""
    values = [v for c in cells if (v := stated(c)) is not None]
    if len(values) < 2:
        return ""
    return "same" if all(same_value(a, b) for a, b in combinations(values, 2)) else "differs"


def compare(
    checklist: Checklist,
    documents: Sequence[ComparedDocument],
    rows: Sequence[Sequence[ReviewRow]],
    *,
    asked: int = 0,
    kept: int = 0,
    seconds: float = 0.0,
    scripts: Sequence[ChecklistScript] = (),
) -> SideBySide:
    """The table: ``rows[i]`` are the stored rows of ``documents[i]``; one row per item of the checklist, in its
    order, each cell that document's row of the item (None where it was never answered)."""
    by_doc = [{r.item_id: r for r in doc_rows} for doc_rows in rows]
    table = []
    for item in checklist.items:
        cells = tuple(found.get(item.id) for found in by_doc)
        table.append(SideBySideRow(item.id, item.label, item.section, item.kind, cells, agreement(cells)))
    return SideBySide(
        checklist, tuple(documents), tuple(table), asked=asked, kept=kept, seconds=seconds, scripts=tuple(scripts)
    )
