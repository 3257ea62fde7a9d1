"""A checklist run over one KB, its stored rows, the reviewer's marks (read back from a workbook too), the
key-figures sheet and the checklist's exports: what :class:`~pikelocal.kb.knowledge_base.KnowledgeBase`'s review
methods do (the views found without the model are ``kb/review_views.py``'s).

A run whose items are all answered on the KB's present state opens no model (a rerun after no change takes a
moment); otherwise the models load once and every item is asked in one session.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.config import Settings, answers_key
from pikelocal.domain.answers import QueryTrace
from pikelocal.domain.errors import InputError
from pikelocal.domain.events import EventSink, ignore
from pikelocal.domain.obligations import (
    VIEW_NAMES,
)
from pikelocal.domain.review import (
    REVIEW_MARKS,
    Checklist,
    ChecklistScript,
    KeyFigure,
    MarksImport,
    ReviewMark,
    ReviewReport,
    ReviewRequest,
    ReviewRow,
    ValueKind,
)  # fmt: skip
from pikelocal.domain.shown import shown_name
from pikelocal.embed.base import Encoder
from pikelocal.kb.options import review_options, search_weights
from pikelocal.kb.review_views import documents_named, import_view_sheet
from pikelocal.kb.session import encoder_settings_for, kb_session
from pikelocal.llm.base import LLM
from pikelocal.query.answer.modes import ask
from pikelocal.review.checklist import load_checklist
from pikelocal.review.escape import clean_text
from pikelocal.review.export import REVIEW_SHEET, Report, write_report
from pikelocal.review.figures import key_figures
from pikelocal.review.marks_import import MarksSheet, read_workbook
from pikelocal.review.report_file import file_mode
from pikelocal.review.runner import item_state, run_review, state_of
from pikelocal.review.stored import stored_rows
from pikelocal.store.store import Store
from pikelocal.text.script import detect_script

if TYPE_CHECKING:
    pass

SCRIPT_SAMPLE_CHUNKS = 40  # chunks read to tell the documents' script


def run(
    settings: Settings,
    path: Path,
    request: ReviewRequest,
    encoder: Callable[[], Encoder],
    load_llm: Callable[[], LLM],
    sink: EventSink = ignore,
) -> ReviewReport:
    """Run ``request``'s checklist: the stored rows when nothing changed, else every changed item asked. What an
    item's answer depends on besides the KB's contents is every setting declared to change an answer
    (:func:`pikelocal.config.answers_key`): a change to any of them asks the stored items again."""
    checklist = load_checklist(request.checklist)
    # the encoder named as the KB's own ("default" resolved), however the KB was opened: one key for one encoder
    key = answers_key(encoder_settings_for(settings, path))
    with Store.open_existing(path) as store:
        doc_ids = documents_named(store, request.docs)
        script = request.script or documents_script(store, doc_ids)
        if not request.fresh and _all_current(store, checklist, key, script, doc_ids):
            return ReviewReport(checklist, 0, len(checklist.items), tuple(stored_rows(store, checklist)), 0.0, script)
    options = review_options(settings)
    with kb_session(settings, path, encoder=encoder(), load_llm=load_llm) as s:
        options = replace(options, weights=search_weights(s.settings, s.store, s.encoder.model_id), doc_ids=doc_ids)

        def ask_item(question: str, hints: Sequence[str], kind: ValueKind | None) -> QueryTrace:
            asked = replace(options, search_terms=tuple(hints), value_kind=kind)  # type: ignore[arg-type]
            return ask(s.store, s.encoder, s.llm(), question, asked)

        return run_review(
            s.store, checklist, ask_item, script, settings_key=key, doc_ids=doc_ids,
            fresh=request.fresh, sink=sink, encoder=s.encoder,
        )  # fmt: skip


def _all_current(
    store: Store, checklist: Checklist, key: str, script: ChecklistScript, doc_ids: tuple[int, ...] | None
) -> bool:
    """Every item has a stored result made on this KB state with these settings (nothing to ask)."""
    state = state_of(store, key, script, doc_ids)
    stored = {r.item_id: r.kb_state for r in store.reviews.results(checklist.name)}
    return all(stored.get(i.id) == item_state(state, i) for i in checklist.items)


def documents_script(store: Store, doc_ids: Sequence[int] | None) -> ChecklistScript:
    """The script most of the documents are written in (their first chunks read), for the items' questions."""
    sample: list[str] = []
    for doc in store.docs.documents():
        if doc_ids is None or doc.id in doc_ids:
            sample += [c.text for c in store.chunks.chunks_of(doc.id)[:SCRIPT_SAMPLE_CHUNKS]]
    return detect_script("\n".join(sample)[:20_000])


