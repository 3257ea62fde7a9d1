"""The store's side of the summary trees: summary nodes, the chunks below each, their vectors and FTS rows.

A part of :class:`~pikelocal.store.store.Store` (``store.summaries``). The tree builder (``ingest/enrich/trees.py``)
plans the nodes a KB should have, each with a ``key`` naming what it summarises; :meth:`Summaries.sync` makes the table
match the plan, keeping nodes whose key is unchanged (their summary stays) and dropping the rest, so a rebuilt or
resumed tree repeats nothing. Each summary is then saved on its own (:meth:`Summaries.save`), with its vector and
FTS row, so a killed build resumes at the next node. Removing a document removes its nodes (``ON DELETE CASCADE``)
and every corpus-level node that covered it (:meth:`Summaries.drop_covering`): their text speaks of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from pikelocal.domain.documents import SummaryNode, SummaryPlan
from pikelocal.store import vectors
from pikelocal.store.fts import normalize_for_index

if TYPE_CHECKING:
    from pikelocal.store.handle import Db

_NODE_COLS = "id, doc_id, kind, level, key, label, parent_id, status, summary, error"


def _node(row: tuple[object, ...]) -> SummaryNode:
    i, doc, kind, level, key, label, parent, status, summary, error = row
    return SummaryNode(
        id=int(i),  # type: ignore[call-overload]
        doc_id=None if doc is None else int(doc),  # type: ignore[call-overload]
        kind=str(kind),  # type: ignore[arg-type]
        level=int(level),  # type: ignore[call-overload]
        key=str(key),
        label=str(label),
        parent_id=None if parent is None else int(parent),  # type: ignore[call-overload]
        status=str(status),
        summary=None if summary is None else str(summary),
        error=None if error is None else str(error),
    )


class Summaries:
    def __init__(self, db: Db) -> None:
        self._db = db

    # --- writing ------------------------------------------------------------------------------------

    def sync(self, plans: Sequence[SummaryPlan], *, doc_id: int | None, prune: bool = True) -> dict[str, int]:
        """Make the nodes of one scope (a document's, or the corpus level's with ``doc_id`` None) those of ``plans``
        (parents are linked by key); their ids by key. Nodes whose key is in the plan are kept with their summary;
        the others go (with ``prune``; without, a tree planned level by level keeps its higher levels meanwhile)."""
        with self._db.transaction():
            have = {
                str(k): int(i)
                for i, k in self._db.rows("SELECT id, key FROM summary_nodes WHERE doc_id IS ?", (doc_id,))
            }
            wanted = {p.key for p in plans}
            for key, nid in have.items():
                if prune and key not in wanted:
                    self._db.execute("DELETE FROM summary_nodes WHERE id = ?", (nid,))
            ids: dict[str, int] = {}
            for p in plans:
                if p.key in have:
                    ids[p.key] = have[p.key]
                    continue
                nid = self._db.insert(
                    "INSERT INTO summary_nodes(doc_id, kind, level, key, label) VALUES (?, ?, ?, ?, ?)",
                    (doc_id, p.kind, p.level, p.key, p.label),
                )
                ids[p.key] = nid
                self._db.executemany(
                    "INSERT OR IGNORE INTO summary_chunks(node_id, chunk_id) VALUES (?, ?)",
                    [(nid, int(c)) for c in p.chunk_ids],
                )
            for p in plans:
                if p.parent_key:
                    self._db.execute(
                        "UPDATE summary_nodes SET parent_id = ? WHERE id = ?", (ids.get(p.parent_key), ids[p.key])
                    )
        return ids

    def set_parent(self, node_ids: Sequence[int], parent_id: int) -> None:
        """Link nodes to the cluster above them (a corpus-level cluster's parts may be other documents' nodes)."""
        with self._db.transaction():
            self._db.executemany(
                "UPDATE summary_nodes SET parent_id = ? WHERE id = ?", [(parent_id, int(n)) for n in node_ids]
            )

    def save(self, node_id: int, *, summary: str | None, vector: ArrayLike | None = None, error: str = "") -> bool:
        """A node's summary with its vector and FTS row (or its failure); False when the node is gone meanwhile."""
        with self._db.transaction():
            if not self._db.rows("SELECT 1 FROM summary_nodes WHERE id = ?", (node_id,)):
                return False
            self._db.execute("DELETE FROM summary_vectors WHERE rowid = ?", (node_id,))
            self._db.execute("DELETE FROM summaries_fts WHERE rowid = ?", (node_id,))
            if summary is None:
                self._db.execute(
                    "UPDATE summary_nodes SET status = 'failed', summary = NULL, error = ? WHERE id = ?",
                    (error or "failed", node_id),
                )
                return True
            self._db.execute(
                "UPDATE summary_nodes SET status = 'done', summary = ?, error = NULL WHERE id = ?", (summary, node_id)
            )
            self._db.execute(
                "INSERT INTO summaries_fts(rowid, text) VALUES (?, ?)", (node_id, normalize_for_index(summary))
            )
            if vector is not None:
                vec = np.asarray(vector, dtype=np.float32)
                self._db.execute(
                    "INSERT INTO summary_vectors(rowid, embedding) VALUES (?, ?)",
                    (node_id, vectors.float32_blob(vec)),
                )
        return True

    def drop_covering(self, doc_id: int) -> int:
        """Remove the corpus-level nodes (and so their ancestors' claim) that cover a chunk of ``doc_id``."""
        with self._db.transaction():
            rows = self._db.rows(
                "SELECT DISTINCT n.id FROM summary_nodes n JOIN summary_chunks s ON s.node_id = n.id"
                " JOIN chunks c ON c.id = s.chunk_id WHERE n.doc_id IS NULL AND c.doc_id = ?",
                (doc_id,),
            )
            for (nid,) in rows:
                self._db.execute("DELETE FROM summary_nodes WHERE id = ?", (int(nid),))
        return len(rows)

    # --- reading ------------------------------------------------------------------------------------

    def nodes(self, doc_id: int | None = None, *, corpus: bool = False) -> list[SummaryNode]:
        """The nodes of one document, of the corpus level (``corpus``), or all; by level, then id."""
        if corpus:
            rows = self._db.rows(f"SELECT {_NODE_COLS} FROM summary_nodes WHERE doc_id IS NULL ORDER BY level, id")
        elif doc_id is not None:
            rows = self._db.rows(
                f"SELECT {_NODE_COLS} FROM summary_nodes WHERE doc_id = ? ORDER BY level, id", (doc_id,)
            )
        else:
            rows = self._db.rows(f"SELECT {_NODE_COLS} FROM summary_nodes ORDER BY level, id")
        return [_node(r) for r in rows]

    def get(self, ids: Sequence[int]) -> list[SummaryNode]:
        """Nodes by id, in the order of ``ids`` (unknown ids skipped)."""
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        found = {
            n.id: n
            for n in map(
                _node, self._db.rows(f"SELECT {_NODE_COLS} FROM summary_nodes WHERE id IN ({marks})", tuple(ids))
            )
        }
        return [found[i] for i in ids if i in found]

    def children(self, node_id: int) -> list[SummaryNode]:
        rows = self._db.rows(f"SELECT {_NODE_COLS} FROM summary_nodes WHERE parent_id = ? ORDER BY id", (node_id,))
        return [_node(r) for r in rows]

    def chunk_ids(self, node_id: int) -> list[int]:
        """Every chunk below a node, in document order."""
        rows = self._db.rows(
            "SELECT c.id FROM summary_chunks s JOIN chunks c ON c.id = s.chunk_id WHERE s.node_id = ?"
            " ORDER BY c.doc_id, c.ord",
            (node_id,),
        )
        return [int(r[0]) for r in rows]

    def pending(self) -> list[SummaryNode]:
        """Nodes still without a summary (failed ones are retried by a later build), lowest level first."""
        rows = self._db.rows(f"SELECT {_NODE_COLS} FROM summary_nodes WHERE status != 'done' ORDER BY level, id")
        return [_node(r) for r in rows]

    def vector(self, node_id: int) -> np.ndarray | None:
        rows = self._db.rows("SELECT embedding FROM summary_vectors WHERE rowid = ?", (node_id,))
        return np.frombuffer(rows[0][0], dtype=np.float32).copy() if rows else None

    def without_vectors(self, limit: int = 256) -> list[tuple[int, str]]:
        """(id, summary) of done nodes with no vector (after ``reembed`` dropped them)."""
        rows = self._db.rows(
            "SELECT id, summary FROM summary_nodes WHERE status = 'done'"
            " AND id NOT IN (SELECT rowid FROM summary_vectors) ORDER BY id LIMIT ?",
            (int(limit),),
        )
        return [(int(i), str(s)) for i, s in rows]

    def counts(self) -> dict[str, int]:
        rows = self._db.rows("SELECT status, count(*) FROM summary_nodes GROUP BY status")
        by = {str(s): int(n) for s, n in rows}
        return {"nodes": sum(by.values()), "done": by.get("done", 0), "failed": by.get("failed", 0)}
