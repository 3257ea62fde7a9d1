"""Graph retrieval (``search --mode graph``), after HippoRAG 2: personalized PageRank over the entity–chunk graph,
seeded by the question, chunks ranked by the mass that reaches them.

Nodes are the KB's entities and the chunks that mention them. Edges (undirected, weighted): a chunk and each entity
it mentions (1), the subject and object of each triple (1), two entities whose names are synonyms (their cosine).
Seeds: the entities whose names occur in the question (1 each), the entities nearest the question's vector (their
cosine, if at least ``ENTITY_MIN_SIMILARITY``), the subject and object of the ``FACT_SEEDS`` triples nearest the
question's vector (their cosine; HippoRAG 2's fact retrieval), and, as HippoRAG 2 does, the question's dense chunk
hits (``PASSAGE_SEED_WEIGHT`` × cosine), so a question naming no entity still has somewhere to start. HippoRAG 2
weighs its passage seeds at 0.05; on our pooled 2Wiki-20 and HotpotQA-20 sets 1.0 ranked better on both
(docs/BENCHMARKS.md, "Graph retrieval's seeding, varied").

The matrix is built from the store's edge arrays once per graph version (``kb_meta.graph_version``) and kept in
memory for the process (the TUI and evaluation ask many questions of one KB).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pikelocal.query.retrieve.ppr import DAMPING, Matrix, Walk, personalized_pagerank, symmetric
from pikelocal.store.graph import GraphEdges
from pikelocal.store.store import Store

ENTITY_MIN_SIMILARITY = 0.6  # an entity this close to the question's vector seeds the walk
ENTITY_SEEDS = 5  # nearest entities by vector considered
PASSAGE_SEED_WEIGHT = 1.0  # dense passage seeds against entity seeds (HippoRAG 2: 0.05; measured, see above)
PASSAGE_SEEDS = 10
SPECIFICITY = False  # entity seeds divided by how many chunks name the entity (HippoRAG's node specificity)
FACT_SEEDS = 5  # triples nearest the question whose ends seed the walk (HippoRAG 2 keeps the top 5 before its filter)


@dataclass(frozen=True)
class EntityGraph:
    """The entity–chunk graph as one sparse matrix: rows/columns 0..E-1 are entities, E.. are chunks."""

    version: int
    adjacency: Matrix
    walk: Walk  # the adjacency's transition, prepared once for every query
    entity_index: dict[int, int]  # entity id -> node
    chunk_index: dict[int, int]  # chunk id -> node
    chunk_of_node: NDArray[np.int64]  # node - E -> chunk id
    chunks_per_entity: NDArray[np.float64]  # entity node -> how many chunks mention it (node specificity)

    @property
    def n_entities(self) -> int:
        return len(self.entity_index)


def build_graph(edges: GraphEdges, version: int = 0) -> EntityGraph:
    """The symmetric weighted adjacency matrix of the graph ``edges`` describe."""
    e_index = {int(e): i for i, e in enumerate(edges.entity_ids)}
    n_e = len(e_index)
    c_index = {int(c): n_e + i for i, c in enumerate(edges.chunk_ids)}
    rows: list[NDArray[np.int64]] = []
    cols: list[NDArray[np.int64]] = []
    weights: list[NDArray[np.float64]] = []

    def node_of(index: dict[int, int], ids: NDArray[np.int64]) -> NDArray[np.int64]:
        return np.fromiter((index.get(int(x), -1) for x in ids), dtype=np.int64, count=len(ids))

    pairs = [
        (edges.mentions, c_index, e_index, None),
        (edges.relations, e_index, e_index, None),
        (edges.synonyms, e_index, e_index, 2),
    ]
    for table, left, right, weight_col in pairs:
        if not len(table):
            continue
        a = node_of(left, table[:, 0].astype(np.int64))
        b = node_of(right, table[:, 1].astype(np.int64))
        ok = (a >= 0) & (b >= 0)
        rows.append(a[ok])
        cols.append(b[ok])
        weights.append(table[ok, weight_col].astype(np.float64) if weight_col is not None else np.ones(int(ok.sum())))
    n = n_e + len(c_index)
    empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    matrix = symmetric(
        n,
        np.concatenate(rows) if rows else empty_i,
        np.concatenate(cols) if cols else empty_i,
        np.concatenate(weights) if weights else empty_f,
    )
    chunk_ids = np.asarray(edges.chunk_ids, dtype=np.int64)
    mentioned = node_of(e_index, edges.mentions[:, 1].astype(np.int64)) if len(edges.mentions) else empty_i
    per_entity = np.bincount(mentioned[mentioned >= 0], minlength=n_e).astype(np.float64)
    return EntityGraph(version, matrix, Walk.of(matrix), e_index, c_index, chunk_ids, per_entity)


_cache: dict[str, EntityGraph] = {}
_cache_lock = threading.Lock()


def load_graph(store: Store) -> EntityGraph:
    """The store's graph, from this process's cache while ``kb_meta.graph_version`` is unchanged."""
    version = store.graph.version()
    key = str(store.path.resolve())
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None and cached.version == version:
        return cached
    graph = build_graph(store.graph.edges(), version)
    with _cache_lock:
        _cache[key] = graph
    return graph


def graph_ranking(
    store: Store,
    query: str,
    query_vector: NDArray[np.float32] | None,
    n: int,
    *,
    dense_hits: list[tuple[int, float]] | None = None,
    damping: float = DAMPING,
    passage_weight: float = PASSAGE_SEED_WEIGHT,
    specificity: bool = SPECIFICITY,
    facts: int = FACT_SEEDS,
) -> list[tuple[int, float]]:
    """The ``n`` chunks with the most PPR mass for ``query`` (chunk id, mass), best first; empty when the KB has
    no entities or nothing seeds the walk. ``dense_hits`` (chunk id, cosine) seed chunks at ``passage_weight``
    × cosine. ``specificity``: each entity seed is divided by the number of chunks that mention it (HippoRAG 1's
    node specificity), so a name every paragraph shares seeds little (``build/bench/bench_graph_variants.py``).
    ``facts``: the ends (subject and object) of the ``facts`` triples whose text is nearest the question's vector
    seed the walk at that cosine (HippoRAG 2's fact retrieval, without its LLM filter); 0 turns it off."""
    graph = load_graph(store)
    if graph.n_entities == 0:
        return []
    seeds = np.zeros(graph.adjacency.shape[0])
    for eid in store.graph.entities_named_in(query):
        if (node := graph.entity_index.get(eid)) is not None:
            seeds[node] += 1.0
    if query_vector is not None:
        for eid, distance in store.index.knn("entity", query_vector, ENTITY_SEEDS):
            similarity = 1.0 - distance
            if similarity >= ENTITY_MIN_SIMILARITY and (node := graph.entity_index.get(eid)) is not None:
                seeds[node] += similarity
    if query_vector is not None and facts > 0:
        nearest = store.index.knn("triple", query_vector, facts)
        facts_by_id = store.graph.facts([tid for tid, _ in nearest])
        for tid, distance in nearest:
            fact = facts_by_id.get(tid)
            for eid in (fact.subject_id, fact.object_id) if fact is not None else ():
                if (node := graph.entity_index.get(eid)) is not None:
                    seeds[node] += 1.0 - distance
    if specificity:
        seeds[: graph.n_entities] /= np.maximum(graph.chunks_per_entity, 1.0)
    for cid, score in (dense_hits or [])[:PASSAGE_SEEDS]:
        if (node := graph.chunk_index.get(cid)) is not None:
            seeds[node] += passage_weight * max(0.0, score)
    if seeds.sum() <= 0:
        return []
    mass = personalized_pagerank(graph.walk, seeds, damping=damping)[graph.n_entities :]
    if n < len(mass):  # the n best without sorting every chunk, then those in order (ties by node, as before)
        best = np.argpartition(-mass, n)[:n]
        top = best[np.lexsort((best, -mass[best]))]
    else:
        top = np.argsort(-mass, kind="stable")
    return [(int(graph.chunk_of_node[i]), float(mass[i])) for i in top if mass[i] > 0]
