"""The store's side of the entity graph: entities, chunk↔entity links, triples and synonym edges.

A part of :class:`~pikelocal.store.store.Store` (``store.graph``). The enrichment call's entities and
subject–relation–object triples (``prompts/atomize.py`` with entities on) are written with the chunk's questions,
in the same transaction (:meth:`Graph.put_chunk`). One node per distinct name: names are matched by
:func:`entity_key` (NFKC, case and spacing folded). Each new entity's name vector goes to ``entity_vectors``;
:meth:`Graph.link_synonyms` adds an edge between entities whose name vectors are close (HippoRAG's synonymy
edges), once per entity. Removing a chunk removes its links and triples (``ON DELETE CASCADE``);
:meth:`Graph.prune` then drops entities no chunk mentions.

Every write bumps ``kb_meta.graph_version``, so a reader can cache the graph's matrix until it changes.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pikelocal.domain.search import Fact
from pikelocal.text.entity_names import entity_key, name_pieces

if TYPE_CHECKING:
    from pikelocal.store.handle import Db
    from pikelocal.store.index import SearchIndex

GRAPH_VERSION = "graph_version"
# The longest key a name can have: the enrichment call's names are at most 40 characters (prompts/atomize.py), and
# NFKC seldom lengthens one; twice that leaves room.
MAX_KEY_CHARS = 80
HUB_CHUNKS = 50  # an entity named in more chunks than this is a hub: it links no two chunks for a one-hop step


@dataclass(frozen=True)
class GraphEdges:
    """The graph's edges as arrays, for building its sparse matrix: chunk↔entity mentions, entity↔entity triples
    (one row per triple), and synonym pairs with their similarity."""

    entity_ids: NDArray[np.int64]  # every entity, ascending
    chunk_ids: NDArray[np.int64]  # every chunk that mentions an entity, ascending
    mentions: NDArray[np.int64]  # (m, 2): chunk id, entity id
    relations: NDArray[np.int64]  # (t, 2): subject id, object id
    synonyms: NDArray[np.float64]  # (s, 3): entity id, entity id, similarity


def fact_text(subject: str, relation: str, obj: str) -> str:
    """A triple as the one line its vector embeds (HippoRAG 2 encodes facts so): words joined by spaces."""
    return " ".join(part.strip() for part in (subject, relation, obj) if part.strip())


class Graph:
    def __init__(self, db: Db, index: SearchIndex) -> None:
        self._db = db
        self._index = index  # entity name vectors, and the nearest names for synonyms

    # --- writing (inside the caller's transaction) ----------------------------------------------------

    def put_chunk(
        self,
        chunk_id: int,
        entities: Sequence[str],
        triples: Sequence[tuple[str, str, str]],
        vectors: ArrayLike | None = None,
    ) -> None:
        """Replace a chunk's entity links and triples. ``vectors`` (one row per name of ``entities``) give the name
        vectors of the entities new to the KB. Triples' subjects and objects must be among ``entities``."""
        self._db.execute("DELETE FROM chunk_entities WHERE chunk_id = ?", (chunk_id,))
        self._db.execute("DELETE FROM triples WHERE chunk_id = ?", (chunk_id,))
        ids: dict[str, int] = {}
        rows = np.asarray(vectors, dtype=np.float32) if vectors is not None else None
        for i, name in enumerate(entities):
            key = entity_key(name)
            if not key or key in ids:
                continue
            found = self._db.rows("SELECT id FROM entities WHERE key = ?", (key,))
            if found:
                ids[key] = int(found[0][0])
            else:
                ids[key] = self._db.insert("INSERT INTO entities(name, key) VALUES (?, ?)", (name, key))
                if rows is not None:
                    self._index.put_vectors("entity", [ids[key]], rows[i : i + 1])
            self._db.execute(
                "INSERT OR IGNORE INTO chunk_entities(chunk_id, entity_id) VALUES (?, ?)", (chunk_id, ids[key])
            )
        for subject, relation, obj in triples:
            s, o = ids.get(entity_key(subject)), ids.get(entity_key(obj))
            if s is not None and o is not None and s != o:
                self._db.execute(
                    "INSERT INTO triples(chunk_id, subject, relation, object) VALUES (?, ?, ?, ?)",
                    (chunk_id, s, relation, o),
                )
        self._db.execute("UPDATE chunks SET entities_read = 1 WHERE id = ?", (chunk_id,))
        self._bump()

    def _bump(self) -> None:
        self._db.execute(
            "INSERT INTO kb_meta(key, value) VALUES (?, '1')"
            " ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
            (GRAPH_VERSION,),
        )

    def link_synonyms(self, threshold: float, k: int = 5) -> int:
        """Synonym edges for entities not linked yet: each to its ``k`` nearest names by vector with cosine ≥
        ``threshold``; the number of new edges."""
        todo = [int(r[0]) for r in self._db.rows("SELECT id FROM entities WHERE linked IS NULL")]
        added = 0
        for start in range(0, len(todo), 500):
            batch = todo[start : start + 500]
            with self._db.transaction():
                for eid in batch:
                    vector = self._index.vector("entity", eid)
                    near = self._index.knn("entity", vector, k + 1) if vector is not None else []
                    for other, distance in near:
                        if other != eid and 1.0 - distance >= threshold:
                            added += self._db.execute(
                                "INSERT OR IGNORE INTO entity_synonyms(a, b, similarity) VALUES (?, ?, ?)",
                                (min(eid, other), max(eid, other), 1.0 - distance),
                            )
                    self._db.execute("UPDATE entities SET linked = 1 WHERE id = ?", (eid,))
                if batch:
                    self._bump()
        return added

    def prune(self, *, changed: bool = False) -> int:
        """Drop entities no chunk mentions (their chunks were removed); the number dropped. ``changed``: the
        caller removed links, so the graph's version moves even when no entity goes."""
        with self._db.transaction():
            gone = [
                int(r[0])
                for r in self._db.rows("SELECT id FROM entities WHERE id NOT IN (SELECT entity_id FROM chunk_entities)")
            ]
            for eid in gone:
                self._db.execute("DELETE FROM entities WHERE id = ?", (eid,))
            if gone or changed:
                self._bump()
        return len(gone)

    def without_vectors(self, limit: int = 256) -> list[tuple[int, str]]:
        """(id, name) of entities that have no name vector (after ``reembed`` dropped them)."""
        rows = self._db.rows(
            "SELECT id, name FROM entities WHERE id NOT IN (SELECT rowid FROM entity_vectors) ORDER BY id LIMIT ?",
            (int(limit),),
        )
        return [(int(i), str(n)) for i, n in rows]

    def triples_without_vectors(self, limit: int = 256) -> list[tuple[int, str]]:
        """(id, text) of triples that have no vector yet: the enrichment's loose-ends step and ``reembed`` embed
        them. The text is the fact as one line, "subject relation object" (:func:`fact_text`)."""
        rows = self._db.rows(
            "SELECT t.id, s.name, t.relation, o.name FROM triples t JOIN entities s ON s.id = t.subject"
            " JOIN entities o ON o.id = t.object"
            " WHERE t.id NOT IN (SELECT rowid FROM triple_vectors) ORDER BY t.id LIMIT ?",
            (int(limit),),
        )
        return [(int(i), fact_text(str(a), str(b), str(c))) for i, a, b, c in rows]

    # --- reading ----------------------------------------------------------------------------------

    def version(self) -> int:
        found = self._db.rows("SELECT value FROM kb_meta WHERE key = ?", (GRAPH_VERSION,))
        return int(found[0][0]) if found else 0

    def edges(self) -> GraphEdges:
        def ints(sql: str, width: int) -> NDArray[np.int64]:
            rows = self._db.rows(sql)
            return np.asarray(rows, dtype=np.int64).reshape(-1, width)

        entity_ids = ints("SELECT id FROM entities ORDER BY id", 1).ravel()
        chunk_ids = ints("SELECT DISTINCT chunk_id FROM chunk_entities ORDER BY chunk_id", 1).ravel()
        mentions = ints("SELECT chunk_id, entity_id FROM chunk_entities", 2)
        relations = ints("SELECT subject, object FROM triples", 2)
        synonyms = np.asarray(self._db.rows("SELECT a, b, similarity FROM entity_synonyms"), dtype=np.float64)
        return GraphEdges(entity_ids, chunk_ids, mentions, relations, synonyms.reshape(-1, 3))

    def entities_named_in(self, text: str, min_chars: int = 2) -> list[int]:
        """Entities whose name occurs in ``text`` (the question's own mentions) by whole units
        (``entity_names``: 'red' is not named in "Where did"): every run of the text's units whose key is
        ``min_chars`` to ``MAX_KEY_CHARS`` long, looked up in the key index (a scan of every name took 35 ms at
        150k entities)."""
        pieces = name_pieces(text, max(1, min_chars), MAX_KEY_CHARS)
        if not pieces:
            return []
        rows = self._db.rows(
            "SELECT id FROM entities WHERE key IN (SELECT value FROM json_each(?)) ORDER BY id",
            (json.dumps(sorted(pieces), ensure_ascii=False),),
        )
        return [int(r[0]) for r in rows]

    def neighbours(
        self, chunk_id: int, n: int, *, exclude: Collection[int] = (), max_chunks: int = HUB_CHUNKS
    ) -> list[tuple[int, str]]:
        """Up to ``n`` chunks one hop from ``chunk_id`` through an entity they share, as (chunk id, the rarest shared
        entity's name): ranked by the sum over shared entities of 1 / (chunks naming it), so a rare name links more
        than a common one. Entities named in more than ``max_chunks`` chunks (hubs: a country, 'the purchaser')
        link nothing."""
        if n <= 0:
            return []
        rows = self._db.rows(
            "WITH mine AS (SELECT entity_id FROM chunk_entities WHERE chunk_id = ?1),"
            " df AS (SELECT entity_id, count(*) AS n FROM chunk_entities"
            "        WHERE entity_id IN (SELECT entity_id FROM mine) GROUP BY entity_id HAVING count(*) <= ?2)"
            " SELECT ce.chunk_id, sum(1.0 / df.n) AS w, min(df.n) AS rarest,"
            "        (SELECT e.name FROM df d2 JOIN entities e ON e.id = d2.entity_id"
            "         JOIN chunk_entities c2 ON c2.entity_id = d2.entity_id AND c2.chunk_id = ce.chunk_id"
            "         ORDER BY d2.n, e.id LIMIT 1) AS name"
            " FROM chunk_entities ce JOIN df ON df.entity_id = ce.entity_id"
            " WHERE ce.chunk_id != ?1 GROUP BY ce.chunk_id ORDER BY w DESC, ce.chunk_id LIMIT ?3",
            (chunk_id, max_chunks, n + len(exclude)),
        )
        skip = set(exclude)
        return [(int(c), str(name)) for c, _, _, name in rows if int(c) not in skip][:n]

    def synonyms_of(self, entity_id: int) -> list[int]:
        """The entities joined to ``entity_id`` by a synonym edge (:meth:`link_synonyms`), ascending."""
        rows = self._db.rows(
            "SELECT b FROM entity_synonyms WHERE a = ?1 UNION SELECT a FROM entity_synonyms WHERE b = ?1 ORDER BY 1",
            (entity_id,),
        )
        return [int(r[0]) for r in rows]

    def chunks_naming(self, entity_ids: Collection[int], max_chunks: int = HUB_CHUNKS) -> list[int]:
        """The chunks that mention any of ``entity_ids``, ascending, leaving out the entities named in more than
        ``max_chunks`` chunks (hubs)."""
        if not entity_ids:
            return []
        rows = self._db.rows(
            "SELECT DISTINCT chunk_id FROM chunk_entities WHERE entity_id IN (SELECT entity_id FROM chunk_entities"
            f" WHERE entity_id IN ({','.join('?' * len(entity_ids))}) GROUP BY entity_id HAVING count(*) <= ?)"
            " ORDER BY chunk_id",
            [*(int(e) for e in entity_ids), max_chunks],
        )
        return [int(r[0]) for r in rows]

    def facts(self, triple_ids: Sequence[int]) -> dict[int, Fact]:
        """Triple id -> the triple with its ends' ids and names."""
        if not triple_ids:
            return {}
        rows = self._db.rows(
            "SELECT t.id, t.subject, s.name, t.relation, t.object, o.name FROM triples t"
            " JOIN entities s ON s.id = t.subject JOIN entities o ON o.id = t.object"
            f" WHERE t.id IN ({','.join('?' * len(triple_ids))})",
            [int(t) for t in triple_ids],
        )
        return {int(i): Fact(int(i), int(a), str(an), str(r), int(b), str(bn)) for i, a, an, r, b, bn in rows}

    def names(self, entity_ids: Sequence[int]) -> dict[int, str]:
        if not entity_ids:
            return {}
        rows = self._db.rows(
            f"SELECT id, name FROM entities WHERE id IN ({','.join('?' * len(entity_ids))})", list(entity_ids)
        )
        return {int(i): str(n) for i, n in rows}

    def chunk_entities(self, chunk_id: int) -> list[str]:
        rows = self._db.rows(
            "SELECT e.name FROM chunk_entities ce JOIN entities e ON e.id = ce.entity_id WHERE ce.chunk_id = ?"
            " ORDER BY e.id",
            (chunk_id,),
        )
        return [str(r[0]) for r in rows]

    def triples_of(self, chunk_id: int) -> list[tuple[str, str, str]]:
        rows = self._db.rows(
            "SELECT s.name, t.relation, o.name FROM triples t JOIN entities s ON s.id = t.subject"
            " JOIN entities o ON o.id = t.object WHERE t.chunk_id = ? ORDER BY t.id",
            (chunk_id,),
        )
        return [(str(a), str(b), str(c)) for a, b, c in rows]

    def counts(self) -> dict[str, int]:
        def count(sql: str) -> int:
            return int(self._db.rows(sql)[0][0])

        return {
            "entities": count("SELECT count(*) FROM entities"),
            "triples": count("SELECT count(*) FROM triples"),
            "synonyms": count("SELECT count(*) FROM entity_synonyms"),
            "triples_with_vectors": count("SELECT count(*) FROM triple_vectors"),
            "chunks_with_entities": count("SELECT count(*) FROM chunks WHERE entities_read IS NOT NULL"),
        }
