"""Settings plus a caller's request turned into the options of the ingest, enrich and answer pipelines."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pikelocal.config import Settings
from pikelocal.domain.errors import InputError
from pikelocal.domain.kinds import OcrMode, answer_mode
from pikelocal.domain.requests import AskRequest
from pikelocal.ingest.enrich.enrich import EnrichOptions
from pikelocal.ingest.pipeline import IngestOptions
from pikelocal.ingest.read.ocr import OcrOptions
from pikelocal.ingest.read.pdf_worker import PdfLimits
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.llm.base import LLM
from pikelocal.query.answer.decompose import DecomposeOptions
from pikelocal.query.answer.modes import AskOptions
from pikelocal.query.context.segments import PRESETS
from pikelocal.query.retrieve.fusion_tuning import stored_tuning, tuned_weights
from pikelocal.store.store import Store


def ingest_options(
    settings: Settings,
    *,
    password: str | None = None,
    late: bool | None = None,
    llm: LLM | None = None,
    ocr: OcrMode | None = None,
    follow_links: bool = False,
) -> IngestOptions:
    s = settings.ingest
    models = settings.models_path()
    split = SplitOptions(target=s.chunk_tokens, min_tokens=s.min_tokens, max_tokens=s.max_tokens)
    return IngestOptions(
        split=split,
        splitter=s.splitter,
        llm=llm,
        late=s.late if late is None else late,
        late_context=s.late_context,
        password=password,
        max_file_mb=s.max_file_mb,
        pdf=PdfLimits(
            timeout_s=s.pdf_timeout_s, memory_mb=s.pdf_memory_mb, max_pages=s.pdf_max_pages, max_chars=s.pdf_max_chars
        ),
        ocr=OcrOptions(
            mode=ocr or s.ocr,
            dpi=s.ocr_dpi,
            max_side=s.ocr_max_side,
            threads=s.ocr_threads,
            page_timeout_s=s.ocr_page_timeout_s,
            memory_mb=s.ocr_memory_mb,
            models_dir=str(models) if models else "",
        ),
        follow_links=follow_links,
    )


def enrich_options(
    settings: Settings, doc_ids: Sequence[int] | None, limit: int | None, trees: bool | None = None
) -> EnrichOptions:
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    e = settings.enrich
    return EnrichOptions(
        max_questions=e.questions,
        summaries=e.summaries,
        context=e.context,
        entities=e.entities,
        trees=e.trees if trees is None else trees,
        doc_ids=tuple(doc_ids) if doc_ids is not None else None,
        limit=limit,
    )


def ask_options(settings: Settings, request: AskRequest = AskRequest()) -> AskOptions:
    """Settings (``[answer]``, ``[search]``) with the caller's choices on top."""
    a = settings.answer
    mode = answer_mode(request.mode or a.mode)
    if request.rounds is not None and request.rounds < 1:
        raise InputError(f"--rounds must be at least 1, got {request.rounds}")
    decompose = DecomposeOptions(
        rounds=request.rounds or a.rounds,
        max_proposals=a.proposals,
        atoms_k=a.atoms_k,
        threshold=a.threshold,
        graph_hops=a.graph_hops,
    )
    options = AskOptions(
        mode=mode,
        k=a.k,
        decompose=decompose,
        neighbours=a.neighbours,
        context=a.context,
        segments=PRESETS[a.segments],
        ranking=settings.search.candidates,
        context_tokens=a.context_tokens,
        compress_tokens=a.compress_tokens,
        rerank=a.rerank,
        follow_refs=a.follow_refs,
        tree_nodes=a.tree_nodes,
        max_tokens=a.max_tokens,
        style=request.style,
        instruction=request.instruction,
        weights=settings.search.weights(),
        fusion=settings.search.fusion,
        hops=settings.search.hops,
        hop_similarity=settings.search.hop_similarity,
        check=a.check,
        check_encoder=a.check_encoder,
        cite_grammar=a.cite_grammar,
        quote=a.quote,
        hop=a.hop,
    )
    return options if request.check is None else replace(options, check=request.check)


def search_weights(settings: Settings, store: Store, encoder_id: str) -> dict[str, float]:
    """Hybrid's fusion weights for this KB: the configured ones, with the BM25 and late weights ``enrich`` tuned
    on its atomic questions in while search.tuned is on (:mod:`pikelocal.query.retrieve.fusion_tuning`)."""
    s = settings.search
    if not s.tuned:
        return s.weights()
    return tuned_weights(s.weights(), stored_tuning(store), encoder_id, s.fusion)
