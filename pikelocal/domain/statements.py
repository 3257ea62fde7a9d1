"""Statements: every typed value of a document with what it is a value of, read once when the document is ingested
(``ingest/enrich/statements.py``) and kept in the KB (``store/statements.py``).

A statement is one value (an amount, a date, a duration, a count, a percentage or points) with its *subject*: the
words before it in its clause (a table row's label cell and column header), the concept groups those words name
(``text/concepts.py``), the sentence that holds it, the nearest heading, and where it stands. Two figures in one
sentence are two statements ("簡報時間不得超過15分鐘，答詢時間不得超過10分鐘": 簡報時間 15 minutes, 答詢時間 10
minutes), so a reader that wants one figure is shown one line per figure instead of a page of text.
"""

from __future__ import annotations

from dataclasses import dataclass

from pikelocal.domain.review import Value


@dataclass(frozen=True)
class Statement:
    """One value of a document and what it is a value of.

    ``subject`` is what the value is of as the document words it ("投标有效期", "Liquidated damages · Details"); a
    start point ("自投标截止之日起") and a base ("合同总价的") are left out of it. ``concepts`` are the concept
    groups the subject names, the one nearest the value first (the heading's when the subject names none).
    ``threshold``: points that set a line a score must reach ("80分以上"), not a weight. Lines are 1-based on
    ``page`` as citations count them (``page`` None: a document without pages); ``char_start``/``char_end`` are
    the value's span in the document's text. ``id`` is the stored row's (None before it is stored).
    """

    doc_id: int
    value: Value
    subject: str
    concepts: tuple[str, ...]
    sentence: str
    heading: str
    page: int | None
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    threshold: bool = False
    id: int | None = None

    def line(self) -> str:
        """The statement as one line for a reader: ``subject: value`` (the value as the document prints it; the
        heading where the subject is empty)."""
        head = self.subject or self.heading
        value = " ".join(self.value.text.split())
        return f"{head}: {value}" if head else value


@dataclass(frozen=True)
class StatementHit:
    """A stored statement found for a query, with its score (BM25's negated rank or 1 − cosine distance)."""

    statement: Statement
    score: float
