"""Typed records, enumerations, events and errors shared across layers: frozen dataclasses and ``Literal`` types
with no behaviour beyond small helpers, and nothing below them (they import only each other).

``kinds`` (every enumeration), ``documents`` (what the KB holds), ``search`` (hits), ``answers`` (traces),
``reports`` (what operations report), ``references`` (citations of laws), ``requests`` (what callers ask for),
``events`` (progress), ``errors``, ``review`` (checklists, values, review rows), ``side_by_side`` (a checklist per
document, as columns), ``statements`` (every value of a document with what it is a value of).
Front ends import from here and from :mod:`pikelocal.api` only.
"""

from pikelocal.domain.answers import Answer, CallCost, Candidate, ClaimCheck, Evidence, QueryTrace, Round, Source
from pikelocal.domain.cache import CachedCompletion
from pikelocal.domain.documents import ChunkRecord, DocumentRecord, FailureRecord, PageRecord, SummaryNode
from pikelocal.domain.errors import (
    BackendError,
    Cancelled,
    ChecklistError,
    ConfigError,
    CorruptKBError,
    DocumentError,
    EncoderMismatchError,
    EncoderNumericsError,
    InputError,
    ModelError,
    PikeError,
    StoreError,
)
from pikelocal.domain.events import (
    AnswerDelta,
    Event,
    EventSink,
    Notice,
    ReasoningStep,
    StageAdvanced,
    StageFinished,
    StageStarted,
    cancellable,
    ignore,
)
from pikelocal.domain.kinds import (
    ANSWER_CONTEXTS,
    ANSWER_MODES,
    DOCUMENT_STAGES,
    ENRICH_STATUSES,
    FUSED_SOURCES,
    HISTORY_LIMIT,
    OCR_MODES,
    SEARCH_MODES,
    SEGMENT_PRESETS,
    SPLITTERS,
    AnswerContext,
    AnswerMode,
    AnswerStyle,
    CandidateSource,
    DocumentStage,
    EnrichStatus,
    FileStatus,
    FusedSource,
    IngestStage,
    NoticeLevel,
    OcrMode,
    SearchMode,
    SegmentPreset,
    Splitter,
    StepKind,
    Verdict,
    answer_mode,
)
from pikelocal.domain.obligations import (
    BID_CHECK_NAMES,
    BID_CHECK_STATES,
    PARTY_NAMES,
    REQUIREMENT_KINDS,
    RISK_STAGES,
    STAGE_NAMES,
    BidCheck,
    Clause,
    FigureCheck,
    Requirement,
    Risk,
    TimelineEntry,
)
from pikelocal.domain.references import LegalRef, RefCounts, StoredRef
from pikelocal.domain.reports import (
    AddReport,
    Calibration,
    DocumentStatus,
    EnrichFailure,
    EnrichmentCounts,
    EnrichReport,
    EvalReport,
    FileOutcome,
    IngestReport,
    KBStats,
    Library,
    LLMUsage,
    RecoverReport,
    ReembedReport,
    StageCost,
    TraceSummary,
)
from pikelocal.domain.requests import AddRequest, AskRequest, EnrichRequest, SearchRequest
from pikelocal.domain.review import (
    REVIEW_MARKS,
    REVIEW_VERDICTS,
    VALUE_KINDS,
    VERDICT_NAMES,
    Checklist,
    ChecklistItem,
    KeyFigure,
    Located,
    MarksImport,
    ReviewMark,
    ReviewQuote,
    ReviewReport,
    ReviewRequest,
    ReviewRow,
    ReviewVerdict,
    Value,
    ValueKind,
)
from pikelocal.domain.search import Hit, Segment, SegmentCell, SegmentSpan, Snippet, SummaryHit
from pikelocal.domain.side_by_side import (
    AGREEMENT_NAMES,
    AGREEMENTS,
    Agreement,
    ComparedDocument,
    SideBySide,
    SideBySideRequest,
    SideBySideRow,
)
from pikelocal.domain.statements import Statement, StatementHit

__all__ = [
    "ANSWER_CONTEXTS", "SEGMENT_PRESETS", "AnswerContext", "Segment", "SegmentCell", "SegmentPreset", "SegmentSpan",
    "ANSWER_MODES", "DOCUMENT_STAGES", "ENRICH_STATUSES", "FUSED_SOURCES", "HISTORY_LIMIT", "OCR_MODES", "SEARCH_MODES",
    "SPLITTERS", "AddReport", "AddRequest", "Answer", "AnswerDelta", "AnswerMode", "AnswerStyle", "AskRequest",
    "BackendError", "CachedCompletion", "Calibration", "CallCost", "Cancelled", "Candidate", "CandidateSource",
    "ChecklistError",
    "ChunkRecord",
    "ClaimCheck", "ConfigError", "CorruptKBError", "DocumentError", "DocumentRecord", "DocumentStage", "DocumentStatus",
    "EncoderMismatchError", "EncoderNumericsError", "EnrichFailure", "EnrichReport", "EnrichRequest",
    "EnrichStatus", "EnrichmentCounts", "EvalReport", "Event", "EventSink", "Evidence", "FailureRecord",
    "FileOutcome", "FileStatus", "FusedSource", "Hit", "IngestReport", "IngestStage", "InputError", "KBStats",
    "LLMUsage", "Library", "ModelError", "Notice", "NoticeLevel", "OcrMode", "PageRecord", "PikeError", "QueryTrace",
    "ReasoningStep", "RecoverReport", "ReembedReport", "Round", "SearchMode", "SearchRequest", "Snippet", "Source",
    "Splitter",
    "StageAdvanced", "StageCost", "StageFinished", "StageStarted", "StepKind", "StoreError", "TraceSummary",
    "Verdict", "answer_mode", "PARTY_NAMES", "REQUIREMENT_KINDS", "RISK_STAGES", "STAGE_NAMES", "Clause", "Requirement",
    "BID_CHECK_NAMES", "BID_CHECK_STATES", "BidCheck", "FigureCheck",
    "Risk", "TimelineEntry", "cancellable", "ignore", "LegalRef", "RefCounts", "StoredRef", "SummaryHit",
    "SummaryNode",
    "REVIEW_MARKS", "REVIEW_VERDICTS", "VALUE_KINDS", "VERDICT_NAMES", "Checklist", "ChecklistItem", "KeyFigure",
    "Located", "MarksImport",
    "ReviewMark", "ReviewQuote", "ReviewReport", "ReviewRequest", "ReviewRow", "ReviewVerdict", "Value", "ValueKind",
    "Statement", "StatementHit",
    "AGREEMENTS", "AGREEMENT_NAMES", "Agreement", "ComparedDocument", "SideBySide", "SideBySideRequest",
    "SideBySideRow",
]  # fmt: skip
