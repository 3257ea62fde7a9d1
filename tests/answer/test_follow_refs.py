"""Search and answering follow legal cross-references, on a real KB (fake encoder, scripted LLM): a question that
cites an article gets that article's chunk first; a source that cites an article brings it into the answer's
sources (answer.follow_refs), and not when it is 0; each hit carries its chunk's citations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from tests.support.refs_kb import REGULATION, TENDER_TEXT, ingest
from tests.support.search_corpus import ENC

OTHER = [
    (
        "notes/bond.txt",
        "投标保证金",
        "投标保证金为人民币五万元，以银行保函形式提交。开标后五日内退还未中标人的保证金。",
    ),
    ("notes/schedule.txt", "工期", "勘察设计服务期为一千零九十五日历天，自合同签订之日起计算。"),
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    from pikelocal.ingest.pipeline import SourceText

    with Store.open(tmp_path / "kb.sqlite", encoder_id=ENC.model_id, dim=ENC.dim) as s:
        ingest(s, REGULATION, TENDER_TEXT, *(SourceText(k, t, x) for k, t, x in OTHER))
        yield s


def article_four(store: Store) -> int:
    (ref,) = [r for r in store.refs.refs() if r.ref.article == "4" and r.ref.law is not None]
    assert ref.target_chunk is not None
    return ref.target_chunk


def test_a_question_citing_an_article_gets_it_first(store: Store) -> None:
    hits = search(store, ENC, "招标投标法实施条例第四条怎么规定监督？", k=3)
    assert hits[0].chunk.id == article_four(store) and hits[0].ranks["refs"] == 1
    assert "第四条 国务院发展改革部门" in hits[0].chunk.text
    plain = search(store, ENC, "国务院发展改革部门怎么规定监督？", k=3)  # no citation: no "refs" rank anywhere
    assert all("refs" not in h.ranks for h in plain)


def test_hits_carry_their_citations(store: Store) -> None:
    hits = search(store, ENC, "政府采购政策执行情况 财政部门 监督", k=10)
    (tender_hit,) = [h for h in hits if h.document.path == TENDER_TEXT.key and "第四条第三款" in h.chunk.text]
    assert [c.text for c in tender_hit.cites][0] == "《中华人民共和国招标投标法实施条例》第四条第三款"
    assert tender_hit.cites[0].target_chunk == article_four(store)


@pytest.mark.parametrize("follow", [2, 0])
def test_naive_answering_reads_the_article_its_source_cites(store: Store, follow: int) -> None:
    (tender_chunk,) = {r.chunk_id for r in store.refs.refs() if r.ref.article == "4" and r.ref.law is not None}
    llm = FakeLLM({"answer": "财政部门实施监督 [1]。"})
    options = AskOptions.from_settings(
        Settings(), mode="naive", k=1, context="neighbours", neighbours=0, check=False, follow_refs=follow, quote=False
    )
    trace = ask(store, ENC, llm, "黄梅县团洲圩治理工程 谁监督？", options, save=False)
    read = [cid for s in trace.answer.sources for cid in s.chunk_ids]
    # the search's top hit (k = 1, no neighbours) is the tender's paragraph; following its citation adds article 4
    assert sorted(read) == sorted([tender_chunk, article_four(store)] if follow else [tender_chunk])


def test_eval_refs_mode_ranks_as_search_and_hybrid_leaves_the_citation_out(store: Store) -> None:
    from pikelocal.eval.retrieval import ranked_by_mode

    question = "招标投标法实施条例第四条怎么规定监督？"
    lists = ranked_by_mode(store, ENC, question, ("hybrid", "refs"), 5, {}, candidates=50)  # as search fuses
    assert lists["refs"] == [h.chunk.id for h in search(store, ENC, question, k=5)]
    assert lists["refs"][0] == article_four(store)
    # hybrid alone is the fusion before the cited article is put first: the same chunks otherwise
    assert [c for c in lists["refs"] if c != article_four(store)] == [
        c for c in lists["hybrid"] if c != article_four(store)
    ][: len(lists["refs"]) - 1]
