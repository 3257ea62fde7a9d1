"""The reviewer's first views over one KB, found without a model: rejection risks, requirements, the timeline and
a bid checked against its tender; each risk, requirement and timeline row named by its stable id with the
reviewer's newest mark (``review/view_rows.py``, ``store/view_marks.py``); a row marked by id, a view sheet's marks
stored, and the views exported: what :class:`~pikelocal.kb.knowledge_base.KnowledgeBase`'s view methods do."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.obligations import (
    VIEW_NAMES,
    BidCheck,
    Clause,
    Requirement,
    Risk,
    TimelineEntry,
    ViewName,
    ViewRow,
)
from pikelocal.domain.review import (
    REVIEW_MARKS,
    ReviewMark,
)  # fmt: skip
from pikelocal.domain.shown import shown_name
from pikelocal.domain.statements import Statement
from pikelocal.embed.base import Encoder
from pikelocal.ingest.enrich.statements import document_statements
from pikelocal.kb import catalog
from pikelocal.review.against import check_bid, tender_requirements
from pikelocal.review.clauses import document_clauses
from pikelocal.review.escape import clean_text
from pikelocal.review.marks_import import MarksSheet
from pikelocal.review.report_file import file_mode
from pikelocal.review.requirements import find_requirements
from pikelocal.review.risks import find_risks
from pikelocal.review.timeline import find_timeline
from pikelocal.review.view_export import ViewsReport, write_views
from pikelocal.review.view_rows import ID_PREFIXES, Row, with_ids, with_marks
from pikelocal.store.store import Store

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def documents_named(store: Store, refs: Sequence[str]) -> tuple[int, ...] | None:
    """The ids of the documents ``refs`` names (each as the KB lists it), None for every document."""
    if not refs:
        return None
    docs = store.docs.documents()
    return tuple(dict.fromkeys(catalog.find_document(docs, ref).id for ref in refs))


def view_documents(store: Store, doc_refs: Sequence[str]) -> list[tuple[int, str, list[Clause], list[Statement]]]:
    """Each document the views read (all, or those ``doc_refs`` name): its id, title, clauses and statements (the
    stored ones; read now, not stored, for a document not read for statements yet)."""
    doc_ids = documents_named(store, doc_refs)
    unread = set(store.statements.unread_documents())
    out: list[tuple[int, str, list[Clause], list[Statement]]] = []
    for doc in store.docs.documents():
        if doc_ids is not None and doc.id not in doc_ids:
            continue
        pages = [p for n in store.docs.page_numbers(doc.id) if (p := store.docs.page(doc.id, n)) is not None]
        chunks = store.chunks.chunks_of(doc.id)
        title = doc.title or Path(doc.path).name
        said = document_statements(doc.id, pages, chunks) if doc.id in unread else store.statements.of_document(doc.id)
        out.append((doc.id, title, document_clauses(doc.id, title, pages, chunks), said))
    return out


def risks(path: Path, doc_refs: Sequence[str] = ()) -> list[Risk]:
    """Every clause that rejects a bid, in document order (group them with ``review.risks.by_stage``), each with
    its row id and the reviewer's newest mark."""
    with Store.open_existing(path) as store, store.snapshot():
        return _marked(store, "risks", _risks(store, doc_refs))


def requirements(path: Path, doc_refs: Sequence[str] = ()) -> list[Requirement]:
    """Every sentence that binds someone, in document order, with its figures, its row id and mark."""
    with Store.open_existing(path) as store, store.snapshot():
        return _marked(store, "requirements", _requirements(store, doc_refs))


def timeline(path: Path, doc_refs: Sequence[str] = ()) -> list[TimelineEntry]:
    """Every dated deadline in date order, then every relative one in document order, with its row id and mark."""
    with Store.open_existing(path) as store, store.snapshot():
        return _marked(store, "timeline", _timeline(store, doc_refs))


def _risks(store: Store, doc_refs: Sequence[str]) -> list[Risk]:
    return [r for _i, _t, clauses, _s in view_documents(store, doc_refs) for r in find_risks(clauses)]


def _requirements(store: Store, doc_refs: Sequence[str]) -> list[Requirement]:
    return [r for _i, _t, clauses, said in view_documents(store, doc_refs) for r in find_requirements(clauses, said)]


def _timeline(store: Store, doc_refs: Sequence[str]) -> list[TimelineEntry]:
    found = view_documents(store, doc_refs)
    return find_timeline([s for _i, _t, _c, said in found for s in said], {i: t for i, t, _c, _s in found})


def _view(store: Store, view: ViewName, doc_refs: Sequence[str] = ()) -> Sequence[ViewRow]:
    """One view's rows with their ids and marks."""
    if view == "risks":
        return _marked(store, view, _risks(store, doc_refs))
    if view == "requirements":
        return _marked(store, view, _requirements(store, doc_refs))
    return _marked(store, view, _timeline(store, doc_refs))


