"""One knowledge base and everything done to it: the object :func:`pikelocal.api.open_kb` returns.

The models load once, on first use, and are shared by every operation, from any thread (the TUI runs work in
worker threads). Each operation opens its own connection to the KB file (SQLite in WAL mode), so a question can
be answered while a document is being ingested; the in-process LLM serialises its calls itself.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from pikelocal.config import Settings
from pikelocal.domain.answers import QueryTrace, Source
from pikelocal.domain.documents import ChunkRecord, DocumentRecord, FailureRecord, PageRecord, SummaryNode, TableRecord
from pikelocal.domain.errors import ConfigError, EncoderMismatchError, InputError, ModelError, StoreError
from pikelocal.domain.events import EventSink, ignore
from pikelocal.domain.kinds import HISTORY_LIMIT, SearchMode
from pikelocal.domain.obligations import BidCheck, Requirement, Risk, TimelineEntry, ViewRow
from pikelocal.domain.references import RefCounts, StoredRef
from pikelocal.domain.reports import (
    AddReport,
    EnrichReport,
    KBStats,
    Library,
    RecoverReport,
    ReembedReport,
    TraceSummary,
)
from pikelocal.domain.requests import AddRequest, AskRequest, EnrichRequest, SearchRequest
from pikelocal.domain.review import Checklist, KeyFigure, MarksImport, ReviewReport, ReviewRequest, ReviewRow
from pikelocal.domain.search import FusionTuning, Hit, Segment, SummaryHit
from pikelocal.domain.side_by_side import SideBySide, SideBySideRequest
from pikelocal.domain.statements import Statement
from pikelocal.embed.base import Encoder
from pikelocal.embed.factory import open_encoder
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.kb import catalog, review_views, reviewing, side_by_side
from pikelocal.kb import statements as statement_index
from pikelocal.kb.lease import LEASE_KEY, Holder, is_alive, writer_lease
from pikelocal.kb.options import ask_options, enrich_options, ingest_options, search_weights
from pikelocal.kb.session import encoder_settings_for, kb_session, use_concepts
from pikelocal.llm.base import LLM
from pikelocal.query.context.expand import find_segments
from pikelocal.query.context.segments import PRESETS
from pikelocal.query.retrieve.fusion_tuning import needs_tuning, save_tuning, stored_tuning, tune_fusion
from pikelocal.query.retrieve.search import search
from pikelocal.store import keys
from pikelocal.store.keys import FileKind
from pikelocal.store.probe_check import check_probes
from pikelocal.store.store import Store

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

BID_SEARCH_K = 5  # chunks of the bid a requirement is searched for (their clauses are its candidate answers)


def open_kb(
    path: Path,
    settings: Settings,
    *,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
    key: str | None = None,
) -> KnowledgeBase:
    """The KB at ``path`` (created by the first :meth:`KnowledgeBase.add`); use it as a context manager, which
    closes the models it loaded. ``encoder`` and ``llm`` replace the configured ones (fakes in tests, a model
    shared by several KBs); they stay the caller's to close. ``key`` opens an encrypted KB (or makes the new one
    encrypted); it is remembered for this file in this process (see :mod:`pikelocal.store.keys`), never stored."""
    if key is not None:
        keys.remember(Path(path), key)
    return KnowledgeBase(settings, Path(path), encoder=encoder, llm=llm)


class KnowledgeBase:
    """A KB file with its encoder and LLM, loaded lazily."""

    def __init__(
        self, settings: Settings, path: Path, *, encoder: Encoder | None = None, llm: LLM | None = None
    ) -> None:
        self.path = path
        self._configured = settings
        self.settings = encoder_settings_for(settings, path)
        self._encoder = encoder
        self._llm = llm
        self._owns_llm = llm is None
        self._lock = threading.Lock()

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # --- models ----------------------------------------------------------------------------------------

    def encoder(self) -> Encoder:
        with self._lock:
            if self._encoder is None:
                self._encoder = open_encoder(self.settings)
            return self._encoder

    def llm(self) -> LLM:
        with self._lock:
            if self._llm is None:
                from pikelocal.llm.factory import open_llm

                self._llm = open_llm(self.settings)
            return self._llm

    def close(self) -> None:
        """Close the LLM this KB loaded (the encoder holds no resource worth closing)."""
        with self._lock:
            if self._llm is not None and self._owns_llm:
                self._llm.close()
                self._llm = None

    # --- encryption at rest -----------------------------------------------------------------------------------

    def encryption(self) -> FileKind:
        """``new`` (no KB yet), ``plain``, ``encrypted`` or ``other`` (not a SQLite file), from the file's header."""
        return keys.file_kind(self.path)

    def unlock(self, key: str) -> None:
        """Open this KB with ``key`` from now on (in this process); an existing KB is opened once to check it."""
        if self.exists():
            catalog.unlock_kb(self.path, key)
        else:
            keys.remember(self.path, key)
        self.settings = encoder_settings_for(self._configured, self.path)

    def encrypt(self, key: str) -> None:
        """Encrypt this plain KB with ``key`` (crash-safe; refused while it is in use). Losing the key loses the KB."""
        kind = self.encryption()
        if kind == "encrypted":
            raise InputError(f"{self.path}: already encrypted (change its key with `pikelocal rekey`)")
        if kind != "plain":
            raise InputError(f"{self.path}: no knowledge base to encrypt")
        Store.reencrypt(self.path, key, check=self._no_live_writer)

    def rekey(self, new_key: str) -> None:
        """Encrypt this encrypted KB with ``new_key`` instead of its key (crash-safe; the old key stops working)."""
        if self.encryption() != "encrypted":
            raise InputError(f"{self.path}: not encrypted (encrypt it with `pikelocal encrypt`)")
        Store.reencrypt(self.path, new_key, check=self._no_live_writer)

    def decrypt(self) -> None:
        """Make this encrypted KB plain again, opened with its key (given to :func:`open_kb`, else
        ``$PIKELOCAL_KEY``); crash-safe like :meth:`encrypt`, refused while it is in use."""
        kind = self.encryption()
        if kind == "plain":
            raise InputError(f"{self.path}: not encrypted, nothing to decrypt")
        if kind != "encrypted":
            raise InputError(f"{self.path}: no knowledge base to decrypt")
        Store.reencrypt(self.path, None, check=self._no_live_writer)

    def _no_live_writer(self, meta: Mapping[str, Any]) -> None:
        holder = Holder.parse(meta.get(LEASE_KEY))
        if holder is not None and is_alive(holder):
            raise StoreError(
                f"{self.path}: {holder.what} (pid {holder.pid} on {holder.host}) is writing it; try again when it has"
                " finished"
            )

    # --- reading (no model needed) ------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def documents(self) -> Library:
        """Documents with their stage and chunk count, and the files that failed with their reasons."""
        return catalog.library(self.path)

    def stats(self) -> KBStats:
        """Counts, enrichment progress, LLM tokens and time per prompt, and failures."""
        return catalog.stats(self.path)

    def references(self, doc: str | None = None, sink: EventSink = ignore) -> tuple[list[StoredRef], RefCounts]:
        """Citations of laws and articles (of one document: id, path, file name or sha256 prefix), each with what it
        resolved to, and the KB's counts. Chunks not yet read for citations (a KB made before they were) are read
        first: regular expressions and SQL, no model."""
        with Store.open_existing(self.path) as store:
            unread = store.refs.counts().unread
        if unread:
            with Store.open_existing(self.path, readonly=False) as store, writer_lease(store, "refs", sink):
                store.refs.read_new()
                store.refs.resolve()
        with Store.open_existing(self.path) as store, store.snapshot():
            doc_id = catalog.find_document(store.docs.documents(), doc).id if doc else None
            return store.refs.refs(doc_id), store.refs.counts()

    def chunk_source(self, chunk_id: int) -> Source:
        """One chunk as a source a viewer can open (a cited article's chunk): its document, pages, lines and text."""
        with Store.open_existing(self.path) as store, store.snapshot():
            chunks = store.chunks.get_chunks([chunk_id])
            doc = store.docs.get_document(chunks[0].doc_id) if chunks else None
        if not chunks or doc is None:
            raise InputError(f"{self.path.name}: no chunk {chunk_id} (its document was removed meanwhile?)")
        c = chunks[0]
        return Source(
            1, doc.id, doc.path, doc.title, (c.id,), c.page_start, c.page_end, c.line_start, c.line_end,
            c.section_path, c.text,
        )  # fmt: skip

    def history(self, limit: int = HISTORY_LIMIT) -> list[TraceSummary]:
        """Past questions, newest first."""
        with Store.open_existing(self.path) as store:
            rows = store.traces.trace_rows(limit)
        summaries = []
        for row in rows:
            trace = QueryTrace.from_dict(json.loads(row.json))
            summaries.append(
                TraceSummary(row.id, row.question, row.created_at, trace.mode, trace.answer.text, trace.total_s)
            )
        return summaries

    def trace(self, trace_id: int | None = None) -> QueryTrace:
        """A stored question trace: rounds, sources, answer, LLM calls and timings (the newest without an id)."""
        with Store.open_existing(self.path) as store:
            row = store.traces.get_trace(trace_id)
        if row is None:
            which = f"no trace {trace_id}" if trace_id is not None else "no question has been asked yet"
            raise InputError(f"{self.path}: {which} (see `pikelocal history {self.path}`)")
        return QueryTrace.from_dict(json.loads(row.json), id=row.id, created_at=row.created_at)

    def page(self, doc_id: int, page_no: int) -> PageRecord:
        """One page of a document, with its line starts (line numbers match the citations')."""
        with Store.open_existing(self.path) as store:
            page = store.docs.page(doc_id, page_no)
        if page is None:
            raise InputError(f"{self.path.name}: document {doc_id} has no page {page_no}")
        return page

    def page_numbers(self, doc_id: int) -> list[int]:
        with Store.open_existing(self.path) as store:
            return store.docs.page_numbers(doc_id)

    def tables(self, doc_id: int) -> list[TableRecord]:
        """The document's Markdown tables in text order (spans in its text, pages, shape), for a viewer to render."""
        with Store.open_existing(self.path) as store:
            if store.docs.get_document(doc_id) is None:
                raise InputError(f"{self.path.name}: no document {doc_id} (removed meanwhile?)")
            return store.docs.tables_of(doc_id)

    def remove(self, ref: str) -> DocumentRecord | FailureRecord:
        """Remove a document (by id, path, file name or sha256 prefix) with all its rows and vectors."""
        return catalog.remove(self.path, ref)

    # --- work (from any thread; ``sink`` may raise Cancelled to stop between units) -------------------------

    def add(self, paths: Sequence[Path], request: AddRequest = AddRequest(), sink: EventSink = ignore) -> AddReport:
        """Parse, split, embed and index files and folders (the KB is created when missing); then, when asked,
        enrich what is not yet enriched."""
        if not paths:
            raise InputError("nothing to ingest: give files or folders")
        with kb_session(self.settings, self.path, encoder=self.encoder(), load_llm=self.llm, create=True) as s:
            splitter_llm = s.llm() if s.settings.ingest.splitter == "llm" else None
            options = ingest_options(
                s.settings,
                password=request.password,
                late=request.late,
                llm=splitter_llm,
                ocr=request.ocr,
                follow_links=request.follow_links,
            )
            with writer_lease(s.store, "ingest", sink):
                report = Ingestor(s.store, s.encoder, options, sink).ingest_paths(list(paths))
        enriched = self.enrich(sink=sink) if request.enrich else None
        return AddReport(report, enriched)

    def enrich(self, request: EnrichRequest = EnrichRequest(), sink: EventSink = ignore) -> EnrichReport:
        """Run the LLM over what is not yet enriched: document summaries, each chunk's atomic questions, then (with
        enrich.trees) the summary trees."""
        from pikelocal.ingest.enrich.enrich import Enricher

        enrich_options(self.settings, None, request.limit)  # a bad limit fails before any model loads
        with (
            kb_session(self.settings, self.path, encoder=self.encoder(), load_llm=self.llm) as s,
            writer_lease(s.store, "enrich", sink),
        ):
            # What ingestion left (vectors of a killed run, late vectors skipped with --no-late) comes first: it
            # is cheap next to the LLM, and a document is enriched once it is ready.
            late_missing = s.settings.ingest.late and s.store.docs.documents_missing("late")
            if s.store.docs.documents_in_stage("parsed", "embedded") or late_missing:
                Ingestor(s.store, s.encoder, ingest_options(s.settings), sink).finish_pending()
            known = s.store.docs.documents()
            doc_ids = [catalog.find_document(known, ref).id for ref in request.docs] if request.docs else None
            options = enrich_options(s.settings, doc_ids, request.limit, request.trees)
            report = Enricher(s.store, s.encoder, s.llm(), options, sink).run()
            if s.settings.search.tuned:
                report.fusion = self._tune_fusion(s.store, s.encoder, sink)
            return report

    def _tune_fusion(self, store: Store, encoder: Encoder, sink: EventSink) -> FusionTuning | None:
        """Hybrid's weights tuned on the KB's own atomic questions and stored in it, when it has enough of them
        and none were tuned with this encoder and method, or it has 10 % more than then (no LLM call)."""
        s = self.settings.search
        if not needs_tuning(stored_tuning(store), encoder.model_id, s.fusion, store.chunks.question_count()):
            return None
        tuning = tune_fusion(store, encoder, s.weights(), fusion=s.fusion, candidates=s.candidates, sink=sink)
        if tuning is not None:
            save_tuning(store, tuning)
        return tuning

    def reembed(self, sink: EventSink = ignore) -> ReembedReport:
        """Compute every vector again with the configured encoder and record its probe vectors.

        The way out when the KB's stored vectors come from another build of the same encoder
        (``EncoderNumericsError``). No LLM call: chunks, headers and atomic questions stay. A killed run continues
        where it stopped.
        """
        from pikelocal.kb.recover import embed_missing
        from pikelocal.store.probe_check import current_probes, encoder_build, pack

        encoder = self.encoder()
        with (
            Store.open(self.path, encoder_id=encoder.model_id, dim=encoder.dim, create=False) as store,
            writer_lease(store, "reembed", sink),
        ):
            if not store.meta().get("reembed_pending"):
                store.index.reset_vectors(pack(current_probes(encoder), encoder_build(encoder)))
            report = Ingestor(store, encoder, ingest_options(self.settings), sink).finish_pending()
            done = embed_missing(store, encoder)  # questions, entity names, triples, summary nodes
            store.index.finish_reembed()
        return ReembedReport(report, done)

    def recover(self, new: Path, sink: EventSink = ignore) -> RecoverReport:
        """Copy what SQLite can still read of this (damaged) KB into the new KB ``new``, with its full-text index and
        the vectors it lost made again; this KB is only read, never written. ``new`` appears only once complete and
        sound; an encrypted KB's copy is encrypted with the same key."""
        from pikelocal.kb.recover import recover

        return recover(self.settings, self.path, Path(new), self.encoder, sink)

    def search(self, query: str, request: SearchRequest = SearchRequest()) -> list[Hit]:
        """Ranked chunks for ``query`` by BM25, dense, late-chunked, atomic-question or hybrid retrieval; BM25 also
        looks for the other names of the concepts the query names (``answer.concepts``)."""
        use_concepts(self.settings.answer.concepts)
        with Store.open_existing(self.path) as store:
            return self._search(store, query, request.mode, request.k or self.settings.search.k)

    def summaries(self, query: str, k: int | None = None) -> list[SummaryHit]:
        """Summary-tree nodes for ``query``, best first (dense + BM25 over their summaries); empty without trees."""
        from pikelocal.query.retrieve.summaries import search_summaries

        with Store.open_existing(self.path) as store:
            return search_summaries(store, self.encoder(), query, k or self.settings.search.k)

    def summary_tree(self, doc: str | None = None) -> list[SummaryNode]:
        """The summary nodes of one document (id, path, file name), or of the corpus level with None; by level."""
        with Store.open_existing(self.path) as store:
            if doc is None:
                return store.summaries.nodes(corpus=True)
            return store.summaries.nodes(catalog.find_document(store.docs.documents(), doc).id)

    def segments(self, query: str, request: SearchRequest = SearchRequest()) -> list[Segment]:
        """Relevant segments for ``query``, best first: runs of consecutive chunks valued from the search's ranking
        (``query.context.segments``, after dsRAG), within ``answer.context_tokens``, as answering reads them. The
        ranking holds ``request.k`` chunks (default ``search.candidates``); the preset is ``request.preset`` (default
        ``answer.segments``); the top chunk is always in the first segment."""
        with Store.open_existing(self.path) as store, store.snapshot():
            hits = self._search(store, query, request.mode, request.k or self.settings.search.candidates)
            params = PRESETS[request.preset or self.settings.answer.segments]
            ranking = [(h.chunk.id, h.score) for h in hits]
            keep = hits[0].chunk.id if hits else None
            return find_segments(store, ranking, self.settings.answer.context_tokens, params, keep=keep)

    def _search(
        self,
        store: Store,
        query: str,
        mode: SearchMode,
        k: int,
        doc_ids: Sequence[int] | None = None,
        vector: NDArray[np.float32] | None = None,
    ) -> list[Hit]:
        if mode == "late" and not store.index.has_vectors("late"):
            raise InputError(
                f"{self.path}: no late-chunked vectors (ingest.late is off by default); ingest with --late adds them"
            )
        encoder = None
        if mode != "bm25":
            try:
                encoder = self.encoder()
            except (ModelError, ConfigError) as exc:
                raise ModelError(f"{exc}; `--mode bm25` works without an encoder") from exc
            if (encoder.model_id, encoder.dim) != (store.encoder_id, store.dim):
                raise EncoderMismatchError(
                    f"{self.path} was built with encoder '{store.encoder_id}' but '{encoder.model_id}' is configured"
                )
            check_probes(store, encoder, force=self.settings.encoder.force)
        s = self.settings.search
        weights = search_weights(self.settings, store, encoder.model_id) if encoder is not None else s.weights()
        return search(
            store, encoder, query, mode=mode, k=k, weights=weights, candidates=s.candidates, fusion=s.fusion,
            hops=s.hops, hop_similarity=s.hop_similarity, doc_ids=doc_ids, vector=vector,
        )  # fmt: skip

    # --- review (kb/reviewing.py; the views: kb/review_views.py) -------------------------------------------

    def review(self, request: ReviewRequest, sink: EventSink = ignore) -> ReviewReport:
        """Run a checklist: each item not yet answered on the KB's present state asked and stored (resumable)."""
        return reviewing.run(self.settings, self.path, request, self.encoder, self.llm, sink)

    def review_rows(self, checklist: str) -> tuple[Checklist, list[ReviewRow]]:
        """A checklist's stored rows with the reviewer's newest marks (no model)."""
        return reviewing.rows(self.path, checklist)

    def review_mark(self, checklist: str, item_id: str, mark: str, note: str = "") -> ReviewRow:
        """Mark an answered item accepted, wrong or to_check (or clear it), with a note; every mark is kept."""
        return reviewing.mark(self.path, checklist, item_id, mark, note)

    def key_figures(self, docs: Sequence[str] = ()) -> list[KeyFigure]:
        """Every amount, date, duration and percentage of the documents with its sentence and page (no model)."""
        return reviewing.figures(self.path, docs)

    def statements(
        self, docs: Sequence[str] = (), query: str | None = None, k: int | None = None, sink: EventSink = ignore
    ) -> list[Statement]:
        """Every value of the documents (all, or those ``docs`` names) with what it is a value of, in document
        order; with ``query``, the ``k`` (default ``search.k``) that answer it best, best first (BM25 and the
        encoder, fused). Documents not yet read for statements are read first (no model)."""
        return statement_index.statements(
            self.settings, self.path, self.encoder, docs, query, k or self.settings.search.k, sink
        )

    def risks(self, docs: Sequence[str] = ()) -> list[Risk]:
        """Every clause that rejects a bid, voids it, zeroes a score or cancels the procurement, cited, with its
        stage (no model)."""
        return review_views.risks(self.path, docs)

    def requirements(self, docs: Sequence[str] = ()) -> list[Requirement]:
        """Every sentence that binds someone, with who, its kind and its figures, cited (no model)."""
        return review_views.requirements(self.path, docs)

    def timeline(self, docs: Sequence[str] = ()) -> list[TimelineEntry]:
        """Every dated deadline in date order, then every relative one, with what happens then (no model)."""
        return review_views.timeline(self.path, docs)

    def view_mark(self, view: str, row_id: str, mark: str, note: str = "") -> ViewRow:
        """Mark a row of a view (``risks``, ``requirements``, ``timeline``; the row named by the id its listing
        shows) accepted, wrong or to_check (or clear it with ""), with a note; every mark is kept, the newest shown
        with the row whenever the view is found again. A bad view, id or mark is a one-line InputError naming it."""
        return review_views.mark_view_row(self.path, view, row_id, mark, note)

    def against(self, tender: str, bid: str) -> list[BidCheck]:
        """Each requirement of the document ``tender`` that a bid answers (the bidder's, the winning bidder's),
        with the sentence of the document ``bid`` that answers it, found by the hybrid search within the bid and
        judged by meaning: met, not found, or differs (a figure fails the requirement's), both sides cited (no LLM;
        the encoder reads the requirements and the bid's sentences). A document not in the KB is a one-line
        InputError naming it."""
        use_concepts(self.settings.answer.concepts)
        with Store.open_existing(self.path) as store, store.snapshot():

            def search_bid(query: str, vector: NDArray[np.float32], doc_id: int) -> list[ChunkRecord]:
                return [h.chunk for h in self._search(store, query, "hybrid", BID_SEARCH_K, (doc_id,), vector)]

            return review_views.against(store, tender, bid, self.encoder, search_bid)

    def export_views(
        self,
        out: Path,
        risks: Sequence[Risk] = (),
        requirements: Sequence[Requirement] = (),
        timeline: Sequence[TimelineEntry] = (),
        bid_checks: Sequence[BidCheck] = (),
    ) -> Path:
        """Write the views given to ``out`` (.md, .csv, or .xlsx: one sheet per view), private like the KB."""
        return review_views.export_views(self.path, out, risks, requirements, timeline, bid_checks)

    def export_review(self, checklist: str, out: Path) -> Path:
        """Write a checklist's stored rows, marks and notes to ``out`` (.md, .csv, .html, .docx or .xlsx; no
        model)."""
        return reviewing.export(self.path, checklist, out)

    def side_by_side(self, request: SideBySideRequest, sink: EventSink = ignore) -> SideBySide:
        """Run a checklist once per document (each answered from that document alone, its rows stored apart and
        kept for the next run) and return the items as rows, the documents as columns, differences marked."""
        return side_by_side.run(self.settings, self.path, request, self.encoder, self.llm, sink)

    def side_by_side_table(self, request: SideBySideRequest) -> SideBySide:
        """The side-by-side table from the rows stored so far (no model)."""
        return side_by_side.table(self.path, request)

    def export_side_by_side(self, compared: SideBySide, out: Path) -> Path:
        """Write a side-by-side table to ``out`` (.md, .csv, .xlsx or .docx), private like the KB."""
        return side_by_side.export(self.path, compared, out)

    def import_marks(self, checklist: str | None, workbook: Path) -> MarksImport:
        """Store the marks and notes a reviewer wrote in a workbook: a review workbook (``export_review`` to .xlsx,
        ``checklist`` its checklist), matched by item id, and the views' workbook (``export_views`` to .xlsx;
        ``checklist`` None), matched by row id; rows that cannot be taken are listed in the result, the others
        stored (no model)."""
        return reviewing.import_marks(self.path, checklist, workbook)

    def ask(self, question: str, request: AskRequest = AskRequest(), sink: EventSink = ignore) -> QueryTrace:
        """Answer ``question`` with cited sources; the trace is stored in the KB.

        The answer text arrives through ``sink`` as :class:`~pikelocal.domain.events.AnswerDelta` events while it is
        generated, the decomposition rounds as :class:`~pikelocal.domain.events.ReasoningStep` events.
        """
        from pikelocal.query.answer.modes import ask

        if not question.strip():
            raise InputError("the question is empty")
        options = ask_options(self.settings, request)
        if not self.path.exists():
            raise InputError(
                f"{self.path}: no such knowledge base (create one with `pikelocal ingest {self.path} FILES…`)"
            )
        with kb_session(self.settings, self.path, encoder=self.encoder(), load_llm=self.llm) as s:
            if not s.store.docs.documents():
                raise InputError(
                    f"{self.path} holds no documents yet (add some with `pikelocal ingest {self.path} FILES…`)"
                )
            options = replace(options, weights=search_weights(s.settings, s.store, s.encoder.model_id))
            return ask(s.store, s.encoder, s.llm(), question, options, sink)
