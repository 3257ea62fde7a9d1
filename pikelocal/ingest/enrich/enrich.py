"""LLM enrichment of a KB: document summaries (into every chunk's header), atomic questions per chunk, then (with
``trees``) the summary trees of ``ingest/enrich/trees.py``.

Runs over whatever is not yet enriched, so a stopped run continues where it was: every LLM reply is stored in
the KB's cache the moment it arrives (a rerun asks for nothing twice), and every document summary or chunk's
questions is committed in one transaction of its own, outside any LLM call, so searches from another process
keep working and see each chunk improve as it is done. A reply that cannot be used after one retry is recorded
as that chunk's failure; it never stops the run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pikelocal.config import Settings
from pikelocal.domain.documents import ChunkRecord, DocumentRecord
from pikelocal.domain.events import EventSink, Notice, StageAdvanced, StageFinished, StageStarted, ignore
from pikelocal.domain.reports import EnrichReport, StageCost
from pikelocal.embed.base import Encoder
from pikelocal.ingest.enrich.embed import document_text
from pikelocal.ingest.read.tables import table_header_lines
from pikelocal.ingest.split.context import SECTION_SEPARATOR, chunk_header, with_header
from pikelocal.llm.base import LLM
from pikelocal.prompts.atomize import Atoms, atomize_prompt
from pikelocal.prompts.base import PromptJob, PromptResult, charge, run_prompts
from pikelocal.prompts.summarize import EXCERPT_CHARS, SUMMARIZE_DOCUMENT, DocumentSummary
from pikelocal.store.enrichment import DONE, FAILED, SKIPPED
from pikelocal.store.store import Store
from pikelocal.text.lang import Lang, detect_lang

log = logging.getLogger(__name__)

BATCH = 32  # chunks fetched and handed to the LLM fan-out at a time


@dataclass(frozen=True)
class EnrichOptions:
    """What enrichment makes. Made by :meth:`from_settings` (a caller's choices on top): a field that a setting
    feeds has no default of its own, so it cannot disagree with the setting's."""

    max_questions: int  # atomic questions per chunk at most (enrich.questions)
    summaries: bool  # document summaries (and titles); off: straight to the questions (enrich.summaries)
    context: bool  # contextual retrieval: the questions' call also situates each chunk (enrich.context)
    entities: bool  # the entity graph: the questions' call also reads entities and triples (enrich.entities)
    trees: bool  # then the summary trees (ingest/enrich/trees.py; enrich.trees)
    # What a request adds; no setting feeds these.
    doc_ids: tuple[int, ...] | None = None  # only these documents
    # only these chunks' questions (a sample: build/bench/bench_fusion_tuning.py)
    chunk_ids: tuple[int, ...] | None = None
    limit: int | None = None  # at most this many chunks this run
    synonym_threshold: float = 0.9  # cosine of two entity names' vectors for a synonym edge

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> EnrichOptions:
        """The ``[enrich]`` settings as options, with ``overrides`` (fields by name) on top."""
        e = settings.enrich
        return replace(cls(e.questions, e.summaries, e.context, e.entities, e.trees), **overrides)


def has_own_title(doc: DocumentRecord) -> bool:
    """False when the title is only the file name (the parser's last resort)."""
    return bool(doc.title) and doc.title not in (Path(doc.path).stem, Path(doc.path).name)


class Enricher:
    def __init__(
        self,
        store: Store,
        encoder: Encoder,
        llm: LLM,
        options: EnrichOptions,
        sink: EventSink = ignore,
    ) -> None:
        self.store, self.encoder, self.llm, self.options, self.sink = store, encoder, llm, options, sink

    def run(self) -> EnrichReport:
        report = EnrichReport()
        if self.options.summaries:
            self._summaries(report)
        else:  # the questions wait for the summary step: mark it skipped
            for doc in self.store.enrichment.documents_to_summarize(self.options.doc_ids):
                self.store.enrichment.save_document_summary(doc.id, status=SKIPPED)
        self._atoms(report)
        if self.options.entities:  # the graph's loose ends: entities of removed chunks, synonym edges of new ones,
            self.store.graph.prune()  # vectors of new triples (fact seeds; also a KB enriched before schema 9)
            self.store.graph.link_synonyms(self.options.synonym_threshold)
            embed_facts(self.store, self.encoder)
        if self.options.trees:
            from pikelocal.ingest.enrich.trees import TreeBuilder

            trees = TreeBuilder(self.store, self.encoder, self.llm, self.sink, budget=self.options.limit)
            built = trees.run(self.options.doc_ids)
            report.tree_nodes, report.tree_cost = built.nodes, built.cost
            report.failures.extend(built.failures)
        return report

    # --- document summaries -----------------------------------------------------------------------

    def _summaries(self, report: EnrichReport) -> None:
        docs = []
        budget = self.options.limit  # with --limit, summarize only the documents whose chunks this run reaches
        for doc in self.store.enrichment.documents_to_summarize(self.options.doc_ids):
            if budget is not None and budget <= 0:
                break
            chunks = self.store.chunks.chunks_of(doc.id)
            if budget is not None:
                budget -= len(chunks)
            if len(chunks) <= 1 and has_own_title(doc):  # the one chunk is the document: nothing to add
                self.store.enrichment.save_document_summary(doc.id, status=SKIPPED)
                report.skipped += 1
            elif chunks:
                docs.append((doc, chunks))
        cost = report.summary_cost = report.summary_cost or StageCost()
        t0 = time.perf_counter()
        self.sink(StageStarted("summaries", len(docs), "docs"))
        jobs = [self._summary_job(doc, chunks) for doc, chunks in docs]

        def done(i: int, result: PromptResult[DocumentSummary]) -> None:
            doc, chunks = docs[i]
            charge(cost, result)
            self._save_summary(doc, chunks, result, report)
            self.sink(StageAdvanced("summaries", cost.items, len(docs), Path(doc.path).name))

        run_prompts(self.llm, jobs, done)
        cost.seconds += time.perf_counter() - t0
        self.sink(StageFinished("summaries", cost.items, time.perf_counter() - t0))

    def _summary_job(self, doc: DocumentRecord, chunks: Sequence[ChunkRecord]) -> PromptJob[DocumentSummary]:
        text = document_text(chunks)
        lang = detect_lang(text[:4000])
        fields = {
            "file_name": Path(doc.path).name,
            "title": doc.title if has_own_title(doc) else "—",
            "text": text[: EXCERPT_CHARS[lang]].strip(),
        }
        return PromptJob(SUMMARIZE_DOCUMENT, lang, fields)

    def _save_summary(
        self,
        doc: DocumentRecord,
        chunks: Sequence[ChunkRecord],
        result: PromptResult[DocumentSummary],
        report: EnrichReport,
    ) -> None:
        if result.value is None:
            message = f"{Path(doc.path).name}: document summary failed: {result.error}"
            if not self.store.enrichment.save_document_summary(doc.id, status=FAILED, error=result.error):
                return  # removed meanwhile: nothing to report
            report.failures.append(message)
            self.sink(Notice("warning", message, doc.path))
            return
        title = doc.title if has_own_title(doc) or not result.value.title else result.value.title
        headers = {
            c.id: chunk_header(
                title or "",
                c.section_path,
                summary=result.value.summary,
                table_header=table_header_lines(c.header),
                context=c.context,
            )
            for c in chunks
        }
        texts = [with_header(headers[c.id], c.text) for c in chunks]
        vectors = self.encoder.encode(texts, role="passage")  # the embedded text changed: embed it again
        saved = self.store.enrichment.save_document_summary(
            doc.id,
            status=DONE,
            title=None if has_own_title(doc) else title,
            summary=result.value.summary,
            headers=headers,
            header_vectors=vectors,
        )
        report.summarized += saved

    # --- atomic questions -------------------------------------------------------------------------

    def _atoms(self, report: EnrichReport) -> None:
        ids = self.store.enrichment.chunk_ids_to_atomize(
            self.options.doc_ids,
            self.options.limit,
            without_context=self.options.context,
            without_entities=self.options.entities,
            chunk_ids=self.options.chunk_ids,
        )
        cost = report.question_cost = report.question_cost or StageCost()
        t0 = time.perf_counter()
        self.sink(StageStarted("questions", len(ids), "chunks"))
        docs: dict[int, DocumentRecord | None] = {}
        for start in range(0, len(ids), BATCH):
            chunks = self.store.chunks.get_chunks(ids[start : start + BATCH])
            for c in chunks:
                if c.doc_id not in docs:
                    docs[c.doc_id] = self.store.docs.get_document(c.doc_id)
            live = [(c, doc) for c in chunks if (doc := docs[c.doc_id]) is not None]  # not removed meanwhile
            self._atoms_batch(live, cost, len(ids), report)
        cost.seconds += time.perf_counter() - t0
        self.sink(StageFinished("questions", cost.items, time.perf_counter() - t0))

    def _atoms_batch(
        self, chunks: list[tuple[ChunkRecord, DocumentRecord]], cost: StageCost, total: int, report: EnrichReport
    ) -> None:
        jobs = [self._atoms_job(c, doc) for c, doc in chunks]

        def done(i: int, result: PromptResult[Atoms]) -> None:
            charge(cost, result)
            chunk, doc = chunks[i]
            self._save_atoms(chunk, doc, jobs[i].lang, result, report)
            self.sink(StageAdvanced("questions", cost.items, total))

        run_prompts(self.llm, jobs, done)

    def _atoms_job(self, chunk: ChunkRecord, doc: DocumentRecord) -> PromptJob[Atoms]:
        lang = detect_lang(chunk.text)
        context = ""
        if doc.summary:
            context = ("摘要：" if lang == "zh" else "Summary: ") + doc.summary + "\n"
        fields = {
            "max_q": self.options.max_questions,
            "title": doc.title or Path(doc.path).name,
            "section": SECTION_SEPARATOR.join(chunk.section_path) or "—",
            "context": context,
            "text": chunk.text.strip(),
            "situate": self.options.context,
            "entities": self.options.entities,
        }
        prompt = atomize_prompt(self.options.max_questions, self.options.context, self.options.entities)
        return PromptJob(prompt, lang, fields)

    def _save_atoms(
        self,
        chunk: ChunkRecord,
        doc: DocumentRecord,
        lang: Lang,
        result: PromptResult[Atoms],
        report: EnrichReport,
    ) -> None:
        if result.value is None:
            where = f"{Path(doc.path).name} chunk {chunk.ord}"
            message = f"{where}: questions failed: {result.error}"
            if self.store.enrichment.save_atoms(chunk.id, status=FAILED, error=result.error) is None:
                return  # removed meanwhile: nothing to report
            report.failures.append(message)
            self.sink(Notice("warning", message, doc.path))
            return
        atoms = result.value
        vectors = self.encoder.encode(list(atoms.questions), role="query")
        header = header_vector = None
        if atoms.context:  # the chunk's header now situates it: its BM25 row and early vector follow
            header = chunk_header(
                doc.title or "",
                chunk.section_path,
                summary=doc.summary,
                table_header=table_header_lines(chunk.header),
                context=atoms.context,
            )
            header_vector = self.encoder.encode([with_header(header, chunk.text)], role="passage")[0]
        saved = self.store.enrichment.save_atoms(
            chunk.id,
            status=DONE,
            questions=atoms.questions,
            lang=lang,
            vectors=vectors,
            context=atoms.context or None,
            header=header,
            header_vector=header_vector,
            entities=atoms.entities if self.options.entities else None,
            triples=atoms.triples,
            entity_vectors=self.encoder.encode(list(atoms.entities), role="query") if atoms.entities else None,
        )
        if saved is None:
            return
        report.atomized += 1
        report.questions += len(atoms.questions)
        report.dropped += len(atoms.dropped)


def embed_facts(store: Store, encoder: Encoder) -> int:
    """Vectors for the triples that have none (their text "subject relation object", as passages: graph retrieval
    compares the question with them); the number embedded. No LLM call, so it also serves ``reembed``."""
    done = 0
    while batch := store.graph.triples_without_vectors():
        vectors = encoder.encode([text for _, text in batch], role="passage")
        store.index.put_vectors("triple", [tid for tid, _ in batch], vectors, skip_missing=True)
        done += len(batch)
    return done
