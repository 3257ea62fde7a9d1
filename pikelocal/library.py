"""Knowledge-base operations behind the API: open a KB with the right encoder, ingest, list, remove, search."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pikelocal.assets import load_manifest
from pikelocal.config import Settings
from pikelocal.embed.base import Encoder
from pikelocal.embed.factory import open_encoder
from pikelocal.errors import ConfigError, EncoderMismatchError, InputError, ModelError
from pikelocal.events import EventSink, ignore
from pikelocal.ingest.chunking import SplitOptions
from pikelocal.ingest.pipeline import IngestOptions, Ingestor, IngestReport
from pikelocal.llm.base import LLM
from pikelocal.query.search import Hit, Mode, search
from pikelocal.store.enrichment import EnrichFailure, EnrichmentCounts, LLMUsage
from pikelocal.store.probe_check import check_probes
from pikelocal.store.records import DocumentRecord, FailureRecord
from pikelocal.store.store import Store

if TYPE_CHECKING:
    from pikelocal.ingest.enrich import EnrichReport
    from pikelocal.llm.cached import CachedLLM

log = logging.getLogger(__name__)


def encoder_settings_for(settings: Settings, kb_path: Path) -> Settings:
    """Settings whose encoder is the one ``kb_path`` was built with, when the user did not choose one.

    A KB built with MiniLM is searched with MiniLM without ``--encoder minilm``; an explicit choice that
    differs is left alone, so opening the KB reports the mismatch.
    """
    if settings.encoder.model != "default" or not kb_path.exists() or kb_path.stat().st_size == 0:
        return settings
    try:
        with Store.open_existing(kb_path) as store:
            kb_encoder = store.encoder_id
    except Exception as exc:  # not a KB yet, or unreadable: Store.open reports it properly later
        log.debug("cannot read the encoder of %s: %s", kb_path, exc)
        return settings
    art = load_manifest(settings.models_path()).find(kb_encoder) if kb_encoder else None
    if art is None or art.kind != "onnx-encoder":
        return settings
    return replace(settings, encoder=replace(settings.encoder, model=art.id))


def open_with_encoder(
    settings: Settings, kb_path: Path, encoder: Encoder | None = None, *, create: bool = True
) -> tuple[Store, Encoder, Settings]:
    """``kb_path`` opened for writing with the encoder it was built with (loaded unless given), after the probe
    check; and the settings naming that encoder (:func:`encoder_settings_for`)."""
    settings = encoder_settings_for(settings, kb_path)
    encoder = encoder or open_encoder(settings)
    store = Store.open(
        kb_path,
        encoder_id=encoder.model_id,
        dim=encoder.dim,
        create=create,
        probe=encoder,
        force=settings.encoder.force,
    )
    return store, encoder, settings


def ingest_options(
    settings: Settings, *, password: str | None = None, late: bool | None = None, llm: LLM | None = None
) -> IngestOptions:
    s = settings.ingest
    split = SplitOptions(target=s.chunk_tokens, min_tokens=s.min_tokens, max_tokens=s.max_tokens)
    splitter: Literal["structure", "llm"] = "llm" if s.splitter == "llm" else "structure"
    return IngestOptions(
        split=split, splitter=splitter, llm=llm, late=s.late if late is None else late, password=password
    )


def ingest(
    settings: Settings,
    kb_path: Path,
    paths: Sequence[Path],
    *,
    password: str | None = None,
    late: bool | None = None,
    sink: EventSink = ignore,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
) -> IngestReport:
    """Ingest files and folders into ``kb_path`` (created when missing).

    ``encoder`` and ``llm`` (used by the LLM splitter, behind the KB's cache) are loaded here unless given.
    """
    if not paths:
        raise InputError("nothing to ingest: give files or folders")
    store, encoder, settings = open_with_encoder(settings, kb_path, encoder)
    with store:
        model = open_cached_llm(settings, store, llm) if settings.ingest.splitter == "llm" else None
        try:
            options = ingest_options(settings, password=password, late=late, llm=model)
            return Ingestor(store, encoder, options, sink).ingest_paths(list(paths))
        finally:
            if model is not None and llm is None:
                model.close()


@dataclass(frozen=True)
class DocumentStatus:
    record: DocumentRecord
    chunks: int
    atoms: Mapping[str, int] = field(default_factory=dict)  # question status ('done', 'failed', 'pending') → chunks

    @property
    def enriched(self) -> int:
        """Chunks whose atomic questions are done."""
        return self.atoms.get("done", 0)


@dataclass(frozen=True)
class Library:
    documents: list[DocumentStatus]
    failures: list[FailureRecord]


def library(kb_path: Path) -> Library:
    with Store.open_existing(kb_path) as store:
        per_doc, atoms = store.chunk_counts(), store.atoms_by_document()
        docs = [DocumentStatus(d, per_doc.get(d.id, 0), atoms.get(d.id, {})) for d in store.documents()]
        return Library(docs, store.failures())


def find_document(docs: Sequence[DocumentRecord], ref: str) -> DocumentRecord:
    """A document by id, full path, file name or sha256 prefix (>= 6 characters); ambiguity is an error."""
    ref = ref.strip()
    if ref.isdigit():
        match = [d for d in docs if d.id == int(ref)]
    else:
        full = str(Path(ref).expanduser().resolve()) if ref else ""
        match = [d for d in docs if d.path in (ref, full)]
        match = match or [d for d in docs if Path(d.path).name == ref]
        if not match and len(ref) >= 6:
            match = [d for d in docs if d.sha256.startswith(ref.lower())]
    if not match:
        raise InputError(f"no document '{ref}' in the knowledge base (see `pikelocal docs`)")
    if len(match) > 1:
        ids = ", ".join(f"{d.id} ({d.path})" for d in match[:5])
        raise InputError(f"'{ref}' matches {len(match)} documents: {ids}; give the id")
    return match[0]


def remove(kb_path: Path, ref: str) -> DocumentRecord | FailureRecord:
    """Remove a document with all its rows and vectors (or forget a recorded failure for that path)."""
    with Store.open_existing(kb_path, readonly=False) as store:
        docs = store.documents()
        try:
            doc = find_document(docs, ref)
        except InputError:
            full = str(Path(ref).expanduser().resolve())
            for failure in store.failures():
                if failure.path in (ref, full) or Path(failure.path).name == ref:
                    store.clear_failure(failure.path)
                    return failure
            raise
        store.delete_document(doc.id)
        return doc


def open_cached_llm(settings: Settings, store: Store, inner: LLM | None = None) -> CachedLLM:
    """``inner`` (by default the configured LLM, loaded now) behind the KB's completion cache, so a rerun
    repeats no finished call."""
    from pikelocal.llm.cached import CachedLLM
    from pikelocal.llm.factory import open_llm

    return CachedLLM(inner if inner is not None else open_llm(settings), store)


def enrich(
    settings: Settings,
    kb_path: Path,
    *,
    docs: Sequence[str] = (),
    limit: int | None = None,
    sink: EventSink = ignore,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
) -> EnrichReport:
    """Summaries and atomic questions for whatever in ``kb_path`` is not yet enriched."""
    from pikelocal.ingest.enrich import Enricher, EnrichOptions

    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    store, encoder, settings = open_with_encoder(settings, kb_path, encoder, create=False)
    with store:
        # What ingestion left (vectors of a killed run, late vectors skipped with --no-late) comes first: it
        # is cheap next to the LLM, and a document is enriched once it is ready.
        late_missing = settings.ingest.late and store.documents_missing("late")
        if store.documents_in_stage("parsed", "embedded") or late_missing:
            Ingestor(store, encoder, ingest_options(settings), sink).finish_pending()
        known = store.documents()
        doc_ids = tuple(find_document(known, ref).id for ref in docs) if docs else None
        model = open_cached_llm(settings, store, llm)
        try:
            options = EnrichOptions(
                max_questions=settings.enrich.questions,
                summaries=settings.enrich.summaries,
                doc_ids=doc_ids,
                limit=limit,
            )
            return Enricher(store, encoder, model, options, sink).run()
        finally:
            if llm is None:
                model.close()


@dataclass(frozen=True)
class ReembedReport:
    ingest: IngestReport  # early and late vectors, as a resumed ingestion reports them
    questions: int  # atomic questions embedded again


def reembed(
    settings: Settings, kb_path: Path, *, sink: EventSink = ignore, encoder: Encoder | None = None
) -> ReembedReport:
    """Compute every vector of ``kb_path`` again with the configured encoder and record its probe vectors.

    The way out when a KB's stored vectors come from another build of the same encoder (``EncoderNumericsError``).
    No LLM call: chunks, headers and atomic questions stay. A killed run continues where it stopped.
    """
    from pikelocal.store.probe_check import current_probes, encoder_build, pack

    settings = encoder_settings_for(settings, kb_path)
    encoder = encoder or open_encoder(settings)
    with Store.open(kb_path, encoder_id=encoder.model_id, dim=encoder.dim, create=False) as store:
        if not store.meta().get("reembed_pending"):
            store.reset_vectors(pack(current_probes(encoder), encoder_build(encoder)))
        report = Ingestor(store, encoder, ingest_options(settings), sink).finish_pending()
        done = 0
        while batch := store.questions_without_vectors():
            vectors = encoder.encode([text for _, text in batch], role="query")
            store.put_vectors("question", [qid for qid, _ in batch], vectors, skip_missing=True)
            done += len(batch)
        store.finish_reembed()
    return ReembedReport(report, done)


@dataclass(frozen=True)
class KBStats:
    path: Path
    counts: EnrichmentCounts
    usage: list[LLMUsage]
    failures: list[EnrichFailure]
    vectors: Mapping[str, int] = field(default_factory=dict)  # chunks, chunk_vectors, late_vectors (row counts)

    @property
    def late_pending(self) -> int:
        """Chunks still without a late-chunked vector (search uses those present; ingest or enrich adds the rest)."""
        return max(0, self.vectors.get("chunks", 0) - self.vectors.get("late_vectors", 0))

    def seconds_per_chunk(self) -> float | None:
        """Mean model time of one chunk's questions so far (retries included), or None before the first."""
        rows = [u for u in self.usage if u.tag.startswith("atomize")]
        calls = sum(u.calls for u in rows)
        done = self.counts.atoms.get("done", 0) + self.counts.atoms.get("failed", 0)
        return sum(u.seconds for u in rows) / done if calls and done else None


def stats(kb_path: Path) -> KBStats:
    """What the KB holds, what enrichment has cost (tokens and time per prompt) and what remains."""
    with Store.open_existing(kb_path) as store:
        counts = store.counts()
        vectors = {k: counts.get(k, 0) for k in ("chunks", "chunk_vectors", "late_vectors")}
        return KBStats(kb_path, store.enrichment_counts(), store.llm_usage(), store.enrich_failures(), vectors)


def search_kb(
    settings: Settings, kb_path: Path, query: str, *, mode: Mode = "hybrid", k: int | None = None
) -> list[Hit]:
    settings = encoder_settings_for(settings, kb_path)
    with Store.open_existing(kb_path) as store:
        encoder = None
        if mode != "bm25":
            try:
                encoder = open_encoder(settings)
            except (ModelError, ConfigError) as exc:
                raise ModelError(f"{exc}; `--mode bm25` works without an encoder") from exc
            if (encoder.model_id, encoder.dim) != (store.encoder_id, store.dim):
                raise EncoderMismatchError(
                    f"{kb_path} was built with encoder '{store.encoder_id}' but '{encoder.model_id}' is configured"
                )
            check_probes(store, encoder, force=settings.encoder.force)
        s = settings.search
        return search(store, encoder, query, mode=mode, k=k or s.k, weights=s.weights(), candidates=s.candidates)
