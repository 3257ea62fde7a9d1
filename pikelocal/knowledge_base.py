"""One open knowledge base for a long-lived front end (the TUI): the models load once, on first use, and are
shared by every piece of work run on it, from any thread.

Each operation opens its own connection to the KB file (SQLite in WAL mode), so a question can be answered
while a document is being ingested. The in-process LLM serialises its calls itself (one ``Llama`` object).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pikelocal import answers
from pikelocal import library as lib
from pikelocal.config import Settings
from pikelocal.embed.base import Encoder
from pikelocal.embed.factory import open_encoder
from pikelocal.errors import InputError, PikeError
from pikelocal.events import EventSink, ignore
from pikelocal.ingest.enrich import EnrichReport
from pikelocal.ingest.pipeline import IngestReport
from pikelocal.llm.base import LLM
from pikelocal.query.records import QueryTrace
from pikelocal.store.answers import TraceSummary
from pikelocal.store.pages import PageRecord
from pikelocal.store.records import DocumentRecord, FailureRecord
from pikelocal.store.store import Store


@dataclass(frozen=True)
class AddReport:
    ingest: IngestReport
    enrich: EnrichReport | None  # None when enrichment was not asked for


def check_kb_path(path: Path) -> str | None:
    """Why ``path`` cannot be opened or created as a KB, or None when it can."""
    if path.is_dir():
        return f"{path} is a folder; name a file such as {path / 'my.kb'}"
    if not path.exists():
        return None if path.parent.is_dir() else f"{path.parent}: no such folder"
    try:
        Store.open_existing(path).close()
    except PikeError as exc:
        return str(exc)
    return None


class KnowledgeBase:
    """A KB file with its encoder and LLM, loaded lazily (pass them in to use others, e.g. fakes in tests)."""

    def __init__(
        self, settings: Settings, path: Path, *, encoder: Encoder | None = None, llm: LLM | None = None
    ) -> None:
        self.path = path
        self.settings = lib.encoder_settings_for(settings, path)
        self._encoder = encoder
        self._llm = llm
        self._owns_llm = llm is None
        self._lock = threading.Lock()

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
        with self._lock:
            if self._llm is not None and self._owns_llm:
                self._llm.close()
                self._llm = None

    # --- reading ---------------------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def library(self) -> lib.Library:
        return lib.library(self.path)

    def history(self, limit: int = 50) -> list[TraceSummary]:
        return answers.history(self.path, limit)

    def trace(self, trace_id: int | None = None) -> QueryTrace:
        return answers.get_trace(self.path, trace_id)

    def page(self, doc_id: int, page_no: int) -> PageRecord:
        """One page of a document, with its line starts (line numbers match the citations')."""
        with Store.open_existing(self.path) as store:
            page = store.page(doc_id, page_no)
        if page is None:
            raise InputError(f"{self.path.name}: document {doc_id} has no page {page_no}")
        return page

    def page_numbers(self, doc_id: int) -> list[int]:
        with Store.open_existing(self.path) as store:
            return store.page_numbers(doc_id)

    # --- work (call from a worker thread; ``sink`` may raise Cancelled to stop between units) --------------

    def ask(
        self, question: str, *, mode: str | None = None, rounds: int | None = None, sink: EventSink = ignore
    ) -> QueryTrace:
        return answers.ask_kb(
            self.settings, self.path, question, mode=mode, rounds=rounds, sink=sink, encoder=self.encoder(),
            llm=self.llm(),
        )  # fmt: skip

    def add(self, paths: Sequence[Path], *, enrich: bool = True, sink: EventSink = ignore) -> AddReport:
        """Ingest files and folders (the KB is created when missing), then enrich what is not yet enriched."""
        llm = self.llm() if self.settings.ingest.splitter == "llm" else None
        report = lib.ingest(self.settings, self.path, paths, sink=sink, encoder=self.encoder(), llm=llm)
        enriched = self.enrich(sink=sink) if enrich else None
        return AddReport(report, enriched)

    def enrich(self, *, sink: EventSink = ignore) -> EnrichReport:
        return lib.enrich(self.settings, self.path, sink=sink, encoder=self.encoder(), llm=self.llm())

    def remove(self, ref: str) -> DocumentRecord | FailureRecord:
        return lib.remove(self.path, ref)
