"""The store's side of LLM enrichment: what is still to do, and writing each result in one transaction.

A part of :class:`~pikelocal.store.store.Store` (``store.enrichment``): document summaries and each chunk's
atomic questions, with their status and errors (what the LLM calls cost is ``store.cache.llm_usage``). Every
write here commits one document's summary or one chunk's atoms whole, so a reader in another process sees a
chunk either before or after its enrichment, and a killed run loses at most the result it was writing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from pikelocal.domain.documents import DocumentRecord
from pikelocal.domain.reports import EnrichFailure, EnrichmentCounts
from pikelocal.store.fts import normalize_for_index

if TYPE_CHECKING:
    from pikelocal.store.chunks import Chunks
    from pikelocal.store.documents import Documents
    from pikelocal.store.graph import Graph
    from pikelocal.store.handle import Db
    from pikelocal.store.index import SearchIndex

DONE, SKIPPED, FAILED = "done", "skipped", "failed"
_READY = "ready"  # documents.stage once the fast path is finished (ingest.pipeline.STAGE_READY)


class Enrichment:
    """Summary and atomic-question state of one open store."""

    def __init__(self, db: Db, *, docs: Documents, chunks: Chunks, index: SearchIndex, graph: Graph) -> None:
        self._db = db
        self._docs = docs
        self._chunks = chunks
        self._index = index  # a result's header, question and entity vectors are written with it
        self._graph = graph

    # --- what is left -----------------------------------------------------------------------------

    def documents_to_summarize(self, doc_ids: Sequence[int] | None = None) -> list[DocumentRecord]:
        """Ready documents whose summary step has not run (nor been skipped)."""
        pending = {r[0] for r in self._db.rows("SELECT id FROM documents WHERE summary_status IS NULL")}
        return [
            d for d in self._docs.documents_in_stage(_READY) if d.id in pending and (doc_ids is None or d.id in doc_ids)
        ]

    def chunk_ids_to_atomize(
        self,
        doc_ids: Sequence[int] | None = None,
        limit: int | None = None,
        *,
        without_context: bool = False,
        without_entities: bool = False,
        chunk_ids: Sequence[int] | None = None,
    ) -> list[int]:
        """Chunks without atoms (``without_context`` / ``without_entities``: or atomized without a context / without
        reading its entities), of ready documents whose summary step is over, among ``chunk_ids`` when given; in
        document order."""
        redo = [
            *(["c.context IS NULL"] if without_context else []),
            *(["c.entities_read IS NULL"] if without_entities else []),
        ]
        todo = "c.atoms_status IS NULL"
        if redo:
            todo = f"({todo} OR (c.atoms_status = 'done' AND ({' OR '.join(redo)})))"
        sql = (
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id"
            f" WHERE {todo}"
            f" AND d.stage = '{_READY}' AND d.summary_status IS NOT NULL"
        )
        params: list[Any] = []
        if doc_ids is not None:
            sql += " AND d.id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(list(doc_ids)))
        if chunk_ids is not None:
            sql += " AND c.id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps([int(c) for c in chunk_ids]))
        sql += " ORDER BY d.id, c.ord"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [int(r[0]) for r in self._db.rows(sql, params)]

    def enrichment_counts(self) -> EnrichmentCounts:
        summaries = dict.fromkeys((DONE, SKIPPED, FAILED, "pending", "not ready"), 0)
        for status, stage, n in self._db.rows(
            "SELECT summary_status, stage, count(*) FROM documents GROUP BY summary_status, stage"
        ):
            key = status or ("pending" if stage == _READY else "not ready")
            summaries[key] += int(n)
        atoms = dict.fromkeys((DONE, FAILED, "pending", "not ready"), 0)
        for status, stage, n in self._db.rows(
            "SELECT c.atoms_status, d.stage, count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id"
            " GROUP BY c.atoms_status, d.stage"
        ):
            key = status or ("pending" if stage == _READY else "not ready")
            atoms[key] += int(n)
        questions = int(self._db.rows("SELECT count(*) FROM questions")[0][0])
        contexts = int(self._db.rows("SELECT count(*) FROM chunks WHERE context IS NOT NULL")[0][0])
        return EnrichmentCounts(sum(summaries.values()), summaries, sum(atoms.values()), atoms, questions, contexts)

    def atoms_by_document(self) -> dict[int, dict[str, int]]:
        """doc id → atomic-question status ('done', 'failed', 'pending') → chunks."""
        out: dict[int, dict[str, int]] = {}
        for doc_id, status, n in self._db.rows(
            "SELECT doc_id, coalesce(atoms_status, 'pending'), count(*) FROM chunks GROUP BY 1, 2"
        ):
            out.setdefault(int(doc_id), {})[str(status)] = int(n)
        return out

    def enrich_failures(self) -> list[EnrichFailure]:
        rows = self._db.rows(
            "SELECT path, NULL, enrich_error FROM documents WHERE summary_status = 'failed' UNION ALL"
            " SELECT d.path, c.ord, c.enrich_error FROM chunks c JOIN documents d ON d.id = c.doc_id"
            " WHERE c.atoms_status = 'failed' ORDER BY 1, 2"
        )
        return [EnrichFailure(p, None if o is None else int(o), str(m or "")) for p, o, m in rows]

    # --- results ----------------------------------------------------------------------------------

    def save_document_summary(
        self,
        doc_id: int,
        *,
        status: str,
        title: str | None = None,
        summary: str | None = None,
        error: str | None = None,
        headers: Mapping[int, str] | None = None,
        header_vectors: ArrayLike | None = None,
    ) -> bool:
        """Record a document's summary step; new chunk ``headers`` replace the old ones with their FTS rows
        and early vectors (``header_vectors``, one row per header, in the mapping's order). False when the
        document is gone (removed by another process meanwhile)."""
        headers = dict(headers or {})
        with self._db.transaction():
            changed = self._db.execute(
                "UPDATE documents SET summary_status = ?, enrich_error = ?, summary = coalesce(?, summary),"
                " title = coalesce(?, title), updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
                (status, error, summary, title, doc_id),
            )
            if changed == 0:
                return False
            if not headers:
                return True
            live = {c.id: c for c in self._chunks.get_chunks(list(headers)) if c.doc_id == doc_id}
            for cid, header in headers.items():
                chunk = live.get(cid)
                if chunk is None:
                    continue
                self._db.execute("UPDATE chunks SET header = ? WHERE id = ?", (header, cid))
                self._db.execute("DELETE FROM chunks_fts WHERE rowid = ?", (cid,))
                self._db.execute(
                    "INSERT INTO chunks_fts(rowid, header, text) VALUES (?, ?, ?)",
                    (cid, normalize_for_index(header), normalize_for_index(chunk.text)),
                )
            if header_vectors is not None:
                self._index.put_vectors("chunk", list(headers), np.asarray(header_vectors), skip_missing=True)
            return True

    def _replace_header(
        self, chunk_id: int, text: str, context: str, header: str, header_vector: ArrayLike | None
    ) -> None:
        """A chunk's new context and header, with its FTS row and (``header_vector``) early vector."""
        self._db.execute("UPDATE chunks SET context = ?, header = ? WHERE id = ?", (context, header, chunk_id))
        self._db.execute("DELETE FROM chunks_fts WHERE rowid = ?", (chunk_id,))
        self._db.execute(
            "INSERT INTO chunks_fts(rowid, header, text) VALUES (?, ?, ?)",
            (chunk_id, normalize_for_index(header), normalize_for_index(text)),
        )
        if header_vector is not None:
            self._index.put_vectors("chunk", [chunk_id], np.asarray(header_vector).reshape(1, -1))

    def _replace_questions(
        self, chunk_id: int, questions: Sequence[str], lang: str | None, vectors: ArrayLike | None
    ) -> list[int]:
        """A chunk's atomic questions replaced by ``questions`` (with FTS rows and ``vectors``); their ids."""
        old = [r[0] for r in self._db.rows("SELECT id FROM questions WHERE chunk_id = ?", (chunk_id,))]
        for qid in old:
            self._db.execute("DELETE FROM questions_fts WHERE rowid = ?", (qid,))
            self._db.execute("DELETE FROM question_vectors WHERE rowid = ?", (qid,))
        self._db.execute("DELETE FROM questions WHERE chunk_id = ?", (chunk_id,))
        ids: list[int] = []
        for q in questions:
            qid = self._db.insert("INSERT INTO questions(chunk_id, text, lang) VALUES (?, ?, ?)", (chunk_id, q, lang))
            self._db.execute("INSERT INTO questions_fts(rowid, text) VALUES (?, ?)", (qid, normalize_for_index(q)))
            ids.append(qid)
        if ids and vectors is not None:
            self._index.put_vectors("question", ids, np.asarray(vectors))
        return ids

    def save_atoms(
        self,
        chunk_id: int,
        *,
        status: str,
        questions: Sequence[str] = (),
        lang: str | None = None,
        vectors: ArrayLike | None = None,
        summary: str | None = None,
        error: str | None = None,
        context: str | None = None,
        header: str | None = None,
        header_vector: ArrayLike | None = None,
        entities: Sequence[str] | None = None,
        triples: Sequence[tuple[str, str, str]] = (),
        entity_vectors: ArrayLike | None = None,
    ) -> list[int] | None:
        """Replace a chunk's atomic questions (with FTS rows and vectors) and record its status; returns the
        question ids, or None when the chunk is gone (its document removed meanwhile). A summary the chunk
        already has (from the LLM splitter) is kept. With ``context`` (contextual retrieval) the chunk's new
        ``header`` replaces the old one, with its FTS row and early vector (``header_vector``). With ``entities``
        (the entity graph) the chunk's entity links and ``triples`` are replaced too (``entity_vectors``: one row per
        name, for the names new to the KB)."""
        with self._db.transaction():
            found = self._db.rows("SELECT text FROM chunks WHERE id = ?", (chunk_id,))
            if not found:
                return None
            if context is not None and header is not None:
                self._replace_header(chunk_id, str(found[0][0]), context, header, header_vector)
            ids = self._replace_questions(chunk_id, questions, lang, vectors)
            if entities is not None:
                self._graph.put_chunk(chunk_id, entities, triples, entity_vectors)
            self._db.execute(
                "UPDATE chunks SET atoms_status = ?, enrich_error = ?, summary = coalesce(summary, ?) WHERE id = ?",
                (status, error, summary, chunk_id),
            )
            return ids
