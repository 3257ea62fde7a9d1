"""Fact hops: the second hop of a multi-hop question, through the entity graph's facts.

"Where was the director of film X born?" names X, and search finds X's passage ("X is a 1943 film directed by Y"),
but not Y's: the question never names Y. Among the triples nearest the question's vector (the KB's facts, embedded
after enrichment, schema 9; HippoRAG 2's fact retrieval) is (X, directed by, Y). Each end of those triples that
the question does not name (Y) is searched for as a query of its own, and the chunk nearest it, when it is close
enough (``HOP_MIN_SIMILARITY``, so that "1828" or "the film" leads nowhere), is the passage about Y. Search puts
up to ``search.hops`` such chunks right after the fused ranking's first ``HOP_AFTER`` hits (:func:`with_hops`).

The chunks an end may lead to are those that mention it or one of its synonyms (the synonym edges enrichment
stored), without hubs (an entity named in more than 50 chunks). When none of them is close enough, those that
mention a name near it (its ``HOP_NAMES`` nearest entity names at cosine ``HOP_NAME_SIMILARITY`` or more: "William
Clemens (director)" for "William Clemens"), for at most ``HOP_NAME_LOOKUPS`` ends a question. So the cost does not
grow with the KB as a search over every chunk would (168 ms an end at 100,000 chunks), and on the pooled 2Wiki-50
and HotpotQA-50 sets the hops are the same as such a search's within 0.01 R@5 (docs/BENCHMARKS.md, "Fact hops").

No LLM call and, on an enriched KB, no encoder call: per end, nearest triple first until ``n`` hops are found, its
name vector as enrichment stored it (encoded as a query; encoded now where a KB lacks it), one lookup of near names
and the vectors of their chunks. A KB without triple vectors (not enriched with ``enrich.entities``) has no hops.

What they buy in hybrid's R@5, on the enriched pooled 2Wiki-50 and HotpotQA-50 KBs where the values here were
chosen and on a held-out 2Wiki pool: docs/BENCHMARKS.md, "Fact hops".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np
from numpy.typing import NDArray

from pikelocal.domain.search import Fact, FactHop
from pikelocal.embed.base import Encoder
from pikelocal.store.store import Store

HOP_FACTS = 5  # triples nearest the question whose ends are searched for (as graph retrieval's fact seeds)
HOP_AFTER = 2  # hops go after this many of the ranking's first hits (the question's own passages)
# The least cosine between an end's name and its chunk for a hop: on the pooled sets, 0.4-0.55 gave the same
# rankings within 0.01 R@5, and 0.6 lost 2Wiki's hops to people's pages (EmbeddingGemma's scale; another
# encoder may want another value).
HOP_MIN_SIMILARITY = 0.5
HOP_NAMES = 5  # entity names nearest an end's whose chunks it may lead to
HOP_NAME_SIMILARITY = 0.6  # the least cosine of such a name to the end's (as graph retrieval's entity seeds)
HOP_NAME_LOOKUPS = 3  # ends a question whose near names are looked up (each a KNN over every entity name)


def fact_hops(
    store: Store,
    encoder: Encoder,
    query: str,
    query_vector: NDArray[np.float32],
    n: int,
    *,
    skip: Collection[int] = (),
    facts: int = HOP_FACTS,
    min_similarity: float = HOP_MIN_SIMILARITY,
) -> list[FactHop]:
    """Up to ``n`` chunks reached through the ``facts`` triples nearest ``query_vector``: for each end the question
    does not name, nearest triple first, the chunk nearest the end's name among those that mention it or a synonym
    (else a name near it), if at least ``min_similarity`` close and not in ``skip`` (the hits already above where
    the hops go) or already a hop."""
    if n <= 0 or facts <= 0:
        return []
    nearest = [tid for tid, _ in store.index.knn("triple", query_vector, facts)]
    if not nearest:
        return []
    by_id = store.graph.facts(nearest)
    named = set(store.graph.entities_named_in(query))
    ends: list[tuple[int, str, Fact]] = []  # (entity id, name, the fact it ends)
    seen = set(named)
    for tid in nearest:
        fact = by_id.get(tid)
        if fact is None:
            continue
        for eid, name in ((fact.subject_id, fact.subject), (fact.object_id, fact.object)):
            if eid not in seen:
                seen.add(eid)
                ends.append((eid, name, fact))
    if not ends:
        return []
    hops: list[FactHop] = []
    taken = set(skip)
    lookups = HOP_NAME_LOOKUPS
    for eid, name, fact in ends:
        # the name's vector as enrichment stored it (encoded as a query), else encoded now
        vector = store.index.vector("entity", eid)
        if vector is None:
            vector = encoder.encode([name], role="query")[0]
        found = _nearest_chunk(store, {eid, *store.graph.synonyms_of(eid)}, vector)
        if (found is None or found[1] < min_similarity) and lookups > 0:
            lookups -= 1
            found = _nearest_chunk(store, {eid, *_near_names(store, vector)}, vector)
        if found is None:
            continue
        chunk_id, similarity = found
        if chunk_id in taken or similarity < min_similarity:
            continue
        taken.add(chunk_id)
        hops.append(FactHop(chunk_id, name, fact, similarity))
        if len(hops) == n:
            break
    return hops


def _near_names(store: Store, name_vector: NDArray[np.float32]) -> list[int]:
    """The entities whose names are among the ``HOP_NAMES`` nearest ``name_vector``, at ``HOP_NAME_SIMILARITY`` or
    closer."""
    found = store.index.knn("entity", name_vector, HOP_NAMES)
    return [eid for eid, distance in found if 1.0 - distance >= HOP_NAME_SIMILARITY]


def _nearest_chunk(store: Store, names: Collection[int], name_vector: NDArray[np.float32]) -> tuple[int, float] | None:
    """(chunk id, cosine) of the chunk nearest ``name_vector`` among those that name any of the entities ``names``."""
    best: tuple[int, float] | None = None
    norm = float(np.linalg.norm(name_vector)) or 1.0
    for chunk_id in store.graph.chunks_naming(names):
        vector = store.index.vector("chunk", chunk_id)
        if vector is None:
            continue
        similarity = float(np.dot(vector, name_vector)) / ((float(np.linalg.norm(vector)) or 1.0) * norm)
        if best is None or similarity > best[1]:
            best = (chunk_id, similarity)
    return best


def add_hops(
    store: Store,
    encoder: Encoder,
    query: str,
    query_vector: NDArray[np.float32],
    ranking: Sequence[tuple[int, float]],
    n: int,
    min_similarity: float = HOP_MIN_SIMILARITY,
) -> tuple[list[tuple[int, float]], list[FactHop]]:
    """``ranking`` with up to ``n`` fact hops after its first ``HOP_AFTER`` hits (:func:`with_hops`), and the hops."""
    skip = [cid for cid, _ in ranking[:HOP_AFTER]]
    found = fact_hops(store, encoder, query, query_vector, n, skip=skip, min_similarity=min_similarity)
    return with_hops(ranking, found), found


def with_hops(
    ranking: Sequence[tuple[int, float]], hops: Sequence[FactHop], after: int = HOP_AFTER
) -> list[tuple[int, float]]:
    """``ranking``'s first ``after`` hits, then the hops' chunks, then the rest of ``ranking`` without them. A hop
    takes the score of the hit before it, so the scores stay in order."""
    if not hops:
        return list(ranking)
    head = list(ranking[:after])
    score = head[-1][1] if head else (ranking[0][1] if ranking else 1.0)
    hop_ids = [h.chunk_id for h in hops if all(h.chunk_id != c for c, _ in head)]
    rest = [(c, s) for c, s in ranking[after:] if c not in hop_ids]
    return head + [(c, score) for c in hop_ids] + rest
