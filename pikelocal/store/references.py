"""The store's side of legal cross-references: citations read from chunks, and what they lead to.

A part of :class:`~pikelocal.store.store.Store` (``store.refs``).

- :meth:`References.read_new` reads every chunk not read yet (new ones, or all of a KB made before schema v6) with
  the grammar of ``pikelocal.legal_refs``: its citations go to ``law_refs``, the articles that begin in it to
  ``law_articles``. One transaction per batch of chunks, so a kill loses at most a batch, and nothing is read twice.
- :meth:`References.resolve` points each citation at its law (a document whose title or file name names it) and
  article (the chunk where that article begins). It runs again after each ingest: a law added later resolves the
  citations made before it, and removing a law sets its citations back to unresolved (``ON DELETE SET NULL``).
- :meth:`References.cited_by` / :meth:`References.resolve_text` are what search and answering follow.

A citation with no law (本法第十条, "s 7") is the citing document's own article. Laws are matched by their names'
keys (``legal_refs.law_keys``); two versions of one law in a KB: the one that has the article, else the one added
last. Traditional and simplified names are not mapped to each other (政府採購法 and 政府采购法 are different laws).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pikelocal.domain.references import LegalRef, RefCounts, StoredRef
from pikelocal.text.legal_refs import article_starts, find_refs, is_law_title, law_keys, name_candidates

if TYPE_CHECKING:
    from pikelocal.store.handle import Db

_BATCH = 500  # chunks read per transaction


@dataclass
class _Laws:
    """Which documents a law's name key leads to (latest added first), and which articles each document has."""

    by_key: dict[str, list[int]]
    articles: dict[tuple[int, str], int]  # (doc_id, article) -> chunk_id
    titles: dict[int, str]
    candidates: dict[str, list[str]] = field(default_factory=dict)  # name_candidates, per cited name

    def keys_of(self, law: str) -> list[str]:
        if law not in self.candidates:
            self.candidates[law] = name_candidates(law)
        return self.candidates[law]


