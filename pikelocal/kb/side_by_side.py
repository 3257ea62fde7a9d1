"""A checklist run once per document and shown side by side: what
:meth:`~pikelocal.kb.knowledge_base.KnowledgeBase.side_by_side` does.

Each document's run is an ordinary checklist run (``review/runner.py``) whose search reads that document alone
(``AskOptions.doc_ids``: every ranking chooses among its chunks) and whose rows are stored under the document's
scope (``review/stored.py``: ``tender-zh@doc:<content hash>``), so a second run, or a run resumed after a kill,
asks nothing already answered on the KB as it is. When every document's rows are current no model is loaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pikelocal.config import Settings, answers_key
from pikelocal.domain.answers import QueryTrace
from pikelocal.domain.documents import DocumentRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.events import EventSink, Notice, ignore
from pikelocal.domain.review import Checklist, ChecklistScript, ValueKind
from pikelocal.domain.side_by_side import SideBySide, SideBySideRequest
from pikelocal.embed.base import Encoder
from pikelocal.kb import catalog
from pikelocal.kb.options import review_options, search_weights
from pikelocal.kb.reviewing import documents_script
from pikelocal.kb.session import encoder_settings_for, kb_session
from pikelocal.llm.base import LLM
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.review.checklist import load_checklist
from pikelocal.review.report_file import file_mode
from pikelocal.review.runner import item_state, run_review, state_of
from pikelocal.review.side_by_side import columns, compare
from pikelocal.review.side_export import write_side_by_side
from pikelocal.review.stored import document_scope, stored_name, stored_rows
from pikelocal.store.store import Store


@dataclass(frozen=True)
class _Column:
    """One document's run: the document, its questions' script and the scope its rows are stored under."""

    doc: DocumentRecord
    script: ChecklistScript
    scope: str


def run(
    settings: Settings,
    path: Path,
    request: SideBySideRequest,
    encoder: Callable[[], Encoder],
    load_llm: Callable[[], LLM],
    sink: EventSink = ignore,
) -> SideBySide:
    """Run ``request``'s checklist on each of its documents (every document of the KB when it names none), asking
    only the items not answered on that document as the KB is, and return the table."""
    start = time.perf_counter()
    checklist = load_checklist(request.checklist)
    key = answers_key(encoder_settings_for(settings, path))
    with Store.open_existing(path) as store:
        docs = _documents(store, request.docs, path)
        plans = [_Column(d, request.script or documents_script(store, (d.id,)), document_scope(d.sha256)) for d in docs]
        pending = [p for p in plans if request.fresh or not _current(store, checklist, key, p)]
    asked, kept = 0, len(checklist.items) * (len(plans) - len(pending))
    if pending:
        with kb_session(settings, path, encoder=encoder(), load_llm=load_llm) as s:
            options = replace(review_options(settings), weights=search_weights(s.settings, s.store, s.encoder.model_id))
            for n, plan in enumerate(pending, start=1):
                heading = plan.doc.title or Path(plan.doc.path).name
                sink(Notice("info", f"document {n} of {len(pending)}: {heading}"))
                report = run_review(
                    s.store, checklist, _asker(s.store, s.encoder, s.llm, options, plan.doc.id), plan.script,
                    settings_key=key, doc_ids=(plan.doc.id,), fresh=request.fresh, sink=sink, scope=plan.scope,
                    encoder=s.encoder,
                )  # fmt: skip
                asked, kept = asked + report.asked, kept + report.kept
    with Store.open_existing(path) as store, store.snapshot():
        rows = [stored_rows(store, checklist, p.scope) for p in plans]
    return compare(
        checklist, columns(docs), rows, asked=asked, kept=kept, seconds=time.perf_counter() - start,
        scripts=[p.script for p in plans],
    )  # fmt: skip


def table(path: Path, request: SideBySideRequest) -> SideBySide:
    """The table from the rows stored so far (no model; an item not answered on a document is an empty cell)."""
    checklist = load_checklist(request.checklist)
    with Store.open_existing(path) as store, store.snapshot():
        docs = _documents(store, request.docs, path)
        rows = [stored_rows(store, checklist, document_scope(d.sha256)) for d in docs]
    return compare(checklist, columns(docs), rows)


def export(path: Path, compared: SideBySide, out: Path) -> Path:
    """Write the table to ``out`` (.md, .csv, .xlsx or .docx) with the KB file's permissions."""
    return write_side_by_side(compared, path.name, out, file_mode(path))


def _asker(
    store: Store, encoder: Encoder, llm: Callable[[], LLM], options: AskOptions, doc_id: int
) -> Callable[[str, Sequence[str], ValueKind | None], QueryTrace]:
    """The checklist's questions asked of one document: its chunks alone are searched."""
    on_document = replace(options, doc_ids=(doc_id,))

    def ask_item(question: str, hints: Sequence[str], kind: ValueKind | None) -> QueryTrace:
        asked = replace(on_document, search_terms=tuple(hints), value_kind=kind)  # type: ignore[arg-type]
        return ask(store, encoder, llm(), question, asked)

    return ask_item


def _documents(store: Store, refs: Sequence[str], path: Path) -> list[DocumentRecord]:
    """The columns' documents: those ``refs`` name, in that order (an unknown one is a one-line error), or every
    document of the KB in its order."""
    known = store.docs.documents()
    if not known:
        raise InputError(f"{path.name}: the knowledge base holds no document (add some with `pikelocal add`)")
    if not refs:
        return known
    return list({d.id: d for d in (catalog.find_document(known, ref) for ref in refs)}.values())


def _current(store: Store, checklist: Checklist, key: str, plan: _Column) -> bool:
    """Every item has a row stored for this document, made on the KB as it is with these settings."""
    state = state_of(store, key, plan.script, (plan.doc.id,))
    stored = {r.item_id: r.kb_state for r in store.reviews.results(stored_name(checklist.name, plan.scope))}
    return all(stored.get(i.id) == item_state(state, i) for i in checklist.items)
