"""Documents side by side: one checklist answered once per document (three bids, or a contract and its template)
and shown as columns, each item marked where the documents' values agree or differ.

Each cell is the stored :class:`~pikelocal.domain.review.ReviewRow` of one item on one document (its answer, state,
values and cited quotes). Values are compared by :func:`pikelocal.text.values.same_value`, so 35 萬 900 元 and
350,900 元 are the same value; an item two or more documents state is ``same`` or ``differs``, one fewer
documents state is left undecided (``""``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pikelocal.domain.review import Checklist, ChecklistScript, ReviewRow

# same: every document that states the item states the same value; differs: two of them do not; "": fewer than two
# documents state it, so nothing is decided.
Agreement = Literal["same", "differs", ""]
AGREEMENTS: tuple[Agreement, ...] = ("same", "differs", "")
AGREEMENT_NAMES: Mapping[Agreement, str] = {"same": "same", "differs": "DIFFERS", "": ""}


@dataclass(frozen=True)
class ComparedDocument:
    """A column: the document's id, its title and the heading it is shown under (the title, with the file's name
    where two documents share a title: three bids made from one template often do)."""

    doc_id: int
    title: str
    heading: str
    path: str = ""


@dataclass(frozen=True)
class SideBySideRow:
    """One checklist item across the documents: ``cells`` in the columns' order (None: not answered on that
    document), and whether the documents that state it agree."""

    item_id: str
    label: str
    section: str
    kind: str
    cells: tuple[ReviewRow | None, ...]
    agreement: Agreement


@dataclass(frozen=True)
class SideBySide:
    """A checklist run per document: the columns, a row per item in the checklist's order, how many item runs
    were asked now and kept from before (items × documents), and the seconds it took."""

    checklist: Checklist
    documents: tuple[ComparedDocument, ...]
    rows: tuple[SideBySideRow, ...]
    asked: int = 0
    kept: int = 0
    seconds: float = 0.0
    scripts: tuple[ChecklistScript, ...] = ()  # each column's questions' script


@dataclass(frozen=True)
class SideBySideRequest:
    """How to run a checklist per document: ``docs`` names the columns (id, path, file name or sha256 prefix; empty:
    every document of the KB), ``script`` the questions' script (None: each document's own), ``fresh`` asks every
    item again."""

    checklist: str
    docs: tuple[str, ...] = ()
    script: ChecklistScript | None = None
    fresh: bool = False
