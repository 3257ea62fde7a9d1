"""What the knowledge base's operations report back: its documents, its statistics, and the outcome of work."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pikelocal.domain.documents import DocumentRecord, FailureRecord
from pikelocal.domain.kinds import FileStatus, IngestStage
from pikelocal.domain.references import RefCounts
from pikelocal.domain.search import FusionTuning


@dataclass(frozen=True)
class DocumentStatus:
    record: DocumentRecord
    chunks: int
    atoms: Mapping[str, int] = field(default_factory=dict)  # question status ('done', 'failed', 'pending') → chunks
    paged: bool = True  # False: stored as one unpaged text (a .docx without page breaks, an .xlsx): no page count

    @property
    def enriched(self) -> int:
        """Chunks whose atomic questions are done."""
        return self.atoms.get("done", 0)


@dataclass(frozen=True)
class Library:
    documents: list[DocumentStatus]
    failures: list[FailureRecord]


@dataclass(frozen=True)
class AddReport:
    ingest: IngestReport
    enrich: EnrichReport | None  # None when enrichment was not asked for


@dataclass(frozen=True)
class ReembedReport:
    ingest: IngestReport  # early and late vectors, as a resumed ingestion reports them
    questions: int  # atomic questions embedded again


@dataclass(frozen=True)
class RecoverReport:
    """What ``recover`` copied from a damaged KB into a new one; the damaged file itself is left as it was."""

    source: Path
    target: Path
    damage: tuple[str, ...]  # what SQLite's quick_check found in the source (its first lines)
    rows: Mapping[str, int]  # rows copied per table
    unreadable: tuple[str, ...]  # one line per stretch of a table SQLite could not read (those rows are lost)
    dropped: Mapping[str, int]  # rows copied but dropped because what they belong to was lost (a chunk's questions)
    chunks: int  # chunks recovered
    vectors_copied: int  # vectors read back intact (finite, unit length)
    vectors_embedded: int  # vectors made again by the encoder (lost, or damaged)
    seconds: float


@dataclass(frozen=True)
class KBStats:
    path: Path
    counts: EnrichmentCounts
    usage: list[LLMUsage]
    failures: list[EnrichFailure]
    vectors: Mapping[str, int] = field(default_factory=dict)  # chunks, chunk_vectors, late_vectors (row counts)
    refs: RefCounts | None = None  # citations of laws and articles, resolved or not
    # the knowledge base's layers, in order: documents, sections, chunks, tables, atomic questions, entities,
    # triples, synonym edges, citations, citations resolved
    layers: Mapping[str, int] = field(default_factory=dict)
    fusion: FusionTuning | None = None  # hybrid's weights as enrich tuned them on the atomic questions

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


@dataclass(frozen=True)
class TraceSummary:
    """One line of the question history."""

    id: int
    question: str
    created_at: str
    mode: str
    answer: str
    total_s: float


@dataclass(frozen=True)
class EvalReport:
    """A finished (or partial) benchmark run, as the eval commands print it."""

    table: str  # Markdown
    notes: tuple[str, ...] = ()
    kb: Path | None = None  # the KB it was run on
    answers: Path | None = None  # the answers file (QA runs; rerun to continue)


@dataclass(frozen=True)
class EnrichmentCounts:
    documents: int
    summaries: Mapping[str, int]  # status ('done', 'skipped', 'failed', 'pending', 'not ready') → documents
    chunks: int
    atoms: Mapping[str, int]  # status ('done', 'failed', 'pending', 'not ready') → chunks
    questions: int
    contexts: int = 0  # chunks with a context that situates them (contextual retrieval, enrich.context)


@dataclass(frozen=True)
class LLMUsage:
    tag: str  # the prompt's name
    calls: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float  # time the calls took when they ran (cache hits cost nothing again)


@dataclass(frozen=True)
class EnrichFailure:
    path: str
    chunk_ord: int | None  # None: the document summary failed
    message: str


@dataclass(frozen=True)
class FileOutcome:
    path: str
    status: FileStatus
    message: str = ""  # the one-line reason of a failure, or what was skipped and why
    reason: str | None = None  # failure code: encrypted, image-only, empty, corrupt, unsupported, ...
    doc_id: int | None = None
    pages: int = 0
    chunks: int = 0
    warnings: tuple[str, ...] = ()


@dataclass
class IngestReport:
    outcomes: list[FileOutcome] = field(default_factory=list)
    seconds: dict[IngestStage, float] = field(default_factory=dict)  # per stage
    units: dict[IngestStage, int] = field(default_factory=dict)  # per stage: files, chunks embedded, chunks late-pooled

    def count(self, *statuses: FileStatus) -> int:
        return sum(1 for o in self.outcomes if o.status in statuses)

    @property
    def failed(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]


@dataclass
class StageCost:
    items: int = 0
    calls: int = 0  # completions asked of the model (retries included)
    cached: int = 0  # of those, answered from the KB's LLM cache
    prompt_tokens: int = 0
    prompt_evaluated: int = 0  # of those, run through the model now (after the KV prefix it reused; 0 if cached)
    completion_tokens: int = 0
    llm_seconds: float = 0.0  # time in the model for the calls that ran now
    seconds: float = 0.0  # wall time of the stage


@dataclass
class EnrichReport:
    summarized: int = 0
    skipped: int = 0  # documents too short to need a summary
    atomized: int = 0  # chunks
    questions: int = 0
    dropped: int = 0  # questions the parser refused (wrong language, vague reference, duplicate)
    failures: list[str] = field(default_factory=list)  # one line each: the document (and chunk) and why
    summary_cost: StageCost | None = None  # None: the stage did not run
    question_cost: StageCost | None = None
    tree_nodes: int = 0  # summary-tree nodes summarised in this run
    tree_cost: StageCost | None = None  # None: the trees were not built
    fusion: FusionTuning | None = None  # hybrid's weights tuned on the KB's atomic questions in this run


@dataclass(frozen=True)
class Calibration:
    """``pikelocal calibrate``: llama.cpp's aggregate generation rate per batch width, and the width kept."""

    model_id: str
    threads: int
    rates: Mapping[int, float]  # width → tokens/s over all sequences
    width: int  # what llm.batch = 0 now uses for this model on this machine
    path: Path  # where it is kept