def rows(path: Path, checklist_ref: str) -> tuple[Checklist, list[ReviewRow]]:
    """The stored rows of a checklist on this KB, in its order, with the newest marks (no model)."""
    checklist = load_checklist(checklist_ref)
    with Store.open_existing(path) as store:
        return checklist, stored_rows(store, checklist)


def mark(path: Path, checklist_ref: str, item_id: str, value: str, note: str = "") -> ReviewRow:
    """The reviewer's mark (accepted, wrong, to_check, or "" to clear) and note on one answered item.

    The note is kept as a report shows it (``review/escape.py``'s :func:`clean_text`): a control character or a byte
    that was not UTF-8 (which Python hands over from the command line as a lone surrogate, and SQLite cannot store)
    becomes U+FFFD, not an "unexpected" error."""
    note = clean_text(note)
    if value not in REVIEW_MARKS:
        raise InputError(f"mark '{value}' is not one of {', '.join(m for m in REVIEW_MARKS if m)} (or empty)")
    checklist, answered = rows(path, checklist_ref)
    if not any(r.item_id == item_id for r in answered):
        known = ", ".join(r.item_id for r in answered[:8]) or "none yet"
        raise InputError(f"{checklist.name}: no answered item '{item_id}' in {path.name} (answered: {known})")
    with Store.open_existing(path, readonly=False) as store:
        stored = store.reviews.add_mark(checklist.name, item_id, value, note)
    row = next(r for r in answered if r.item_id == item_id)
    mark_value: ReviewMark = value  # checked against REVIEW_MARKS above
    return replace(row, mark=mark_value, note=stored.note, marked_at=stored.at)


def import_marks(path: Path, checklist_ref: str | None, workbook: Path) -> MarksImport:
    """The marks and notes filled in in a workbook stored as marks, as ``pikelocal mark`` stores them, in one
    transaction: a review workbook's (``export`` to .xlsx; ``checklist_ref`` names its checklist) matched by item id,
    and the views' workbook's (``export_views`` to .xlsx: its ``risks``, ``requirements`` and ``timeline`` sheets)
    matched by row id.

    A row whose mark and note the KB holds already stores nothing (a second import of the same workbook changes
    nothing); a row that differs is the reviewer's newest word and becomes the row's mark (the marks before it stay
    in the history). An item the checklist does not hold, or holds but has not answered, and a view row the KB no
    longer finds (its document changed or was removed), are one line each in the result's errors, and the other rows
    are taken."""
    found = read_workbook(workbook)
    shown = shown_name(str(workbook))
    checklist = load_checklist(checklist_ref) if checklist_ref else None
    if checklist is None and found.review is not None:
        named = sorted(found.review.checklists)
        hint = f" --checklist {named[0]}" if named else " --checklist NAME"
        raise InputError(f"{shown}: a checklist's review workbook: name its checklist with{hint}")
    names = ", ".join(repr(n) for n in found.sheetnames[:8]) or "none"
    if checklist is not None and found.review is None:
        raise InputError(f"{shown}: no sheet '{REVIEW_SHEET}' (it has {names}): export the review as .xlsx again")
    if checklist is None and not found.views:
        raise InputError(
            f"{shown}: no sheet {', '.join(repr(v) for v in VIEW_NAMES)} (it has {names}): export the views as .xlsx"
            " again (a checklist's review workbook is read with --checklist NAME)"
        )
    if checklist is not None and found.review is not None:
        others = sorted(found.review.checklists - {checklist.name})
        if others:
            raise InputError(f"{shown}: a review of checklist {others[0]}, not {checklist.name}")
    sheets = [s for s in (found.review, *found.views.values()) if s is not None]
    errors = [e for sheet in sheets for e in sheet.errors]
    changed = unchanged = 0
    with Store.open_existing(path, readonly=False) as store, store.db.transaction():
        if checklist is not None and found.review is not None:
            counts = _import_review(store, checklist, found.review, shown, errors)
            changed, unchanged = changed + counts[0], unchanged + counts[1]
        for view, sheet in found.views.items():
            counts = import_view_sheet(store, view, sheet, shown, errors)
            changed, unchanged = changed + counts[0], unchanged + counts[1]
    read = sum(len(s.marks) + len(s.errors) for s in sheets)  # the rows that held something, taken or not
    name = checklist.name if checklist is not None else ""
    return MarksImport(name, workbook.name, read, changed, unchanged, tuple(errors), tuple(found.views))


