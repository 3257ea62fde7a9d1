"""Records of a document review: checklists and their items, normalised values, the key-figures sheet, and
the stored result of each item with the reviewer's mark.

A checklist is a TOML file (``review/checklist.py`` reads it); each item is asked through the answering engine and
its result stored in the KB (``store/reviews.py``). Values are compared by their normal form (``text/values.py``),
so "新臺幣35萬900元" and "350,900元" are one value and a deadline written twice with two dates is a conflict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pikelocal.domain.shown import shown_name

# What an item's answer is: how its value is normalised and compared.
ValueKind = Literal["amount", "date", "duration", "count", "percentage", "yesno", "name", "list", "text"]
VALUE_KINDS: tuple[ValueKind, ...] = (
    "amount", "date", "duration", "count", "percentage", "yesno", "name", "list", "text",
)  # fmt: skip

# found: answered with a quote; not_stated: no source holds it; conflicting: two quotes with different values;
# to_check: the answer stands word for word in a sentence of the documents that is not clearly about the item (shown
# with its quote for the reviewer to accept or reject; never counted as found).
ReviewVerdict = Literal["found", "not_stated", "conflicting", "to_check"]
REVIEW_VERDICTS: tuple[ReviewVerdict, ...] = ("found", "not_stated", "conflicting", "to_check")
# How reports and the command line name each verdict.
VERDICT_NAMES: Mapping[ReviewVerdict, str] = {
    "found": "found", "not_stated": "not stated", "conflicting": "CONFLICT", "to_check": "to check",
}  # fmt: skip

# The reviewer's mark on a row ("" = none yet).
ReviewMark = Literal["", "accepted", "wrong", "to_check"]
REVIEW_MARKS: tuple[ReviewMark, ...] = ("", "accepted", "wrong", "to_check")
# How reports and listings name each mark.
MARK_NAMES: Mapping[str, str] = {"": "", "accepted": "accepted", "wrong": "wrong", "to_check": "to check"}

# The scripts an item's question is written in (text/script.py's names).
ChecklistScript = Literal["hans", "hant", "en"]
CHECKLIST_SCRIPTS: tuple[ChecklistScript, ...] = ("hans", "hant", "en")


@dataclass(frozen=True)
class ChecklistItem:
    """One question of a checklist: ``questions`` by script (at least one), what kind of value answers it, and
    ``hints``, terms added to its search (both vocabularies: 押標金 and 投标保证金)."""

    id: str
    label: str
    kind: ValueKind
    questions: Mapping[ChecklistScript, str]
    hints: tuple[str, ...] = ()
    section: str = ""  # the heading the item is listed under in a report
    # "max": the item asks for a ceiling (a cap on damages), so its answer's figure must be printed as one in its
    # quote (不超过, 最高, 为上限: ``text/bounds.py``); "min" a floor; "" either
    bound: Literal["min", "max", ""] = ""
    # True: the documents state the item only by naming it (a warranty bond, a site visit, a page limit): where no
    # sentence names one of its own concepts (those its label names and no other item's label does), the row is
    # not stated and the model is not asked
    named: bool = False


@dataclass(frozen=True)
class Checklist:
    """A named list of items; ``source`` is the TOML file it was read from, or ``built-in:NAME``."""

    name: str
    title: str
    items: tuple[ChecklistItem, ...]
    source: str
    description: str = ""


@dataclass(frozen=True)
class Value:
    """A value as written (``text``) and in its normal form (``normal``: "350900 TWD", "2025-12-15", "30%", "15 days",
    "4"), with its number where it has one (an amount in its currency's units, a duration in days, a count, a
    percentage as 30.0)."""

    kind: ValueKind
    text: str
    normal: str
    number: float | None = None
    unit: str = ""


@dataclass(frozen=True)
class Located:
    """Where a text stands: document, page (None: a document without pages) and lines (1-based, on that page)."""

    doc_id: int
    title: str
    page: int | None
    line_start: int | None
    line_end: int | None

    def citation(self) -> str:
        """``title, p. 3, lines 4–6``: what a reader looks up."""
        parts = [shown_name(self.title)]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.line_start is not None:
            same = self.line_end in (None, self.line_start)
            parts.append(f"line {self.line_start}" if same else f"lines {self.line_start}–{self.line_end}")
        return ", ".join(parts)


@dataclass(frozen=True)
class KeyFigure:
    """One amount, date, duration or percentage of a document with its sentence, where it stands and the nearest
    heading: a row of the key-figures sheet, made without the LLM."""

    value: Value
    sentence: str
    where: Located
    heading: str = ""


@dataclass(frozen=True)
class ReviewQuote:
    """A quote that answers an item, where it stands, and the value read from it (None: it holds none of the
    item's kind)."""

    text: str
    where: Located
    value: Value | None = None


@dataclass(frozen=True)
class ReviewRow:
    """The stored result of one checklist item on one KB: the answer shown, its verdict and values, the quotes
    behind it, and the reviewer's mark and note. ``kb_state`` names the KB's contents when it was answered, so a
    row is asked again only when they changed."""

    checklist: str
    item_id: str
    label: str
    section: str
    kind: ValueKind
    question: str
    answer: str
    verdict: ReviewVerdict
    values: tuple[Value, ...] = ()
    quotes: tuple[ReviewQuote, ...] = ()
    kb_state: str = ""
    answered_at: str = ""  # ISO-8601 UTC
    seconds: float = 0.0
    mark: ReviewMark = ""
    note: str = ""
    marked_at: str = ""
    trace_id: int | None = None
    extra: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReviewRequest:
    """How to run a checklist: ``checklist`` is a built-in name or a TOML file; ``docs`` limits it to some
    documents (id, path, file name or sha256 prefix); ``script`` picks the items' questions (None: the documents'
    own script); ``fresh`` asks every item again."""

    checklist: str
    docs: tuple[str, ...] = ()
    script: ChecklistScript | None = None
    fresh: bool = False


@dataclass(frozen=True)
class ReviewReport:
    """What a review run did: items asked now and kept from before, the rows in the checklist's order."""

    checklist: Checklist
    asked: int
    kept: int
    rows: tuple[ReviewRow, ...]
    seconds: float
    script: ChecklistScript = "hans"


@dataclass(frozen=True)
class MarksImport:
    """What a re-import of marks and notes from a workbook did (a checklist's review workbook, or the views' workbook
    of rejection risks, requirements and the timeline): the checklist whose ``review`` sheet was read ("": none), the
    view sheets read (``views``), the rows read (every row that held something), the marks stored now (``changed``; a
    row whose mark and note the KB holds already is ``unchanged``, so importing the same workbook twice stores nothing
    the second time), and one line per row that was not taken, naming the file, the sheet or row and the reason:
    ``read == changed + unchanged + len(errors)``."""

    checklist: str
    workbook: str
    read: int
    changed: int
    unchanged: int
    errors: tuple[str, ...] = ()
    views: tuple[str, ...] = ()
