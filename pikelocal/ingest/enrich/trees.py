"""Summary trees (RAPTOR and the section hierarchy): nodes that summarise the chunks below them, bottom up.

- **A document with structure** (the splitter's section paths, 第X章 › 第X节 › …): one node per section that holds
  at least two chunks (a section whose only part is a subsection with the same chunks is that subsection), and a
  root for the document. A section with many chunks of its own reads them in runs of ``CLUSTER_SIZE``.
- **A document without usable structure**: RAPTOR. Its chunk vectors are grouped by k-means
  (``ingest/enrich/clusters``), each group is summarised, the summaries' vectors are grouped again, level by level, up
to one root.
- **Across documents** (two or more): the same over each document's top nodes (or, for a document too short for a
  tree, its chunks), with ``doc_id`` NULL.

A node's summary is written from its parts: its child nodes' summaries and its own chunks' text, within
``NODE_INPUT_CHARS``. Nodes are planned with a key naming what they summarise, stored (``store.summaries.sync``)
before any LLM call and summarised level by level, each committed on its own, so a killed build resumes at the next
node and the cache answers any prompt asked before. ``budget`` bounds the summaries written in one run.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from pikelocal.domain.documents import ChunkRecord, DocumentRecord, SummaryNode, SummaryPlan
from pikelocal.domain.events import EventSink, Notice, StageAdvanced, StageFinished, StageStarted, ignore
from pikelocal.domain.reports import StageCost
from pikelocal.embed.base import Encoder
from pikelocal.ingest.enrich.clusters import group
from pikelocal.ingest.enrich.tree_plans import CLUSTER_SIZE, node_key, section_plans
from pikelocal.llm.base import LLM
from pikelocal.prompts.base import PromptJob, PromptResult, charge, run_prompts
from pikelocal.prompts.summarize import NODE_INPUT_CHARS, SUMMARIZE_NODE
from pikelocal.store.store import Store
from pikelocal.text.lang import detect_lang

MIN_CHUNKS = 3  # a document with fewer chunks has no tree of its own: its chunks join the corpus level
MIN_PART_CHARS = 80  # each part is cut to its share of NODE_INPUT_CHARS, never below this


@dataclass(frozen=True)
class _Item:
    """A part a RAPTOR level groups: a node (``node_id``) or a chunk."""

    ref: str  # "n<id>" or "c<id>": what a cluster's key names
    node_id: int | None
    chunk_ids: tuple[int, ...]
    vector: NDArray[np.float32]
    level: int  # 0: a chunk


@dataclass
class TreeReport:
    nodes: int = 0  # summaries written this run
    failed: int = 0
    cost: StageCost = field(default_factory=StageCost)
    failures: list[str] = field(default_factory=list)


class TreeBuilder:
    def __init__(
        self,
        store: Store,
        encoder: Encoder,
        llm: LLM,
        sink: EventSink = ignore,
        *,
        budget: int | None = None,
    ) -> None:
        self.store, self.encoder, self.llm, self.sink, self.budget = store, encoder, llm, sink, budget
        self.report = TreeReport()
        self._t0 = 0.0

    def run(self, doc_ids: Sequence[int] | None = None) -> TreeReport:
        """Plan and summarise the trees of ``doc_ids`` (all documents by default), then the corpus level."""
        self._t0 = time.perf_counter()
        self.sink(StageStarted("trees", len(self.store.summaries.pending()), "nodes"))
        docs = [d for d in self.store.docs.documents() if doc_ids is None or d.id in doc_ids]
        for doc in docs:
            if self._spent():
                break
            chunks = self.store.chunks.chunks_of(doc.id)
            if len(chunks) < MIN_CHUNKS:
                continue
            plans = section_plans(doc, chunks)
            if plans:
                self.store.summaries.sync(plans, doc_id=doc.id)
                self._summarize(self._pending(doc.id), doc.title or Path(doc.path).name)
            else:
                items = [self._chunk_item(c) for c in chunks]
                self._raptor(doc.id, doc.title or Path(doc.path).name, [i for i in items if i is not None])
        all_docs = self.store.docs.documents()
        if len(all_docs) >= 2 and not self._spent():
            self._raptor(None, "", self._corpus_items(all_docs))
        self.report.cost.seconds += time.perf_counter() - self._t0
        self.sink(StageFinished("trees", self.report.nodes, time.perf_counter() - self._t0))
        return self.report

    # --- RAPTOR levels ---

    def _raptor(self, doc_id: int | None, title: str, items: list[_Item]) -> None:
        plans: list[SummaryPlan] = []
        scope = f"c{doc_id}" if doc_id is not None else "c*"
        while len(items) > 1 and not self._spent():
            level = max(i.level for i in items) + 1
            groups = group(np.stack([i.vector for i in items]), CLUSTER_SIZE)
            if all(len(g) == 1 for g in groups):  # nothing to join (cannot happen with more than one item)
                break
            made: list[tuple[SummaryPlan, list[_Item]]] = []
            passed: list[_Item] = []
            for g in groups:
                parts = [items[k] for k in g]
                if len(parts) == 1:
                    passed.append(parts[0])
                    continue
                label = f"{title or 'KB'} › {level}.{len(made) + 1}" if title else f"{level}.{len(made) + 1}"
                chunk_ids = tuple(dict.fromkeys(c for p in parts for c in p.chunk_ids))
                plan = SummaryPlan(
                    key=node_key(scope, label, [p.ref for p in parts]),
                    kind="cluster",
                    level=max(p.level for p in parts) + 1,
                    label=label,
                    chunk_ids=chunk_ids,
                )
                made.append((plan, parts))
            plans.extend(p for p, _ in made)
            ids = self.store.summaries.sync(plans, doc_id=doc_id, prune=False)
            for plan, parts in made:
                self.store.summaries.set_parent([p.node_id for p in parts if p.node_id is not None], ids[plan.key])
            self._summarize(self.store.summaries.get([ids[p.key] for p, _ in made]), title)
            nodes = {n.id: n for n in self.store.summaries.get([ids[p.key] for p, _ in made])}
            items = passed
            for plan, parts in made:
                nid = ids[plan.key]
                vector = self.store.summaries.vector(nid)
                if vector is None:  # failed: the node stands for the mean of its parts
                    vector = np.mean(np.stack([p.vector for p in parts]), axis=0).astype(np.float32)
                items.append(_Item(f"n{nid}", nid, plan.chunk_ids, vector, nodes[nid].level if nid in nodes else 1))
        if not self._spent():  # the tree is whole: drop nodes of an older plan
            self.store.summaries.sync(plans, doc_id=doc_id)

    def _chunk_item(self, chunk: ChunkRecord) -> _Item | None:
        vector = self.store.index.vector("chunk", chunk.id)
        return None if vector is None else _Item(f"c{chunk.id}", None, (chunk.id,), vector, 0)

    def _corpus_items(self, docs: Sequence[DocumentRecord]) -> list[_Item]:
        """Each document's highest summarised nodes (no summarised node of its own above them) and the chunks no such
        node covers: a short document's chunks, or those under a node that failed."""
        items: list[_Item] = []
        for doc in docs:
            nodes = {n.id: n for n in self.store.summaries.nodes(doc.id)}

            def summarised_above(n: SummaryNode, nodes: dict[int, SummaryNode] = nodes) -> bool:
                while n.parent_id is not None and (n := nodes.get(n.parent_id)) is not None:  # type: ignore[assignment]
                    if n.status == "done":
                        return True
                return False

            covered: set[int] = set()
            for n in nodes.values():
                vector = self.store.summaries.vector(n.id) if n.status == "done" else None
                if vector is None or summarised_above(n):
                    continue
                chunk_ids = tuple(self.store.summaries.chunk_ids(n.id))
                covered.update(chunk_ids)
                items.append(_Item(f"n{n.id}", n.id, chunk_ids, vector, n.level))
            rest = (c for c in self.store.chunks.chunks_of(doc.id) if c.id not in covered)
            items.extend(i for c in rest if (i := self._chunk_item(c)) is not None)
        return items

    # --- summarising ---

    def _pending(self, doc_id: int) -> list[SummaryNode]:
        return [n for n in self.store.summaries.nodes(doc_id) if n.status != "done"]

    def _spent(self) -> bool:
        return self.budget is not None and self.report.cost.items >= self.budget

    def _summarize(self, nodes: Sequence[SummaryNode], title: str) -> None:
        """Summaries for ``nodes`` that lack one, level by level (a parent reads its children's summaries)."""
        todo = [n for n in nodes if n.status != "done"]
        for level in sorted({n.level for n in todo}):
            batch = [n for n in todo if n.level == level]
            if self.budget is not None:
                batch = batch[: max(0, self.budget - self.report.cost.items)]
            if not batch:
                return
            jobs = [self._job(n, title) for n in batch]

            def done(i: int, result: PromptResult[str], batch: list[SummaryNode] = batch) -> None:
                self._save(batch[i], result)

            run_prompts(self.llm, jobs, done)

    def _job(self, node: SummaryNode, title: str) -> PromptJob[str]:
        children = [c for c in self.store.summaries.children(node.id) if c.summary]
        # chunks below a child without a summary (it failed) are read as the node's own
        inside = {cid for c in children for cid in self.store.summaries.chunk_ids(c.id)}
        own = [c for c in self.store.chunks.get_chunks(self.store.summaries.chunk_ids(node.id)) if c.id not in inside]
        parts = [f"[{c.label}] {c.summary}" for c in children] + [c.text.strip() for c in own]
        lang = detect_lang(" ".join(parts)[:4000])
        share = max(MIN_PART_CHARS, NODE_INPUT_CHARS[lang] // max(1, len(parts)))
        text = "\n".join(f"{n}. {' '.join(p.split())[:share]}" for n, p in enumerate(parts, 1))
        where = title or ("多个文档" if lang == "zh" else "several documents")
        return PromptJob(SUMMARIZE_NODE, lang, {"title": where, "label": node.label, "text": text})

    def _save(self, node: SummaryNode, result: PromptResult[str]) -> None:
        cost = self.report.cost
        charge(cost, result)
        if result.value is None:
            self.store.summaries.save(node.id, summary=None, error=result.error or "failed")
            self.report.failed += 1
            message = f"summary of '{node.label}' failed: {result.error}"
            self.report.failures.append(message)
            self.sink(Notice("warning", message))
        else:
            vector = self.encoder.encode([result.value], role="passage")[0]
            if self.store.summaries.save(node.id, summary=result.value, vector=vector):
                self.report.nodes += 1
        total = cost.items + len(self.store.summaries.pending())
        self.sink(StageAdvanced("trees", cost.items, total, node.label))
