"""Ingestion fast path: files → parse → split + headers → store (pages, chunks, FTS) → early → late vectors.

Each document's progress is recorded in ``documents.stage`` ('parsed' → 'embedded' → 'ready'); parsing
writes a document whole in one transaction, and vectors are committed batch by batch. A run killed at any
point and started again picks up the pending documents and embeds only the chunks that have no vector yet, so
the end state equals an uninterrupted run. Files are identified by content (sha256): an unchanged file is
skipped, a changed one replaces its older version. One bad file is recorded and skipped, never the end of
the batch: whatever goes wrong while one file is read, parsed or stored (a bug in a library included) becomes
that file's failure, and the files stored before it are embedded all the same. A PDF is read in a child process
within the ``ingest.pdf_*`` limits on time, memory, pages and characters (``pdf_worker.py``), which reports its
pages to the sink as it goes, so a cancel stops it mid-file.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, get_args

import numpy as np
from numpy.typing import NDArray

from pikelocal.config import Settings
from pikelocal.domain.documents import DocumentRecord
from pikelocal.domain.errors import Cancelled, ConfigError, DiskFullError, DocumentError, InputError, PikeError
from pikelocal.domain.events import EventSink, Notice, StageAdvanced, StageFinished, StageStarted, ignore
from pikelocal.domain.kinds import LATE_CONTEXTS, DocumentStage, FileStatus, IngestStage, LateContext, Splitter
from pikelocal.domain.reports import FileOutcome, IngestReport
from pikelocal.embed.base import Encoder
from pikelocal.ingest.enrich.embed import document_text, early_text, header_at, late_vectors, plan_late_groups
from pikelocal.ingest.enrich.statements import document_statements, vector_text
from pikelocal.ingest.read.discover import Found, discover, failure_key, read_found
from pikelocal.ingest.read.ocr import OcrOptions
from pikelocal.ingest.read.parse import MIB, ParsedDocument, ParsedPage, parse_document
from pikelocal.ingest.read.pdf_worker import PageProgress, PdfLimits, PdfWorker
from pikelocal.ingest.read.textcheck import line_offsets
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from pikelocal.ingest.split.split_llm import LLMSplitter
from pikelocal.llm.base import LLM
from pikelocal.store.store import Store

log = logging.getLogger(__name__)

STAGE_PARSED, STAGE_EMBEDDED, STAGE_READY = get_args(DocumentStage)
STATEMENTS_PER_BATCH = 16  # statements per encoder call and commit, per chunk of ``embed_batch`` (512)


@dataclass(frozen=True)
class SourceText:
    """A document given as text rather than a file (evaluation corpora); ``key`` is stored as its path."""

    key: str
    title: str
    text: str


@dataclass(frozen=True)
class IngestOptions:
    """How files are read, split and embedded. Made by :meth:`from_settings` (a caller's choices on top): a field
    that a setting feeds has no default of its own, so it cannot disagree with the setting's."""

    split: SplitOptions  # the structure-aware splitter's sizes (ingest.chunk_tokens, min_tokens, max_tokens)
    splitter: Splitter  # (ingest.splitter)
    late: bool  # (ingest.late)
    late_context: LateContext  # how late vectors keep their document (a new KB's; kb_meta.late_context)
    max_file_mb: int  # a bigger file is refused without being read (ingest.max_file_mb)
    pdf: PdfLimits  # time, memory, pages and characters for reading one PDF (ingest.pdf_*)
    ocr: OcrOptions  # which PDF pages are OCR'd, and how (ingest.ocr*)
    # What a request adds; no setting feeds these.
    llm: LLM | None = field(default=None, compare=False)  # for the LLM splitter: a CachedLLM (reruns ask nothing twice)
    password: str | None = None
    embed_batch: int = 32  # chunks per encoder call and commit
    follow_links: bool = False  # read a symbolic link named in the paths (--follow-links); else it fails

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> IngestOptions:
        """The ``[ingest]`` settings as options, with ``overrides`` (fields by name) on top."""
        s = settings.ingest
        models = settings.models_path()
        options = cls(
            split=SplitOptions(target=s.chunk_tokens, min_tokens=s.min_tokens, max_tokens=s.max_tokens),
            splitter=s.splitter,
            late=s.late,
            late_context=s.late_context,
            max_file_mb=s.max_file_mb,
            pdf=PdfLimits(s.pdf_timeout_s, s.pdf_memory_mb, s.pdf_max_pages, s.pdf_max_chars),
            ocr=OcrOptions(
                mode=s.ocr,
                dpi=s.ocr_dpi,
                max_side=s.ocr_max_side,
                threads=s.ocr_threads,
                page_timeout_s=s.ocr_page_timeout_s,
                memory_mb=s.ocr_memory_mb,
                models_dir=str(models) if models else "",
            ),
        )
        return replace(options, **overrides)


class _Stage:
    """Times a stage and reports its progress to the sink."""

    def __init__(self, sink: EventSink, report: IngestReport, name: IngestStage, total: int, unit: str) -> None:
        self.sink, self.report, self.name, self.total = sink, report, name, total
        self.done = 0
        self.t0 = time.perf_counter()
        sink(StageStarted(name, total, unit))

    def advance(self, n: int = 1, detail: str = "") -> None:
        self.done += n
        self.sink(StageAdvanced(self.name, self.done, self.total, detail))

    def note(self, detail: str) -> None:
        """Progress within the current unit (a PDF's pages): the count stays, the sink may cancel."""
        self.sink(StageAdvanced(self.name, self.done, self.total, detail))

    def finish(self) -> None:
        seconds = time.perf_counter() - self.t0
        self.report.seconds[self.name] = self.report.seconds.get(self.name, 0.0) + seconds
        self.report.units[self.name] = self.report.units.get(self.name, 0) + self.done
        self.sink(StageFinished(self.name, self.done, seconds))


class Ingestor:
    def __init__(self, store: Store, encoder: Encoder, options: IngestOptions, sink: EventSink = ignore) -> None:
        self.store, self.encoder, self.options, self.sink = store, encoder, options, sink
        if options.splitter == "llm" and options.llm is None:
            raise ConfigError("the LLM splitter needs an LLM")

    # --- entry points --------------------------------------------------------------------------------

    def ingest_paths(self, paths: Sequence[Path]) -> IngestReport:
        """Ingest files and folders; finish any document an earlier run left half done."""
        report = IngestReport()
        found = discover(
            paths,
            exclude=self.store.path,
            max_bytes=self.options.max_file_mb * MIB,
            follow_links=self.options.follow_links,
        )
        try:
            for err in found.skipped:  # left out of a folder on purpose (a link out of it, a named pipe)
                self.sink(Notice("warning", str(err), str(err.path)))
            for err in found.failures:
                report.outcomes.append(self._failed(failure_key(Path(str(err.path))), err))
            stage = _Stage(self.sink, report, "parse", len(found.files), "files")
            with PdfWorker(self.options.pdf, self.options.ocr) as pdf_worker:  # one reading process for the PDFs
                for file in found.files:
                    report.outcomes.append(self._ingest_file(file, pdf_worker, _page_note(stage, file.path)))
                    stage.advance(detail=file.path.name)
            stage.finish()
        except Cancelled:
            raise  # the user stops: no more work now; the next run embeds what was stored
        except Exception:  # outside any one file (the sink, the KB): what was stored is embedded all the same
            with contextlib.suppress(Exception):  # the error that stopped the batch is the one to report
                self.finish_pending(report)
            raise
        self.finish_pending(report)
        return report

    def ingest_texts(self, items: Iterable[SourceText], total: int = 0) -> IngestReport:
        """Ingest in-memory documents (same stages as files; ``total`` only sizes the progress bar)."""
        report = IngestReport()
        stage = _Stage(self.sink, report, "parse", total, "docs")
        for item in items:
            data = f"{item.key}\0{item.text}".encode()  # the key is the identity: equal texts stay apart
            page = ParsedPage(1, item.text, line_offsets(item.text))
            parsed = ParsedDocument(Path(item.key), "text", item.title, (page,), "utf-8", ())
            sha = hashlib.sha256(data).hexdigest()
            report.outcomes.append(self._known(item.key, sha) or self._store_parsed(item.key, sha, parsed))
            stage.advance()
        stage.finish()
        self.finish_pending(report)
        return report

    def finish_pending(self, report: IngestReport | None = None) -> IngestReport:
        """Embed (and late-pool) every document not yet ready, including ones a killed run left behind."""
        report = report or IngestReport()
        self._embed(report)
        if self.options.late:
            self._late(report)
        else:  # documents a run with late chunking left half done are finished without it
            self._advance_docs(self.store.docs.documents_in_stage(STAGE_EMBEDDED), STAGE_READY)
        self._link_refs(report)
        self.read_statements(report)
        self.embed_statements(report)
        return report

    def _link_refs(self, report: IngestReport) -> None:
        """Read new chunks for citations of laws, then resolve every citation against the KB's laws (a law just
        added resolves the citations made before it). No model: regular expressions and SQL."""
        unread = self.store.refs.counts().unread
        stage = _Stage(self.sink, report, "refs", unread, "chunks")
        self.store.refs.read_new(lambda done, _total: stage.advance(done - stage.done))
        self.store.refs.resolve()
        stage.finish()

    def read_statements(self, report: IngestReport) -> None:
        """Store the statements of every document not read for them yet (:func:`store_statements`; no model)."""
        unread = len(self.store.statements.unread_documents())
        stage = _Stage(self.sink, report, "statements", unread, "documents")
        store_statements(self.store, lambda: stage.advance())
        stage.finish()

    def embed_statements(self, report: IngestReport) -> None:
        """Embed every statement without a vector (new ones, or all after ``reembed``), a batch per commit. A
        statement's text is short (:func:`vector_text`), so a batch is ``STATEMENTS_PER_BATCH`` times a chunk batch:
        the encoder orders each call's texts by length, and a text repeated in the batch (a scoring line written
        once per criterion) is encoded once."""
        todo = self.store.statements.counts().without_vectors
        stage = _Stage(self.sink, report, "statement_vectors", todo, "statements")
        size = self.options.embed_batch * STATEMENTS_PER_BATCH
        while stage.done < todo and (batch := self.store.statements.without_vectors(size)):
            texts = [vector_text(s) for s in batch]
            unique = list(dict.fromkeys(texts))
            encoded = dict(zip(unique, self.encoder.encode(unique, role="passage"), strict=True))
            vectors = np.stack([encoded[t] for t in texts])
            self.store.statements.put_vectors([s.id for s in batch if s.id is not None], vectors)
            stage.advance(len(batch))
        stage.finish()

    # --- parse ---------------------------------------------------------------------------------------

    def _failed(self, key: str, err: DocumentError) -> FileOutcome:
        message = str(err)
        try:
            self.store.docs.record_failure(key, err.reason, message)
        except Cancelled:
            raise
        except Exception as exc:  # the KB cannot take the record (locked, full): the outcome still says it
            log.warning("%s: the failure could not be recorded in the KB: %s", key, exc)
        self.sink(Notice("error", message, key))
        return FileOutcome(key, "failed", message, err.reason)

    def _ingest_file(
        self, file: Found, pdf_worker: PdfWorker | None = None, progress: PageProgress | None = None
    ) -> FileOutcome:
        """One file read, parsed and stored: any exception on the way is this file's failure, never the batch's.

        The file is read once, from the descriptor that :func:`read_found` checked is the one discovery found, and
        every parser gets those bytes (a PDF's go to the reading process), never the path: a file swapped after
        discovery is refused, not read. The key is discovery's, so a swap cannot move the record either. A PDF is
        read by ``pdf_worker`` within ``options.pdf``; ``progress`` hears of its pages (and may cancel)."""
        path, key = file.path, file.key
        try:
            data = read_found(file, max_bytes=self.options.max_file_mb * MIB)
            sha = hashlib.sha256(data).hexdigest()
            known = self._known(key, sha)
            if known is not None:
                return known
            parsed = parse_document(
                path, password=self.options.password, data=data, pdf_worker=pdf_worker, progress=progress
            )
            return self._store_parsed(key, sha, parsed)
        except DocumentError as err:
            return self._failed(key, err)
        except (Cancelled, DiskFullError):
            raise  # the user stops, or no file can be stored now: the batch ends with that one message
        except Exception as exc:
            log.debug("%s: unexpected error", path, exc_info=True)
            return self._failed(key, _unexpected(path, exc))

    def _known(self, key: str, sha: str) -> FileOutcome | None:
        """The outcome for content already in the KB, or None when it must be parsed."""
        doc = self.store.docs.document_by_sha256(sha)
        if doc is None:
            return None
        self.store.docs.clear_failure(key)
        if doc.path != key:
            # this path's content is now that of another document: its own older version must go
            self.store.docs.delete_other_versions(key, sha)
            if not doc.path.startswith("/") or Path(doc.path).exists():
                return FileOutcome(key, "duplicate", f"same content as {doc.path}, already in the KB", doc_id=doc.id)
            self.store.docs.set_document_path(doc.id, key)  # moved or renamed: cite the file where it is now
            return FileOutcome(key, "unchanged", f"moved from {doc.path}; its path is updated", doc_id=doc.id)
        if doc.stage == STAGE_READY:
            return FileOutcome(key, "unchanged", "unchanged since it was ingested", doc_id=doc.id)
        return FileOutcome(key, "resumed", f"continuing from stage '{doc.stage}'", doc_id=doc.id)

    def _embed_units(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Vectors of a document's sentences for the semantic splitter (not stored)."""
        return self.encoder.encode(texts, role="passage")

    def _store_parsed(self, key: str, sha: str, parsed: ParsedDocument) -> FileOutcome:
        """Chunk and store a document whose content is new to the KB (callers have checked :meth:`_known`)."""
        for warning in parsed.warnings:
            self.sink(Notice("warning", warning, key))
        splitter = LLMSplitter(self.options.llm) if self.options.splitter == "llm" and self.options.llm else None
        embed = self._embed_units if self.options.splitter == "semantic" else None
        chunked = chunk_document(
            parsed, self.encoder.count_tokens, self.options.split, llm_splitter=splitter, embed=embed
        )
        if (split := chunked.llm_split) is not None and split.fallbacks:
            self.sink(
                Notice(
                    "warning",
                    f"{Path(key).name}: {split.fallbacks} of {split.windows} windows split by structure"
                    f" (the LLM's reply was unusable: {split.errors[-1]})",
                    key,
                )
            )
        replaced = bool(self.store.docs.document_by_path(key))
        try:
            doc_id, ids = self.store.docs.add_parsed_document(
                path=key,
                sha256=sha,
                title=parsed.title,
                kind=parsed.kind,
                pages=chunked.pages,
                chunks=chunked.chunks,
                stage=STAGE_PARSED,
                tables=chunked.tables,
            )
        except InputError:
            # The sha256 is unique in the KB: another writer (a second ingest of the same file at the same
            # time) stored this content after :meth:`_known` looked. Its copy stands; this one is skipped.
            other = self.store.docs.document_by_sha256(sha)
            if other is None:
                raise
            self.store.docs.clear_failure(key)
            where = "" if other.path == key else f" as {other.path}"
            return FileOutcome(key, "duplicate", f"stored meanwhile{where} by another run; skipped", doc_id=other.id)
        status: FileStatus = "replaced" if replaced else "ingested"
        return FileOutcome(
            key, status, doc_id=doc_id, pages=len(chunked.pages), chunks=len(ids), warnings=parsed.warnings
        )

    # --- vectors -------------------------------------------------------------------------------------

    def _embed(self, report: IngestReport) -> None:
        docs = self.store.docs.documents_in_stage(STAGE_PARSED)
        todo = [(doc, self.store.index.chunk_ids_without("chunk", doc.id)) for doc in docs]
        stage = _Stage(self.sink, report, "embed", sum(len(ids) for _, ids in todo), "chunks")
        after = STAGE_EMBEDDED if self.options.late else STAGE_READY
        batch: list[int] = []
        waiting: list[DocumentRecord] = []  # documents whose last chunks are in ``batch``
        for doc, ids in todo:
            for cid in ids:
                batch.append(cid)
                if len(batch) >= self.options.embed_batch:
                    self._embed_batch(batch, stage)
                    batch = []
                    self._advance_docs(waiting, after)
                    waiting = []
            waiting.append(doc)
        if batch:
            self._embed_batch(batch, stage)
        self._advance_docs(waiting, after)
        stage.finish()

    def _embed_batch(self, ids: list[int], stage: _Stage) -> None:
        chunks = self.store.chunks.get_chunks(ids)
        vectors = self.encoder.encode([early_text(c) for c in chunks], role="passage")
        self.store.index.put_vectors("chunk", [c.id for c in chunks], vectors, skip_missing=True)
        stage.advance(len(chunks))

    def _advance_docs(self, docs: Sequence[DocumentRecord], stage: str) -> None:
        for doc in docs:
            self.store.docs.set_document_stage(doc.id, stage)

    def _late(self, report: IngestReport) -> None:
        """Late vectors for documents that lack some: those just embedded, and ready ones ingested without late
        chunking. One document at a time, so memory holds one document's text."""
        embedded = {d.id: d for d in self.store.docs.documents_in_stage(STAGE_EMBEDDED)}
        lacking = {d.id: d for d in self.store.docs.documents_missing("late") if d.stage == STAGE_READY}
        docs = sorted({**embedded, **lacking}.values(), key=lambda d: d.id)
        missing = {d.id: set(self.store.index.chunk_ids_without("late", d.id)) for d in docs}
        todo = sum(len(m) for m in missing.values())
        context = self._late_context() if todo else self.options.late_context
        stage = _Stage(self.sink, report, "late", todo, "chunks")
        for doc in docs:
            if missing[doc.id]:
                self._late_document(doc, missing[doc.id], stage, context)
            if doc.stage != STAGE_READY:
                self.store.docs.set_document_stage(doc.id, STAGE_READY)
        stage.finish()

    def _late_context(self) -> LateContext:
        """The window context of this KB's late vectors: the one they were made with (``kb_meta.late_context``)
        while any exist, so that they stay comparable; else the configured one, recorded for the next run."""
        recorded = self.store.meta().get("late_context", "off")
        wanted = self.options.late_context
        if recorded in LATE_CONTEXTS and self.store.counts()["late_vectors"] > 0:
            if recorded != wanted:
                self.sink(
                    Notice(
                        "warning",
                        f"late vectors of this KB are made with late_context = {recorded}, not the configured"
                        f" {wanted}: run `pikelocal reembed` to change them all",
                    )
                )
            context: LateContext = recorded
            return context
        if recorded != wanted:
            self.store.set_meta("late_context", wanted)
        return wanted

    def _late_document(self, doc: DocumentRecord, missing: set[int], stage: _Stage, context: LateContext) -> None:
        chunks = self.store.chunks.chunks_of(doc.id)
        if not chunks:  # removed by another process meanwhile
            return
        text = document_text(chunks)
        tokens = [self.encoder.count_tokens(c.text) for c in chunks]
        headers = header_at(chunks)
        for group in plan_late_groups(chunks, tokens, self.encoder.late_window_tokens, len(text)):
            todo = missing.intersection(c.id for c in group.chunks)
            if todo:
                vectors = late_vectors(self.encoder, text, group, context=context, headers=headers)
                self.store.index.put_vectors("late", [c.id for c in group.chunks], vectors, skip_missing=True)
                stage.advance(len(todo), detail=Path(doc.path).name)


def store_statements(store: Store, advance: Callable[[], None] | None = None) -> int:
    """Read and store the statements of every document of ``store`` not read for them yet, one transaction each
    with its mark (a killed run reads a document again or not at all); the number of documents read. No model."""
    unread = store.statements.unread_documents()
    for doc_id in unread:
        pages = [p for n in store.docs.page_numbers(doc_id) if (p := store.docs.page(doc_id, n)) is not None]
        store.statements.add(doc_id, document_statements(doc_id, pages, store.chunks.chunks_of(doc_id)))
        if advance is not None:
            advance()
    return len(unread)


def _page_note(stage: _Stage, path: Path) -> PageProgress:
    """Progress of a PDF's pages as the parse stage's detail ("p. 12/300 name.pdf", "OCR p. 13/300 name.pdf")."""

    def note(done: int, total: int, ocr: bool = False, /) -> None:
        if ocr:
            stage.note(f"OCR p. {done + 1:,}/{total:,} {path.name}")
        else:
            stage.note(f"p. {done:,}/{total:,} {path.name}" if total else f"opening {path.name}")

    return note


def _unexpected(path: Path, exc: Exception) -> DocumentError:
    """A one-line failure for an exception nothing foresaw (a library's bug, an unsupported feature)."""
    if isinstance(exc, PikeError):
        return DocumentError(path, "unexpected", str(exc))
    text = " ".join(str(exc).split())[:200]
    return DocumentError(path, "unexpected", f"unexpected {type(exc).__name__}" + (f": {text}" if text else ""))
