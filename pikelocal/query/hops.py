"""Fact hops (issue 20): the second hop of a multi-hop question, through the entity graph's facts.

"Where was the director of film X born?" names X, and search finds X's passage ("X is a 1943 film directed by Y"),
but not Y's: the question never names Y. Among the triples nearest the question's vector (the KB's facts, embedded
after enrichment, schema 9; HippoRAG 2's fact retrieval) is (X, directed by, Y). Each end of those triples that
the question does not name (Y) is searched for as a query of its own, and the chunk nearest it, when it is close
enough (``HOP_MIN_SIMILARITY``, so that "1828" or "the film" leads nowhere), is the passage about Y. Search puts
up to ``search.hops`` such chunks right after the fused ranking's first ``HOP_AFTER`` hits (:func:`with_hops`).

No LLM call: one encoder call for the ends' names and one vector lookup per end, nearest triple first, until
``n`` hops are found. A KB without triple vectors (not enriched with ``enrich.entities``) has no hops.

Measured on the enriched pooled 2Wiki-50 and HotpotQA-50 KBs (docs/BENCHMARKS.md, "Fact hops"): hybrid R@5
0.740 -> 0.900 on 2Wiki with HotpotQA not lower; chosen there, then checked on 50 other questions of each set.
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
    does not name, nearest triple first, the chunk nearest the end's name, if at least ``min_similarity`` close
    and not in ``skip`` (the hits already above where the hops go) or already a hop."""
    if n <= 0 or facts <= 0:
        return []
    nearest = [tid for tid, _ in store.index.knn("triple", query_vector, facts)]
    if not nearest:
        return []
    by_id = store.graph.facts(nearest)
    named = set(store.graph.entities_named_in(query))
    ends: list[tuple[int, str, Fact]] = []  # (entity id, name, the fact it ends)
    for tid in nearest:
        fact = by_id.get(tid)
        if fact is None:
            continue
        for eid, name in ((fact.subject_id, fact.subject), (fact.object_id, fact.object)):
            if eid not in named and all(eid != e for e, _, _ in ends):
                ends.append((eid, name, fact))
    if not ends:
        return []
    vectors = encoder.encode([name for _, name, _ in ends], role="query")
    hops: list[FactHop] = []
    taken = set(skip)
    for (_, name, fact), vector in zip(ends, vectors, strict=True):
        found = store.index.knn("chunk", vector, 1)
        if not found:
            continue
        chunk_id, distance = found[0]
        if chunk_id in taken or 1.0 - distance < min_similarity:
            continue
        taken.add(chunk_id)
        hops.append(FactHop(chunk_id, name, fact, 1.0 - distance))
        if len(hops) == n:
            break
    return hops


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