def _import_review(
    store: Store, checklist: Checklist, sheet: MarksSheet, shown: str, errors: list[str]
) -> tuple[int, int]:
    """The review sheet's marks stored; (changed, unchanged), each row not taken added to ``errors``."""
    known = {i.id for i in checklist.items}
    answered = {r.item_id: r for r in stored_rows(store, checklist)}
    changed = unchanged = 0
    for m in sheet.marks:
        row = answered.get(m.item_id)
        if row is None:
            why = "not answered on this KB yet" if m.item_id in known else f"no item of {checklist.name}"
            errors.append(f"{shown}: row {m.row}: item '{m.item_id}' is {why}: not taken")
            continue
        note = clean_text(m.note).strip()
        if (row.mark, row.note.strip()) == (m.mark, note):
            unchanged += 1
            continue
        store.reviews.add_mark(checklist.name, m.item_id, m.mark, note)
        changed += 1
    return changed, unchanged


def figures(path: Path, doc_refs: Sequence[str] = ()) -> list[KeyFigure]:
    """The key-figures sheet: every amount, date, duration and percentage of the documents with its sentence, page
    and heading, read from the stored text (no model)."""
    out: list[KeyFigure] = []
    with Store.open_existing(path) as store, store.snapshot():
        doc_ids = documents_named(store, doc_refs)
        for doc in store.docs.documents():
            if doc_ids is not None and doc.id not in doc_ids:
                continue
            pages = [p for n in store.docs.page_numbers(doc.id) if (p := store.docs.page(doc.id, n)) is not None]
            title = doc.title or Path(doc.path).name
            out += key_figures(title, doc.id, pages, store.chunks.chunks_of(doc.id))
    return out


def export(path: Path, checklist_ref: str, out: Path) -> Path:
    """Write a checklist's stored rows, the marks' history and (HTML) the quoted pages to ``out`` (no model), with
    the KB file's permissions: a report holds the same confidential text."""
    checklist = load_checklist(checklist_ref)
    with Store.open_existing(path) as store, store.snapshot():
        answered = stored_rows(store, checklist)
        if not answered:
            raise InputError(
                f"{path.name}: checklist {checklist.name} has no answered item yet (run `pikelocal review`)"
            )
        wanted = {(q.where.doc_id, q.where.page) for r in answered for q in r.quotes if q.where.page is not None}
        pages = {key: p for key in wanted if (p := store.docs.page(key[0], key[1])) is not None}
        report = Report(checklist, answered, store.reviews.marks(checklist.name), path.name, pages)
    return write_report(report, out, file_mode(path))
