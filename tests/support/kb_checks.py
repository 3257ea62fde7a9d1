"""What the hostile-input tests (the fuzz suite, the full disk) check of a KB after a run: SQLite's integrity check,
no two documents with one sha256 and no two chunks of a document at one position."""

from __future__ import annotations

from pathlib import Path

from pikelocal.store.store import Store


def duplicates(kb: Path) -> list[str]:
    with Store.open_existing(kb) as store:
        problems = store.integrity_check()
        docs = store.docs.documents()
        if len({d.sha256 for d in docs}) != len(docs):
            problems.append("two documents with one sha256")
        for d in docs:
            ords = [c.ord for c in store.chunks.chunks_of(d.id)]
            if len(ords) != len(set(ords)):
                problems.append(f"document {d.id} has two chunks at one position")
    return problems
