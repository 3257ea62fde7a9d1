"""Every enumeration of pikelocal, defined once: a ``Literal`` type for the checker and a tuple of its values for
the CLI's choices, config validation and the TUI's menus. Values are the strings stored in KB files and traces.
"""

from __future__ import annotations

from typing import Literal, get_args

AnswerMode = Literal["naive", "hier", "decompose"]  # hier: naive over the question's sub-paths; decompose: Algorithm 1
ANSWER_MODES: tuple[AnswerMode, ...] = get_args(AnswerMode)

AnswerStyle = Literal["full", "short"]  # short: a phrase, for benchmarks that score one

SearchMode = Literal["bm25", "dense", "late", "questions", "graph", "hybrid"]
SEARCH_MODES: tuple[SearchMode, ...] = get_args(SearchMode)
FusedSource = Literal["bm25", "dense", "late", "questions", "graph"]  # the rankings hybrid fuses
FUSED_SOURCES: tuple[FusedSource, ...] = get_args(FusedSource)
FusionMethod = Literal["rrf", "minmax", "zscore"]  # hybrid: reciprocal ranks, or scores normalised per ranking
FUSION_METHODS: tuple[FusionMethod, ...] = get_args(FusionMethod)
# What keeps a late vector's document identity: nothing; the title › section path of where its window starts, read
# before the window's text, its tokens left out of the chunks' pooled vectors ("prefix") or counted in them
# ("pooled"); or the pooled vector mixed with the early vector of the chunk's title › section path ("mix").
LateContext = Literal["off", "prefix", "pooled", "mix"]
LATE_CONTEXTS: tuple[LateContext, ...] = get_args(LateContext)

AnswerContext = Literal["segments", "neighbours"]  # sources: relevant segments (RSE) or gathered chunks ± neighbours
ANSWER_CONTEXTS: tuple[AnswerContext, ...] = get_args(AnswerContext)
SegmentPreset = Literal[
    "balanced", "precision", "find_all"
]  # RSE's parameter sets (query/context/segments.py, after dsRAG)
SEGMENT_PRESETS: tuple[SegmentPreset, ...] = get_args(SegmentPreset)

# structure: fast, rule-based; semantic: the same units cut where the encoder sees the topic turn; llm: PIKE-RAG's
# LLM-guided splitter
Splitter = Literal["structure", "semantic", "llm"]
SPLITTERS: tuple[Splitter, ...] = get_args(Splitter)

OcrMode = Literal["auto", "always", "never"]  # auto: pages without a usable text layer; always: every page; never: none
OCR_MODES: tuple[OcrMode, ...] = get_args(OcrMode)

DocumentStage = Literal["parsed", "embedded", "ready"]  # documents.stage: chunks stored / early vectors / all vectors
DOCUMENT_STAGES: tuple[DocumentStage, ...] = get_args(DocumentStage)

EnrichStatus = Literal["done", "skipped", "failed", "pending", "not ready"]  # of a summary or a chunk's questions
ENRICH_STATUSES: tuple[EnrichStatus, ...] = get_args(EnrichStatus)

# the stages an ingest times: parsing, early vectors, late vectors, reading citations of laws (and resolving them),
# reading each document's statements (no model), and their vectors
IngestStage = Literal["parse", "embed", "late", "refs", "statements", "statement_vectors"]

FileStatus = Literal["ingested", "replaced", "resumed", "unchanged", "duplicate", "failed"]  # one file of an ingest

NoticeLevel = Literal["info", "warning", "error"]

SummaryNodeKind = Literal["section", "cluster"]  # a summary tree's node: a section of a document, or a cluster

StepKind = Literal["propose", "backup", "pick", "stop"]  # one step of the decomposition loop

# sub-question → atoms; graph: one shared entity away from an atom's chunk; backups: question → atoms, → chunks
CandidateSource = Literal["atoms", "graph", "question", "chunks"]

Verdict = Literal["supported", "unsupported", "contradicted", "not_stated", "filler"]  # a claim against its sources


def answer_mode(name: str) -> AnswerMode:
    """``name`` as an answer mode; an unknown one is an InputError naming the choices."""
    for mode in ANSWER_MODES:
        if mode == name:
            return mode
    from pikelocal.domain.errors import InputError

    raise InputError(f"unknown answer mode '{name}' (use one of {', '.join(ANSWER_MODES)})")


HISTORY_LIMIT = 20  # past questions listed when the caller does not say how many
