"""The one surface the front ends (CLI, TUI) call. Heavy libraries load lazily, on first use."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.assets import ArtifactStatus, Manifest, check_artifact, load_manifest
from pikelocal.config import Settings, load_settings
from pikelocal.doctor import Section, run_doctor

if TYPE_CHECKING:
    from pikelocal.demo import DemoResult
    from pikelocal.events import EventSink
    from pikelocal.ingest.enrich import EnrichReport
    from pikelocal.ingest.pipeline import IngestReport
    from pikelocal.knowledge_base import KnowledgeBase
    from pikelocal.library import KBStats, Library, ReembedReport
    from pikelocal.query.records import QueryTrace
    from pikelocal.query.search import Hit, Mode
    from pikelocal.store.answers import TraceSummary
    from pikelocal.store.records import DocumentRecord, FailureRecord

__all__ = [
    "Settings",
    "load_settings",
    "model_statuses",
    "doctor",
    "demo",
    "ingest",
    "enrich",
    "reembed",
    "library",
    "stats",
    "remove",
    "search",
    "ask",
    "trace",
    "history",
    "open_kb",
    "kb_problem",
]


def model_statuses(settings: Settings, *, full: bool = False) -> tuple[Manifest, list[ArtifactStatus]]:
    """Every artifact of the manifest with its state (verified / missing / corrupt)."""
    manifest = load_manifest(settings.models_path())
    return manifest, [check_artifact(manifest, art, full=full) for art in manifest.artifacts]


def doctor(settings: Settings, kb: Path | None = None, *, full: bool = False) -> list[Section]:
    return run_doctor(settings, kb, full=full)


def demo(settings: Settings, kb_path: Path, emit: Callable[[str], None]) -> DemoResult:
    """Run the foundation demo (see ``pikelocal.demo``); ``emit`` receives readable lines."""
    from pikelocal.demo import run_demo

    return run_demo(settings, kb_path, emit)


def ingest(
    settings: Settings,
    kb_path: Path,
    paths: Sequence[Path],
    *,
    password: str | None = None,
    late: bool | None = None,
    sink: EventSink | None = None,
) -> IngestReport:
    """Parse, split, embed and index files and folders into the KB (created when missing)."""
    from pikelocal import library as lib
    from pikelocal.events import ignore

    return lib.ingest(settings, kb_path, paths, password=password, late=late, sink=sink or ignore)


def enrich(
    settings: Settings,
    kb_path: Path,
    *,
    docs: Sequence[str] = (),
    limit: int | None = None,
    sink: EventSink | None = None,
) -> EnrichReport:
    """Run the LLM over what is not yet enriched: document summaries, then each chunk's atomic questions."""
    from pikelocal import library as lib
    from pikelocal.events import ignore

    return lib.enrich(settings, kb_path, docs=docs, limit=limit, sink=sink or ignore)


def reembed(settings: Settings, kb_path: Path, *, sink: EventSink | None = None) -> ReembedReport:
    """Compute every vector of the KB again with the configured encoder (after its numbers changed)."""
    from pikelocal import library as lib
    from pikelocal.events import ignore

    return lib.reembed(settings, kb_path, sink=sink or ignore)


def library(kb_path: Path) -> Library:
    """Documents with their stage and chunk count, and the files that failed with their reasons."""
    from pikelocal import library as lib

    return lib.library(kb_path)


def stats(kb_path: Path) -> KBStats:
    """Counts, enrichment progress, LLM tokens and time per prompt, and failures of a KB."""
    from pikelocal import library as lib

    return lib.stats(kb_path)


def remove(kb_path: Path, ref: str) -> DocumentRecord | FailureRecord:
    """Remove a document (by id, path, file name or sha256 prefix) with all its rows and vectors."""
    from pikelocal import library as lib

    return lib.remove(kb_path, ref)


def search(settings: Settings, kb_path: Path, query: str, *, mode: Mode = "hybrid", k: int | None = None) -> list[Hit]:
    """Ranked chunks for ``query`` by BM25, dense, late-chunked or hybrid (RRF) retrieval."""
    from pikelocal import library as lib

    return lib.search_kb(settings, kb_path, query, mode=mode, k=k)


def ask(
    settings: Settings,
    kb_path: Path,
    question: str,
    *,
    mode: str | None = None,
    rounds: int | None = None,
    sink: EventSink | None = None,
) -> QueryTrace:
    """Answer a question from the KB with cited sources (naive, hier or decompose); the trace is stored.

    The answer text arrives through ``sink`` as :class:`~pikelocal.events.AnswerDelta` events while it is
    generated, the decomposition rounds as :class:`~pikelocal.events.ReasoningStep` events.
    """
    from pikelocal import answers
    from pikelocal.events import ignore

    return answers.ask_kb(settings, kb_path, question, mode=mode, rounds=rounds, sink=sink or ignore)


def trace(kb_path: Path, trace_id: int | None = None) -> QueryTrace:
    """A stored question trace: rounds, sources, answer, LLM calls and timings (the newest without an id)."""
    from pikelocal import answers

    return answers.get_trace(kb_path, trace_id)


def history(kb_path: Path, limit: int = 20) -> list[TraceSummary]:
    """Past questions asked of the KB, newest first."""
    from pikelocal import answers

    return answers.history(kb_path, limit)


def open_kb(settings: Settings, kb_path: Path) -> KnowledgeBase:
    """A KB for a long-lived front end: models load once, on first use, and work may run from threads."""
    from pikelocal.knowledge_base import KnowledgeBase

    return KnowledgeBase(settings, kb_path)


def kb_problem(kb_path: Path) -> str | None:
    """Why ``kb_path`` can be neither opened nor created as a knowledge base, or None when it can."""
    from pikelocal.knowledge_base import check_kb_path

    return check_kb_path(kb_path)
