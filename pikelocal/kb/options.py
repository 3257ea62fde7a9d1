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
from pikelocal.llm.base import LLM
from pikelocal.query.answer.modes import AskOptions
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
    """Settings (``[ingest]``) with the caller's choices on top."""
    options = IngestOptions.from_settings(settings, password=password, llm=llm, follow_links=follow_links)
    if late is not None:
        options = replace(options, late=late)
    return replace(options, ocr=replace(options.ocr, mode=ocr)) if ocr else options


def enrich_options(
    settings: Settings, doc_ids: Sequence[int] | None, limit: int | None, trees: bool | None = None
) -> EnrichOptions:
    """Settings (``[enrich]``) with the caller's choices on top."""
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be at least 1, got {limit}")
    options = EnrichOptions.from_settings(
        settings, doc_ids=tuple(doc_ids) if doc_ids is not None else None, limit=limit
    )
    return options if trees is None else replace(options, trees=trees)


def ask_options(settings: Settings, request: AskRequest = AskRequest()) -> AskOptions:
    """Settings (``[answer]``, ``[search]``) with the caller's choices on top."""
    if request.rounds is not None and request.rounds < 1:
        raise InputError(f"--rounds must be at least 1, got {request.rounds}")
    options = AskOptions.from_settings(
        settings,
        mode=answer_mode(request.mode or settings.answer.mode),
        style=request.style,
        instruction=request.instruction,
    )
    if request.rounds is not None:
        options = replace(options, decompose=replace(options.decompose, rounds=request.rounds))
    return options if request.check is None else replace(options, check=request.check)


def review_options(settings: Settings) -> AskOptions:
    """A checklist item's options: the answer's, with the review's own source budget (``answer.review_compress_tokens``;
    0 keeps ``answer.compress_tokens``). An item asks one fact, so fewer source tokens read as well and cost less."""
    options = ask_options(settings)
    budget = settings.answer.review_compress_tokens
    return replace(options, compress_tokens=budget) if budget > 0 else options


def search_weights(settings: Settings, store: Store, encoder_id: str) -> dict[str, float]:
    """Hybrid's fusion weights for this KB: the configured ones, with the BM25 and late weights ``enrich`` tuned
    on its atomic questions in while search.tuned is on (:mod:`pikelocal.query.retrieve.fusion_tuning`)."""
    s = settings.search
    if not s.tuned:
        return s.weights()
    return tuned_weights(s.weights(), stored_tuning(store), encoder_id, s.fusion)
