"""What a KB holds, read without models: its documents and failures, its statistics, finding and removing a
document, and whether a path can be a KB at all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pikelocal.domain.documents import DocumentRecord, FailureRecord
from pikelocal.domain.errors import InputError, PikeError
from pikelocal.domain.reports import DocumentStatus, KBStats, Library
from pikelocal.query.retrieve.fusion_tuning import stored_tuning
from pikelocal.store import keys
from pikelocal.store.store import Store


def check_kb_path(path: Path) -> str | None:
    """Why ``path`` cannot be opened or created as a KB, or None when it can."""
    if path.is_dir():
        return f"{path} is a folder; name a file such as {path / 'my.kb'}"
    if not path.exists():
        return None if path.parent.is_dir() else f"{path.parent}: no such folder"
    try:
        Store.open_existing(path).close()
    except PikeError as exc:
        return str(exc)
    return None


def is_encrypted(path: Path) -> bool:
    """Whether ``path`` is an encrypted KB file (read from its header; no key needed)."""
    return keys.file_kind(path) == "encrypted"


def unlock_kb(path: Path, key: str) -> None:
    """Open ``path`` with ``key`` from now on, in this process; a wrong key is a one-line InputError (and is
    forgotten)."""
    keys.remember(path, key)
    try:
        Store.open_existing(path).close()
    except BaseException:
        keys.forget(path)
        raise


def library(kb_path: Path) -> Library:
    with Store.open_existing(kb_path) as store:
        per_doc, atoms = store.chunks.chunk_counts(), store.enrichment.atoms_by_document()
        unpaged = store.chunks.unpaged_documents()
        docs = [
            DocumentStatus(d, per_doc.get(d.id, 0), atoms.get(d.id, {}), paged=d.id not in unpaged)
            for d in store.docs.documents()
        ]
        return Library(docs, store.docs.failures())


def find_document(docs: Sequence[DocumentRecord], ref: str) -> DocumentRecord:
    """A document by id, full path, file name or sha256 prefix (>= 6 characters); ambiguity is an error."""
    ref = ref.strip()
    if ref.isdigit():
        match = [d for d in docs if d.id == int(ref)]
    else:
        full = str(Path(ref).expanduser().resolve()) if ref else ""
        match = [d for d in docs if d.path in (ref, full)]
        match = match or [d for d in docs if Path(d.path).name == ref]
        if not match and len(ref) >= 6:
            match = [d for d in docs if d.sha256.startswith(ref.lower())]
    if not match:
        raise InputError(f"no document '{ref}' in the knowledge base (see `pikelocal docs`)")
    if len(match) > 1:
        ids = ", ".join(f"{d.id} ({d.path})" for d in match[:5])
        raise InputError(f"'{ref}' matches {len(match)} documents: {ids}; give the id")
    return match[0]


def remove(kb_path: Path, ref: str) -> DocumentRecord | FailureRecord:
    """Remove a document with all its rows and vectors (or forget a recorded failure for that path)."""
    with Store.open_existing(kb_path, readonly=False) as store:
        docs = store.docs.documents()
        try:
            doc = find_document(docs, ref)
        except InputError:
            full = str(Path(ref).expanduser().resolve())
            for failure in store.docs.failures():
                if failure.path in (ref, full) or Path(failure.path).name == ref:
                    store.docs.clear_failure(failure.path)
                    return failure
            raise
        store.docs.delete_document(doc.id)
        return doc


def stats(kb_path: Path) -> KBStats:
    """What the KB holds, what enrichment has cost (tokens and time per prompt) and what remains."""
    with Store.open_existing(kb_path) as store:
        counts = store.counts()
        vectors = {k: counts.get(k, 0) for k in ("chunks", "chunk_vectors", "late_vectors")}
        refs, graph = store.refs.counts(), store.graph.counts()
        layers = {
            "documents": counts["documents"],
            "sections": store.chunks.section_count(),
            "chunks": counts["chunks"],
            "tables": counts["doc_tables"],
            "atomic questions": counts["questions"],
            "entities": graph["entities"],
            "triples": graph["triples"],
            "synonym edges": graph["synonyms"],
            "summary nodes": store.summaries.counts()["done"],
            "citations": refs.refs,
            "citations resolved": refs.resolved,
        }
        return KBStats(
            kb_path,
            store.enrichment.enrichment_counts(),
            store.cache.llm_usage(),
            store.enrichment.enrich_failures(),
            vectors,
            refs,
            layers,
            stored_tuning(store),
        )
