"""Question answering behind the API: open the KB with its encoder and the cached LLM, ask, read traces back."""

from __future__ import annotations

import json
from pathlib import Path

from pikelocal.config import Settings
from pikelocal.embed.base import Encoder
from pikelocal.errors import InputError
from pikelocal.events import EventSink, ignore
from pikelocal.library import open_cached_llm, open_with_encoder
from pikelocal.llm.base import LLM
from pikelocal.prompts.answer import AnswerStyle
from pikelocal.query.ask import AskOptions, ask
from pikelocal.query.decompose import DecomposeOptions
from pikelocal.query.records import ANSWER_MODES, AnswerMode, QueryTrace
from pikelocal.store.answers import TraceSummary
from pikelocal.store.store import Store


def ask_options(
    settings: Settings,
    *,
    mode: str | None = None,
    rounds: int | None = None,
    style: AnswerStyle = "full",
    instruction: str = "",
) -> AskOptions:
    """Settings (``[answer]``, ``[search]``) with the caller's choices on top."""
    a = settings.answer
    chosen = mode or a.mode
    if chosen not in ANSWER_MODES:
        raise InputError(f"unknown answer mode '{chosen}' (use one of {', '.join(ANSWER_MODES)})")
    if rounds is not None and rounds < 1:
        raise InputError(f"--rounds must be at least 1, got {rounds}")
    decompose = DecomposeOptions(
        rounds=rounds or a.rounds, max_proposals=a.proposals, atoms_k=a.atoms_k, threshold=a.threshold
    )
    answer_mode: AnswerMode = chosen  # type: ignore[assignment]
    return AskOptions(
        mode=answer_mode,
        k=a.k,
        decompose=decompose,
        neighbours=a.neighbours,
        context_tokens=a.context_tokens,
        max_tokens=a.max_tokens,
        style=style,
        instruction=instruction,
        weights=settings.search.weights(),
        check=a.check,
        check_encoder=a.check_encoder,
        cite_grammar=a.cite_grammar,
    )


def open_for_answers(settings: Settings, kb_path: Path, encoder: Encoder | None = None) -> tuple[Store, Encoder]:
    """The KB (writable, for traces and the LLM cache) and the encoder it was built with."""
    if not kb_path.exists():
        raise InputError(f"{kb_path}: no such knowledge base (create one with `pikelocal ingest {kb_path} FILES…`)")
    store, encoder, _ = open_with_encoder(settings, kb_path, encoder, create=False)
    return store, encoder


def ask_kb(
    settings: Settings,
    kb_path: Path,
    question: str,
    *,
    mode: str | None = None,
    rounds: int | None = None,
    sink: EventSink = ignore,
    encoder: Encoder | None = None,
    llm: LLM | None = None,
) -> QueryTrace:
    """Answer ``question`` from ``kb_path``; the answer streams to ``sink`` and the trace is stored in the KB.

    ``encoder`` and ``llm`` let a long-lived caller (the TUI) load its models once; ``llm`` is put behind
    this KB's completion cache like the configured one.
    """
    if not question.strip():
        raise InputError("the question is empty")
    options = ask_options(settings, mode=mode, rounds=rounds)
    store, encoder = open_for_answers(settings, kb_path, encoder)
    with store:
        if not store.documents():
            raise InputError(f"{kb_path} holds no documents yet (add some with `pikelocal ingest {kb_path} FILES…`)")
        model = open_cached_llm(settings, store, llm)
        try:
            return ask(store, encoder, model, question, options, sink)
        finally:
            if llm is None:  # a model the caller passed in is the caller's to close
                model.close()


def get_trace(kb_path: Path, trace_id: int | None = None) -> QueryTrace:
    """A stored trace (the newest when ``trace_id`` is None)."""
    with Store.open_existing(kb_path) as store:
        row = store.get_trace(trace_id)
    if row is None:
        which = f"no trace {trace_id}" if trace_id is not None else "no question has been asked yet"
        raise InputError(f"{kb_path}: {which} (see `pikelocal history {kb_path}`)")
    return QueryTrace.from_dict(json.loads(row.json), id=row.id, created_at=row.created_at)


def history(kb_path: Path, limit: int = 20) -> list[TraceSummary]:
    """Past questions, newest first."""
    with Store.open_existing(kb_path) as store:
        return store.trace_summaries(limit)