def _marked(store: Store, view: ViewName, rows: Sequence[Row]) -> list[Row]:
    """``rows`` named by their stable ids, with the newest mark the KB keeps on each."""
    shas = {d.id: d.sha256 for d in store.docs.documents()}
    return with_marks(with_ids(view, rows, shas), store.view_marks.newest(view))


def mark_view_row(path: Path, view: str, row_id: str, value: str, note: str = "") -> ViewRow:
    """The reviewer's mark (accepted, wrong, to_check, or "" to clear) and note on one row of a view, found by its
    id among the view's rows of every document; the row with its new mark. A view, an id or a mark that is not
    one is a one-line :class:`InputError` naming it. The note is kept as a report shows it (:func:`clean_text`)."""
    if view not in VIEW_NAMES:
        raise InputError(f"'{view}' is not a view: {', '.join(VIEW_NAMES)}")
    shown_id = shown_name(row_id)
    if value not in REVIEW_MARKS:
        marks = ", ".join(m for m in REVIEW_MARKS if m)
        raise InputError(f"{view} row '{shown_id}': mark '{shown_name(value)}' is not one of {marks} (or empty)")
    note = clean_text(note)
    named: ViewName = view  # checked against VIEW_NAMES above
    with Store.open_existing(path, readonly=False) as store:
        with store.snapshot():
            row = next((r for r in _view(store, named) if r.row_id == row_id), None)
        if row is None:
            raise InputError(f"{view}: no row '{shown_id}' in {path.name}{_why_not_found(named, row_id)}")
        stored = store.view_marks.add(view, row_id, row.clause.where.doc_id, value, note)
    mark_value: ReviewMark = value  # checked against REVIEW_MARKS above
    return replace(row, mark=mark_value, note=stored.note, marked_at=stored.at)


def _why_not_found(view: ViewName, row_id: str) -> str:
    """Why an id names no row of ``view``: another view's letter, or a row that is no more."""
    other = next((v for v, p in ID_PREFIXES.items() if row_id.startswith(p + "-") and v != view), None)
    if other is not None:
        return f" (an id of {other}: mark it with --{other})"
    return f" (the ids are listed by `pikelocal review KB --{view}`; a changed or removed document's rows are gone)"


def against(
    store: Store, tender_ref: str, bid_ref: str, encoder: Callable[[], Encoder],
    search_bid: Callable[[str, NDArray[np.float32], int], Sequence[ChunkRecord]],
) -> list[BidCheck]:  # fmt: skip
    """Each requirement of the tender ``tender_ref`` that a bid answers, checked against the bid ``bid_ref`` (both
    named as the KB lists them; one not there is a one-line error before a model loads); ``search_bid(query, its
    vector, bid's id)`` is the KB's search within one document."""
    docs = store.docs.documents()
    tender = catalog.find_document(docs, tender_ref)
    bid = catalog.find_document(docs, bid_ref)
    if tender.id == bid.id:
        raise InputError(f"'{tender_ref}' and '{bid_ref}' are one document: name the tender and the bid")
    found = {i: (clauses, said) for i, _t, clauses, said in view_documents(store, (str(tender.id), str(bid.id)))}
    tender_clauses, tender_said = found[tender.id]
    return check_bid(
        tender_requirements(tender_clauses, tender_said),
        found[bid.id][0],
        lambda q, v: search_bid(q, v, bid.id),
        encoder(),
    )


def export_views(
    path: Path, out: Path, risks_found: Sequence[Risk], requirements_found: Sequence[Requirement],
    timeline_found: Sequence[TimelineEntry], bid_checks: Sequence[BidCheck] = (),
) -> Path:  # fmt: skip
    """Write the views to ``out`` (.md, .csv or .xlsx), with the KB file's permissions."""
    report = ViewsReport(path.name, risks_found, requirements_found, timeline_found, bid_checks)
    return write_views(report, out, file_mode(path))


def import_view_sheet(
    store: Store, view: ViewName, sheet: MarksSheet, shown: str, errors: list[str]
) -> tuple[int, int]:
    """A view sheet's marks stored against the view's rows as the KB finds them now; (changed, unchanged), each
    row not taken added to ``errors``."""
    if not sheet.marks:
        return 0, 0
    rows = {r.row_id: r for r in _view(store, view)}
    changed = unchanged = 0
    for m in sheet.marks:
        row = rows.get(m.item_id)
        if row is None:
            errors.append(
                f"{shown}: sheet '{view}' row {m.row}: row '{m.item_id}' is not in this KB's {view} (its document"
                " was changed or removed): not taken"
            )
            continue
        note = clean_text(m.note).strip()
        if (row.mark, row.note.strip()) == (m.mark, note):
            unchanged += 1
            continue
        store.view_marks.add(view, m.item_id, row.clause.where.doc_id, m.mark, note)
        changed += 1
    return changed, unchanged
