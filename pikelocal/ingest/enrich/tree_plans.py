"""A document's section tree planned from its chunks' section paths (no LLM, no vectors): which sections get a
summary node, their parents, levels and keys (``ingest/enrich/trees.py`` stores and summarises them).

One node per section that holds at least two chunks; a section whose chunks are exactly those of one of its
subsections is that subsection; a root for the document (unless one section is the whole of it); a section with
more than ``MAX_PARTS`` parts of its own reads its chunks in runs of ``CLUSTER_SIZE``. A key names what a node
summarises (its label and chunks), so a rebuilt plan keeps the nodes already summarised.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pikelocal.domain.documents import ChunkRecord, DocumentRecord, SummaryPlan
from pikelocal.ingest.split.context import SECTION_SEPARATOR

CLUSTER_SIZE = 6  # parts a node reads: chunks of a run or a cluster, or nodes of a cluster
MAX_PARTS = 12  # a section with more parts than this reads its own chunks in runs


def node_key(prefix: str, label: str, members: Sequence[object]) -> str:
    digest = hashlib.sha1(json.dumps([label, list(members)], ensure_ascii=False).encode()).hexdigest()[:20]
    return f"{prefix}:{digest}"


@dataclass
class _Draft:
    path: tuple[str, ...]
    label: str
    members: list[int]  # chunk ids below, in document order
    key: str = ""
    parent: _Draft | None = None
    children: list[_Draft] = field(default_factory=list)

    def level(self) -> int:
        return 1 + max((c.level() for c in self.children), default=0)


def section_plans(doc: DocumentRecord, chunks: Sequence[ChunkRecord]) -> list[SummaryPlan]:
    """The section tree of one document, root last; empty when its structure is not usable (fewer than two
    sections of two chunks or more, or sections that cover under half of its chunks)."""
    ordered = sorted(chunks, key=lambda c: c.ord)
    below: dict[tuple[str, ...], list[int]] = {}
    for c in ordered:
        for depth in range(1, len(c.section_path) + 1):
            below.setdefault(tuple(c.section_path[:depth]), []).append(c.id)
    sections = {p: ids for p, ids in below.items() if len(ids) >= 2}
    # a section whose chunks are exactly those of one of its subsections is that subsection
    kept = {
        p: ids
        for p, ids in sections.items()
        if not any(len(q) > len(p) and q[: len(p)] == p and sections[q] == ids for q in sections)
    }
    covered = {cid for ids in kept.values() for cid in ids}
    if len(kept) < 2 or 2 * len(covered) < len(ordered):
        return []
    title = doc.title or Path(doc.path).name
    root = _Draft((), title, [c.id for c in ordered])
    drafts = {p: _Draft(p, SECTION_SEPARATOR.join(p), ids) for p, ids in kept.items()}
    for p, d in sorted(drafts.items(), key=lambda kv: len(kv[0])):
        parent = next((drafts[p[:n]] for n in range(len(p) - 1, 0, -1) if p[:n] in drafts), root)
        d.parent = parent
        parent.children.append(d)
    if len(root.children) == 1 and root.children[0].members == root.members:  # one section is the whole document
        root = root.children[0]
        root.parent = None
    everything = [root, *(d for d in drafts.values() if d is not root and _under(d, root))]
    for d in list(everything):
        everything.extend(_runs(d))
    for d in sorted(everything, key=lambda d: -d.level()):  # children's keys first: a parent's key names them
        d.key = node_key(f"s{doc.id}", d.label, d.members)
    return [
        SummaryPlan(
            key=d.key,
            kind="section",
            level=d.level(),
            label=d.label,
            chunk_ids=tuple(d.members),
            parent_key=d.parent.key if d.parent else None,
        )
        for d in sorted(everything, key=lambda d: d.level())
    ]


def _under(d: _Draft, root: _Draft) -> bool:
    while d.parent is not None:
        d = d.parent
    return d is root


def _runs(d: _Draft) -> list[_Draft]:
    """Runs of ``CLUSTER_SIZE`` consecutive chunks for a section with too many parts of its own."""
    inside = {cid for c in d.children for cid in c.members}
    own = [cid for cid in d.members if cid not in inside]
    if len(own) + len(d.children) <= MAX_PARTS or len(own) <= CLUSTER_SIZE:
        return []
    pieces = [own[i : i + CLUSTER_SIZE] for i in range(0, len(own), CLUSTER_SIZE)]
    runs = []
    for n, piece in enumerate(pieces, 1):
        if len(piece) < 2:
            continue
        run = _Draft(d.path, f"{d.label} ({n}/{len(pieces)})", piece, parent=d)
        d.children.append(run)
        runs.append(run)
    return runs
