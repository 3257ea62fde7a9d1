"""Summary trees (enrich.trees): planning a document's section tree, RAPTOR groups, building bottom-up with a
scripted model (children's summaries reach their parent's prompt), the corpus level across documents, resuming
after a stop without asking again, failures, removal with a document, and retrieval of the nodes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from pikelocal.config import Settings
from pikelocal.domain.documents import ChunkRecord, DocumentRecord
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.clusters import group
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions
from pikelocal.ingest.enrich.tree_plans import CLUSTER_SIZE, MAX_PARTS, section_plans
from pikelocal.ingest.enrich.trees import TreeBuilder
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.retrieve.summaries import search_summaries
from pikelocal.store.store import Store
from tests.support.enrich_corpus import EN_STEM, SCRIPT, ZH_TITLE, build_kb, open_kb, write_corpus

ENC = HashEncoder()
BROKEN_LABEL = "第三章 评标委员会"  # with ``broken``, this node's summary fails every time


def node_reply(messages: Sequence[Message], params: GenParams, *, broken: bool = False) -> str:
    """A summary naming the node's label and quoting the start of each part (so a parent's summary shows which
    summaries it read)."""
    user = messages[1].content
    zh = "各部分：" in user
    label = re.search(r"(?:位置：|Where: )(.*)\n", user)
    parts = re.findall(r"(?m)^\d+\. (.*)$", user)
    assert label is not None and parts, user
    if broken and BROKEN_LABEL in label.group(1):
        return "{not json"
    heads = "；".join(p[:12] for p in parts) if zh else "; ".join(" ".join(p.split()[:4]) for p in parts)
    summary = f"概述{label.group(1)}：{heads}" if zh else f"Overview of {label.group(1)}: {heads}"
    return json.dumps({"summary": summary}, ensure_ascii=False)


def llm(*, broken: bool = False) -> FakeLLM:
    return FakeLLM({**SCRIPT, "summarize_node": lambda m, p: node_reply(m, p, broken=broken)})  # type: ignore[dict-item]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    kb = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs"))
    with open_kb(kb, create=False) as s:
        yield s


def _chunk(cid: int, ord_: int, path: tuple[str, ...]) -> ChunkRecord:
    return ChunkRecord(
        id=cid, doc_id=1, ord=ord_, char_start=0, char_end=1, page_start=1, page_end=1, line_start=1, line_end=1,
        section_path=path, header="", text=f"text {cid}", summary=None, context=None,
    )  # fmt: skip


DOC = DocumentRecord(1, "/x/contract.pdf", "0" * 64, "Contract", None, "pdf", 1, "ready", None, "", "")


# --- planning ---------------------------------------------------------------------------------------------


def test_a_section_tree_has_a_node_per_section_of_two_chunks_and_a_root() -> None:
    a, a1, a2, b = ("Ch 1",), ("Ch 1", "Sec 1.1"), ("Ch 1", "Sec 1.2"), ("Ch 2",)
    chunks = [
        _chunk(10, 0, a), _chunk(11, 1, a1), _chunk(12, 2, a1), _chunk(13, 3, a2),
        _chunk(14, 4, b), _chunk(15, 5, b), _chunk(16, 6, ()),
    ]  # fmt: skip
    plans = section_plans(DOC, chunks)
    by_label = {p.label: p for p in plans}
    # Sec 1.2 has one chunk: the chunk is its own unit, no node
    assert set(by_label) == {"Contract", "Ch 1", "Ch 1 › Sec 1.1", "Ch 2"}
    assert by_label["Ch 1"].chunk_ids == (10, 11, 12, 13)
    assert by_label["Ch 1 › Sec 1.1"].parent_key == by_label["Ch 1"].key
    assert by_label["Ch 2"].parent_key == by_label["Contract"].key
    root = by_label["Contract"]
    assert root.parent_key is None and root.chunk_ids == tuple(range(10, 17)) and root.level == 3
    assert by_label["Ch 1 › Sec 1.1"].level == 1 and by_label["Ch 1"].level == 2
    assert [p.level for p in plans] == sorted(p.level for p in plans)  # children before parents
    assert section_plans(DOC, list(reversed(chunks))) == plans  # keys and order do not depend on the input order


def test_a_section_that_is_only_its_subsection_is_one_node_and_one_section_is_the_whole_document() -> None:
    only = ("Part A", "Chapter 1")
    chunks = [
        _chunk(1, 0, only),
        _chunk(2, 1, only),
        _chunk(3, 2, ("Part A", "Chapter 2")),
        _chunk(4, 3, ("Part A", "Chapter 2")),
    ]
    labels = {p.label: p for p in section_plans(DOC, chunks)}
    # Part A holds every chunk: it is the root (no separate document node); its chapters are below it
    assert set(labels) == {"Part A", "Part A › Chapter 1", "Part A › Chapter 2"}
    assert labels["Part A"].parent_key is None


def test_a_document_without_usable_structure_gets_no_section_tree() -> None:
    flat = [_chunk(i, i, ()) for i in range(8)]
    assert section_plans(DOC, flat) == []
    one_section = [_chunk(i, i, ("Only",)) for i in range(3)] + [_chunk(9, 9, ())]
    assert section_plans(DOC, one_section) == []  # one section is no structure
    sparse = [_chunk(1, 0, ("A",)), _chunk(2, 1, ("A",)), _chunk(3, 2, ("B",)), _chunk(4, 3, ("B",))]
    sparse += [_chunk(10 + i, 4 + i, ()) for i in range(6)]
    assert section_plans(DOC, sparse) == []  # sections cover 4 of 10 chunks


def test_a_long_section_reads_its_chunks_in_runs() -> None:
    n = MAX_PARTS + 3
    chunks = [_chunk(100 + i, i, ("Schedule",)) for i in range(n)] + [
        _chunk(1, n, ("Terms",)),
        _chunk(2, n + 1, ("Terms",)),
    ]
    plans = section_plans(DOC, chunks)
    runs = [p for p in plans if p.label.startswith("Schedule (")]
    schedule = next(p for p in plans if p.label == "Schedule")
    assert len(runs) == -(-n // CLUSTER_SIZE)  # ceil
    assert all(r.parent_key == schedule.key and 2 <= len(r.chunk_ids) <= CLUSTER_SIZE for r in runs)
    assert [c for r in runs for c in r.chunk_ids] == [100 + i for i in range(n)]
    assert schedule.level == 2


def test_groups_cover_every_row_once_are_small_and_put_close_rows_together() -> None:
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 16))
    rows = np.concatenate([c + 0.01 * rng.normal(size=(5, 16)) for c in centres]).astype(np.float32)
    groups = group(rows, 6)
    assert sorted(i for g in groups for i in g) == list(range(15))
    assert all(len(g) <= 6 for g in groups)
    assert sorted(map(tuple, groups)) == [(0, 1, 2, 3, 4), (5, 6, 7, 8, 9), (10, 11, 12, 13, 14)]
    assert group(rows, 6) == groups  # fixed seed: the same plan on a rebuild
    assert group(rows[:4], 6) == [[0, 1, 2, 3]] and group(rows[:0], 6) == []


# --- building ---------------------------------------------------------------------------------------------


def _nodes_by_label(store: Store) -> dict[str, object]:
    return {n.label: n for n in store.summaries.nodes()}


def test_enrich_builds_section_cluster_and_corpus_trees_bottom_up(store: Store) -> None:
    model = llm()
    report = Enricher(store, ENC, model, EnrichOptions.from_settings(Settings(), trees=True)).run()
    nodes = store.summaries.nodes()
    assert nodes and all(n.status == "done" and n.summary for n in nodes)
    assert report.tree_nodes == len(nodes) == len(model.calls_for("summarize_node"))
    docs = {d.title or Path(d.path).name: d for d in store.docs.documents()}
    zh = docs[ZH_TITLE]
    zh_nodes = store.summaries.nodes(zh.id)
    assert {n.kind for n in zh_nodes} == {"section"} and any("第二章 投标保证金" in n.label for n in zh_nodes)
    root = next(n for n in zh_nodes if n.parent_id is None or n.parent_id not in {m.id for m in zh_nodes})
    children = store.summaries.children(root.id)
    assert len(children) >= 2
    # the root was asked after its children, from their summaries
    root_prompt = next(c for c in model.calls_for("summarize_node") if f"位置：{root.label}\n" in c.messages[1].content)
    assert all(c.summary and c.summary[:12] in root_prompt.messages[1].content for c in children)
    en = next(d for d in docs.values() if Path(d.path).stem == EN_STEM)
    en_nodes = store.summaries.nodes(en.id)
    assert [n.kind for n in en_nodes] == ["cluster"]  # 5 paragraphs without headings: one RAPTOR cluster
    corpus = store.summaries.nodes(corpus=True)
    assert len(corpus) == 1 and corpus[0].kind == "cluster"
    below = store.chunks.get_chunks(store.summaries.chunk_ids(corpus[0].id))
    assert {c.doc_id for c in below} == {d.id for d in docs.values()}  # the short memo joins by its chunk
    assert store.summaries.children(corpus[0].id)  # the documents' top nodes hang below it
    # every done node is retrievable: a vector and an FTS row
    assert all(store.summaries.vector(n.id) is not None for n in nodes)
    assert store.index.fts_search("summary", "投标保证金", 5)
    assert store.integrity_check() == []
    assert store.counts()["summary_nodes"] == len(nodes) == store.summaries.counts()["done"]


def test_a_stopped_build_resumes_without_asking_again(store: Store) -> None:
    first = llm()
    report = Enricher(store, ENC, first, EnrichOptions.from_settings(Settings(), trees=True, limit=2)).run()
    assert report.tree_nodes == 2 and len(first.calls_for("summarize_node")) == 2
    assert store.summaries.pending()  # the rest waits
    done_before = {n.key: n.summary for n in store.summaries.nodes() if n.status == "done"}
    second = llm()
    Enricher(store, ENC, second, EnrichOptions.from_settings(Settings(), trees=True)).run()
    asked = [c.messages[1].content for c in second.calls_for("summarize_node")]
    total = store.summaries.nodes()
    assert all(n.status == "done" for n in total) and len(asked) == len(total) - 2
    assert all(done_before[n.key] == n.summary for n in total if n.key in done_before)
    third = llm()
    again = Enricher(store, ENC, third, EnrichOptions.from_settings(Settings(), trees=True)).run()
    assert third.calls_for("summarize_node") == [] and again.tree_nodes == 0  # nothing left to ask


def test_a_failed_node_is_reported_and_retried_by_the_next_build(store: Store) -> None:
    report = Enricher(store, ENC, llm(broken=True), EnrichOptions.from_settings(Settings(), trees=True)).run()
    failed = [n for n in store.summaries.nodes() if n.status == "failed"]
    assert len(failed) == 1 and BROKEN_LABEL in failed[0].label
    assert any(BROKEN_LABEL in line for line in report.failures)
    assert store.summaries.vector(failed[0].id) is None
    again = llm()
    Enricher(store, ENC, again, EnrichOptions.from_settings(Settings(), trees=True)).run()
    assert len(again.calls_for("summarize_node")) >= 1
    assert all(n.status == "done" for n in store.summaries.nodes())


def test_removing_a_document_removes_its_nodes_and_the_corpus_nodes_over_it(store: Store) -> None:
    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), trees=True)).run()
    zh = next(d for d in store.docs.documents() if d.title == ZH_TITLE)
    assert store.summaries.nodes(zh.id) and store.summaries.nodes(corpus=True)
    assert store.docs.delete_document(zh.id)
    assert store.summaries.nodes(zh.id) == [] and store.summaries.nodes(corpus=True) == []
    assert store.integrity_check() == []
    rebuilt = llm()
    Enricher(
        store, ENC, rebuilt, EnrichOptions.from_settings(Settings(), trees=True)
    ).run()  # the corpus level is planned again
    assert len(store.summaries.nodes(corpus=True)) == 1
    assert len(rebuilt.calls_for("summarize_node")) == 1  # only the new corpus node: the English tree stands


def test_summary_search_finds_the_node_of_a_section(store: Store) -> None:
    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), trees=True)).run()
    hits = search_summaries(store, ENC, "评标委员会 评审专家", 3)
    assert hits and "第三章 评标委员会" in hits[0].node.label
    assert hits[0].document is not None and hits[0].document.title == ZH_TITLE
    assert set(hits[0].chunk_ids) <= {c.id for c in store.chunks.chunks_of(hits[0].document.id)}
    assert search_summaries(store, ENC, "anything", 0) == []


def test_tree_builder_alone_reports_its_cost(store: Store) -> None:
    built = TreeBuilder(store, ENC, llm()).run()
    assert built.nodes == built.cost.items == built.cost.calls > 0
    assert built.cost.completion_tokens > 0 and built.failures == []


@pytest.mark.parametrize("tree_nodes", [2, 0])
def test_an_overview_question_is_answered_from_the_tree_first_and_its_trace_names_the_nodes(
    store: Store, tree_nodes: int
) -> None:
    from pikelocal.query.answer.modes import AskOptions, ask
    from tests.support.answer_scripts import cite_source_with

    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), trees=True)).run()
    answer = cite_source_with("概述", "本办法规定了投标保证金和评标委员会")
    model = FakeLLM({"answer": answer})  # type: ignore[dict-item]
    options = AskOptions.from_settings(
        Settings(),
        mode="naive",
        k=2,
        context="neighbours",
        neighbours=0,
        check=False,
        tree_nodes=tree_nodes,
        quote=False,
    )
    trace = ask(store, ENC, model, "总结一下青松市政府采购招标管理办法有哪些规定", options)
    overview = [s for s in trace.answer.sources if s.summary_node is not None]
    if not tree_nodes:
        assert overview == [] and trace.summary_nodes == () and trace.answer.cited == ()
        return
    assert [s.number for s in overview] == [1, 2]  # the summaries come first, then the passages
    assert all(s.chunk_ids == () and s.text.startswith("概述") and s.section[0] == "摘要" for s in overview)
    assert [n for n, _ in trace.summary_nodes] == [s.summary_node for s in overview]
    assert trace.answer.cited == (1,)
    chunk_sources = [s for s in trace.answer.sources if s.summary_node is None]
    assert chunk_sources and [s.number for s in chunk_sources] == list(range(3, 3 + len(chunk_sources)))
    from pikelocal.domain.answers import QueryTrace
    from pikelocal.trace_text import trace_lines

    row = store.traces.get_trace(trace.id)
    assert row is not None
    again = QueryTrace.from_dict(json.loads(row.json))  # as stored in the KB
    assert again.summary_nodes == trace.summary_nodes and again.answer.sources == trace.answer.sources
    lines = trace_lines(again)
    assert any(line.startswith(f"summary node {overview[0].summary_node}: ") for line in lines)
    # a question after one fact does not read the tree
    plain = ask(store, ENC, model, "投标保证金最多是采购预算的多少？", options, save=False)
    assert plain.summary_nodes == ()
