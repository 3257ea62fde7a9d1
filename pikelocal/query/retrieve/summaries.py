"""The summary trees as retrievable units: summary nodes by dense and BM25 rank, read first when a question asks for
an overview ("summarise …", "what are all the …", "有哪些…": ``text/question_kind.is_overview``)."""

from __future__ import annotations

from collections.abc import Sequence

from pikelocal.domain.answers import Source
from pikelocal.domain.search import SummaryHit
from pikelocal.embed.base import Encoder
from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion
from pikelocal.store.store import Store
from pikelocal.text.lang import Lang


def search_summaries(
    store: Store, encoder: Encoder, query: str, k: int, doc_ids: Sequence[int] | None = None
) -> list[SummaryHit]:
    """The ``k`` summary nodes nearest ``query``: reciprocal-rank fusion of their vectors' and BM25 ranks; with
    ``doc_ids``, only the nodes of those documents (a cluster across documents is left out)."""
    if k <= 0:
        return []
    depth = 3 * k
    vector = encoder.encode([query], role="query")[0]
    dense = [nid for nid, _ in store.index.knn("summary", vector, depth, doc_ids=doc_ids)]
    bm25 = [nid for nid, _ in store.index.fts_search("summary", query, depth, doc_ids=doc_ids)]
    fused = reciprocal_rank_fusion({"dense": dense, "bm25": bm25}, weights={"dense": 1.0, "bm25": 0.5})[:k]
    nodes = {n.id: n for n in store.summaries.get([nid for nid, _ in fused])}
    hits = []
    for nid, score in fused:
        node = nodes.get(nid)
        if node is None or node.summary is None:
            continue
        chunk_ids = tuple(store.summaries.chunk_ids(nid))
        chunks = store.chunks.get_chunks(list(chunk_ids[:1]) + list(chunk_ids[-1:]))
        document = store.docs.get_document(node.doc_id) if node.doc_id is not None else None
        pages = (chunks[0].page_start, chunks[-1].page_end) if chunks and node.doc_id is not None else (None, None)
        hits.append(SummaryHit(node, score, document, chunk_ids, pages))
    return hits


def summary_sources(store: Store, hits: Sequence[SummaryHit], lang: Lang) -> list[Source]:
    """Summary nodes as sources the answer may cite (numbered from 1; the caller renumbers): the summary's text under
    its document's title (or "several documents") and label, cited by the pages of the chunks below it."""
    sources: list[Source] = []
    for hit in hits:
        document = hit.document
        if document is None:  # across documents: cited to the first document below it
            first = store.chunks.get_chunks(list(hit.chunk_ids[:1]))
            document = store.docs.get_document(first[0].doc_id) if first else None
            if document is None:
                continue
            docs = {c.doc_id for c in store.chunks.get_chunks(list(hit.chunk_ids))}
            title = f"{len(docs)} 个文档" if lang == "zh" else f"{len(docs)} documents"
        else:
            title = document.title or ""
        sources.append(
            Source(
                number=len(sources) + 1,
                doc_id=document.id,
                path=document.path,
                title=title,
                chunk_ids=(),
                page_start=hit.pages[0],
                page_end=hit.pages[1],
                line_start=None,
                line_end=None,
                section=("摘要" if lang == "zh" else "Summary", hit.node.label),
                text=hit.node.summary or "",
                summary_node=hit.node.id,
            )
        )
    return sources