class References:
    def __init__(self, db: Db) -> None:
        self._db = db

    # --- reading chunks ---------------------------------------------------------------------------

    def read_new(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Read every chunk not read yet for citations and article starts; the number read."""
        total = self._count("SELECT count(*) FROM chunks WHERE refs_read IS NULL")
        english = self._english_laws()
        done = 0
        while True:
            rows = self._db.rows(
                "SELECT id, doc_id, text FROM chunks WHERE refs_read IS NULL ORDER BY doc_id, ord LIMIT ?", (_BATCH,)
            )
            if not rows:
                return done
            with self._db.transaction():
                for cid, doc_id, text in rows:
                    self._read_chunk(int(cid), int(doc_id), str(text), english=int(doc_id) in english)
            done += len(rows)
            if progress is not None:
                progress(done, total)

    def _read_chunk(self, chunk_id: int, doc_id: int, text: str, *, english: bool) -> None:
        for r in find_refs(text):
            self._db.execute(
                "INSERT INTO law_refs(chunk_id, char_start, char_end, law, article, detail) VALUES (?, ?, ?, ?, ?, ?)",
                (chunk_id, r.start, r.end, r.law, r.article, r.detail),
            )
        for a in article_starts(text, english=english):
            self._db.execute(
                "INSERT OR IGNORE INTO law_articles(doc_id, article, chunk_id) VALUES (?, ?, ?)",
                (doc_id, a.article, chunk_id),
            )
        self._db.execute("UPDATE chunks SET refs_read = 1 WHERE id = ?", (chunk_id,))

    def _english_laws(self) -> set[int]:
        """Documents that are English Acts (by title): their numbered section headings are article starts."""
        out = set()
        for doc_id, title, path in self._db.rows("SELECT id, title, path FROM documents"):
            name = str(title or os.path.splitext(os.path.basename(str(path)))[0])
            if name.isascii() and any(k.endswith(("act", "code", "regulations", "rules")) for k in law_keys(name)):
                out.add(int(doc_id))
        return out

    # --- resolving --------------------------------------------------------------------------------

    def _laws(self) -> _Laws:
        by_key: dict[str, list[int]] = {}
        titles: dict[int, str] = {}
        for doc_id, title, path in self._db.rows("SELECT id, title, path FROM documents ORDER BY id DESC"):
            stem = os.path.splitext(os.path.basename(str(path)))[0]
            titles[int(doc_id)] = str(title or stem)
            for name in {str(title or ""), stem}:
                if not name or not (is_law_title(name) or name.isascii()):
                    continue
                for key in law_keys(name):
                    docs = by_key.setdefault(key, [])
                    if int(doc_id) not in docs:
                        docs.append(int(doc_id))
        articles = {
            (int(d), str(a)): int(c) for d, a, c in self._db.rows("SELECT doc_id, article, chunk_id FROM law_articles")
        }
        return _Laws(by_key, articles, titles)

    def _target(
        self, laws: _Laws, law: str | None, article: str | None, citing_doc: int | None
    ) -> tuple[int | None, int | None]:
        if law is None:
            if citing_doc is None or article is None:
                return None, None
            chunk = laws.articles.get((citing_doc, article))
            return (citing_doc, chunk) if chunk is not None else (None, None)
        for key in laws.keys_of(law):
            docs = laws.by_key.get(key)
            if not docs:
                continue
            if article is None:
                return docs[0], None
            for d in docs:
                if (d, article) in laws.articles:
                    return d, laws.articles[(d, article)]
            return docs[0], None
        return None, None

    def resolve(self) -> int:
        """Point every citation at its law and article where the KB has them; the number resolved."""
        laws = self._laws()
        rows = self._db.rows(
            "SELECT r.id, r.law, r.article, c.doc_id, r.target_doc, r.target_chunk"
            " FROM law_refs r JOIN chunks c ON c.id = r.chunk_id"
        )
        changes: list[tuple[int | None, int | None, int]] = []
        resolved = 0
        for rid, law, article, doc_id, old_doc, old_chunk in rows:
            doc, chunk = self._target(laws, law, article, int(doc_id))
            resolved += chunk is not None if article is not None else doc is not None
            if (doc, chunk) != (old_doc, old_chunk):
                changes.append((doc, chunk, int(rid)))
        for i in range(0, len(changes), 1000):
            with self._db.transaction():
                self._db.executemany(
                    "UPDATE law_refs SET target_doc = ?, target_chunk = ? WHERE id = ?", changes[i : i + 1000]
                )
        return resolved

    def resolve_text(self, text: str) -> list[tuple[LegalRef, int | None, int | None]]:
        """The citations in ``text`` (a question) with the (document, chunk) each leads to, None where not in the KB.
        A citation with no law is left unresolved: a question has no document of its own."""
        refs = find_refs(text)
        if not any(r.law is not None for r in refs):
            return [(r, None, None) for r in refs]
        laws = self._laws()
        return [(r, *self._target(laws, r.law, r.article, None)) for r in refs]

    # --- reading back -----------------------------------------------------------------------------

    def refs(self, doc_id: int | None = None, chunk_ids: Sequence[int] | None = None) -> list[StoredRef]:
        """Stored citations (of one document, or of some chunks), in document order."""
        sql = (
            "SELECT r.id, r.chunk_id, c.doc_id, r.char_start, r.char_end, r.law, r.article, r.detail,"
            " r.target_doc, r.target_chunk, d.title, d.path,"
            " substr(c.text, r.char_start + 1, r.char_end - r.char_start), c.page_start, t.page_start, c.page_end"
            " FROM law_refs r JOIN chunks c ON c.id = r.chunk_id LEFT JOIN documents d ON d.id = r.target_doc"
            " LEFT JOIN chunks t ON t.id = r.target_chunk"
        )
        params: list[Any] = []
        if doc_id is not None:
            sql += " WHERE c.doc_id = ?"
            params.append(doc_id)
        elif chunk_ids is not None:
            sql += f" WHERE r.chunk_id IN ({','.join('?' * len(chunk_ids))})"
            params += list(chunk_ids)
        sql += " ORDER BY c.doc_id, c.ord, r.char_start"
        out = []
        for row in self._db.rows(sql, params):
            rid, cid, did, s, e, law, article, detail, tdoc, tchunk, title, path, text, page, tpage, page_end = row
            target_title = str(title or os.path.splitext(os.path.basename(str(path)))[0]) if tdoc is not None else None
            ref = LegalRef(int(s), int(e), law, article, str(detail))
            out.append(
                StoredRef(
                    int(rid), int(cid), int(did), ref, str(text), tdoc, tchunk, target_title, page, tpage, page_end
                )
            )
        return out

    def cited_by(self, chunk_ids: Sequence[int], limit: int) -> list[int]:
        """The article chunks that ``chunk_ids`` cite (resolved, outside ``chunk_ids``), in the order of the citing
        chunks, at most ``limit``."""
        if limit <= 0 or not chunk_ids:
            return []
        rows = self._db.rows(
            f"SELECT chunk_id, target_chunk FROM law_refs WHERE target_chunk IS NOT NULL"
            f" AND chunk_id IN ({','.join('?' * len(chunk_ids))}) ORDER BY char_start",
            list(chunk_ids),
        )
        order = {cid: i for i, cid in enumerate(chunk_ids)}
        out: dict[int, None] = {}
        for _, target in sorted(rows, key=lambda r: order[int(r[0])]):
            if int(target) not in order:
                out.setdefault(int(target), None)
        return list(out)[:limit]

    def counts(self) -> RefCounts:
        refs = self._count("SELECT count(*) FROM law_refs")
        resolved = self._count(
            "SELECT count(*) FROM law_refs WHERE (article IS NOT NULL AND target_chunk IS NOT NULL)"
            " OR (article IS NULL AND target_doc IS NOT NULL)"
        )
        articles = self._count("SELECT count(*) FROM law_articles")
        unread = self._count("SELECT count(*) FROM chunks WHERE refs_read IS NULL")
        return RefCounts(refs, resolved, articles, unread)

    def _count(self, sql: str) -> int:
        return int(self._db.rows(sql)[0][0])
