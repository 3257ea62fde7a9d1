"""The statements of a KB's documents, listed or found for a question: what
:meth:`~pikelocal.kb.knowledge_base.KnowledgeBase.statements` does.

Documents not read for statements yet (a KB made before they were) are read first: regular expressions and SQL, no
model. A question is searched two ways, BM25 over the statements' subjects and sentences and the encoder's vectors,
and the two rankings fused by reciprocal ranks; statements still without a vector get one first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pikelocal.config import Settings
from pikelocal.domain.errors import EncoderMismatchError
from pikelocal.domain.events import EventSink
from pikelocal.domain.reports import IngestReport
from pikelocal.domain.statements import Statement
from pikelocal.embed.base import Encoder
from pikelocal.ingest.pipeline import Ingestor, store_statements
from pikelocal.kb import catalog
from pikelocal.kb.lease import writer_lease
from pikelocal.kb.options import ingest_options
from pikelocal.kb.session import use_concepts
from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion
from pikelocal.store.probe_check import check_probes
from pikelocal.store.store import Store

CANDIDATES = 50  # statements each ranking gives the fusion


def statements(
    settings: Settings,
    path: Path,
    encoder: Callable[[], Encoder],
    doc_refs: Sequence[str],
    query: str | None,
    k: int,
    sink: EventSink,
) -> list[Statement]:
    """Every statement of the documents (all, or those ``doc_refs`` name) in document order; with ``query``, the
    ``k`` that answer it best, best first."""
    _read_unread(settings, path, sink)
    if not query:
        with Store.open_existing(path) as store, store.snapshot():
            doc_ids = _doc_ids(store, doc_refs)
            docs = [d.id for d in store.docs.documents() if doc_ids is None or d.id in doc_ids]
            return [s for doc_id in docs for s in store.statements.of_document(doc_id)]
    model = encoder()
    with Store.open_existing(path) as store:
        missing = store.statements.counts().without_vectors
    if missing:
        with (
            Store.open(path, encoder_id=model.model_id, dim=model.dim, create=False) as store,
            writer_lease(store, "statements", sink),
        ):
            Ingestor(store, model, ingest_options(settings), sink).embed_statements(IngestReport())
    with Store.open_existing(path) as store, store.snapshot():
        if (model.model_id, model.dim) != (store.encoder_id, store.dim):
            raise EncoderMismatchError(
                f"{path} was built with encoder '{store.encoder_id}' but '{model.model_id}' is configured"
            )
        check_probes(store, model, force=settings.encoder.force)
        doc_ids = _doc_ids(store, doc_refs)
        return search(store, model, query, k, doc_ids)


def search(store: Store, encoder: Encoder, query: str, k: int, doc_ids: Sequence[int] | None = None) -> list[Statement]:
    """The ``k`` statements that answer ``query`` best: BM25 and the encoder's nearest, fused by reciprocal ranks."""
    lexical = store.statements.search_fts(query, CANDIDATES, doc_ids=doc_ids)
    vector = encoder.encode([query], role="query")[0]
    dense = store.statements.knn(vector, CANDIDATES, doc_ids=doc_ids)
    by_id = {h.statement.id: h.statement for h in (*lexical, *dense)}
    fused = reciprocal_rank_fusion(
        {"bm25": [h.statement.id for h in lexical], "dense": [h.statement.id for h in dense]}
    )
    return [by_id[i] for i, _score in fused[:k]]


def _read_unread(settings: Settings, path: Path, sink: EventSink) -> None:
    """Read the statements of documents not read yet (a KB made before statements were), as ingest does."""
    with Store.open_existing(path) as store:
        unread = store.statements.unread_documents()
    if unread:
        use_concepts(settings.answer.concepts)
        with Store.open_existing(path, readonly=False) as store, writer_lease(store, "statements", sink):
            store_statements(store)


def _doc_ids(store: Store, refs: Sequence[str]) -> tuple[int, ...] | None:
    if not refs:
        return None
    docs = store.docs.documents()
    return tuple(dict.fromkeys(catalog.find_document(docs, ref).id for ref in refs))
