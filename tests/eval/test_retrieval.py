"""Retrieval evaluation on a tiny KB built with the fake encoder: metrics by hand, resuming, law articles, tables."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.events import Event, StageAdvanced, StageFinished, StageStarted
from pikelocal.embed.fake import HashEncoder
from pikelocal.eval.datasets import CorpusDoc, EvalQuery, EvalSet, LawArticle
from pikelocal.eval.retrieval import (
    EVAL_KEY,
    MODES,
    ModeScores,
    article_pattern,
    chunk_doc_keys,
    evaluate,
    format_table,
    ingest_corpus,
    law_relevance,
    ranked_by_mode,
)
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store

ENC = HashEncoder()
OPTIONS = IngestOptions.from_settings(
    Settings(), split=SplitOptions(target=40, min_tokens=10, max_tokens=60), late=True
)
KS = (1, 5, 10, 100)

# Every document has words no other one has, except "beta" (in p and r). p and r are equally long, so for the
# query "alpha beta" BM25 must put p (both words) before r (one word); a and b share no word at all.
DOCS = (
    CorpusDoc("p", "Doc P", "alpha beta kiwi mango"),
    CorpusDoc("r", "Doc R", "beta lemon grape melon"),
    CorpusDoc("a", "Doc A", "orange river bridge tower"),
    CorpusDoc("b", "Doc B", "copper forest violin harbor"),
    CorpusDoc("c", "Doc C", "saddle canyon lantern pebble"),
    CorpusDoc("d", "Doc D", "falcon meadow quartz willow"),
)
EXACT = tuple(EvalQuery(f"exact-{d.doc_id}", d.text, {d.doc_id: 1}) for d in DOCS)
SECOND = EvalQuery("second", "alpha beta", {"r": 1})  # bm25: [p, r]
HALF = EvalQuery("half", "orange river bridge tower", {"a": 1, "b": 1})  # bm25: [a] only
GRADED = EvalQuery("graded", "orange river bridge tower", {"a": 2, "b": 1})
ABSENT = EvalQuery("absent", "alpha beta", {"not-in-corpus": 1})
EVALSET = EvalSet("tiny", DOCS, (*EXACT, SECOND, HALF))


def kb(path: Path) -> Store:
    return Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with kb(tmp_path / "eval.sqlite") as s:
        ingest_corpus(s, ENC, EVALSET, OPTIONS)
        yield s


def scores_of(store: Store, queries: list[EvalQuery], **kwargs: object) -> dict[str, ModeScores]:
    return {s.mode: s for s in evaluate(store, ENC, queries, ks=KS, **kwargs)}  # type: ignore[arg-type]


def assert_scores(s: ModeScores, ndcg: float, recall: dict[int, float], mrr: float) -> None:
    assert s.ndcg10 == pytest.approx(ndcg)
    assert s.recall == pytest.approx(recall)
    assert s.mrr == pytest.approx(mrr)


# --- building the KB ----------------------------------------------------------------------------------------


def test_ingest_corpus_stores_each_document_under_its_key(store: Store) -> None:
    docs = store.docs.documents()
    assert sorted(d.path for d in docs) == sorted(f"{EVAL_KEY}{d.doc_id}" for d in DOCS)
    assert {d.title for d in docs} == {d.title for d in DOCS}
    assert {d.stage for d in docs} == {"ready"}
    keys = chunk_doc_keys(store)
    assert set(keys) == set(store.chunks.chunk_owners()) and set(keys.values()) == {(d.doc_id,) for d in DOCS}
    for doc in docs:
        (chunk,) = store.chunks.chunks_of(doc.id)  # four words: one chunk each
        assert keys[chunk.id] == (doc.path.removeprefix(EVAL_KEY),)


def test_ingest_corpus_twice_or_after_a_partial_build_adds_no_duplicate(tmp_path: Path) -> None:
    with kb(tmp_path / "eval.sqlite") as s:
        ingest_corpus(s, ENC, EvalSet("tiny", DOCS[:2], ()), OPTIONS)  # a build stopped after two documents
        first = {d.path: d.id for d in s.docs.documents()}
        first_chunks = dict(s.chunks.chunk_owners())
        ingest_corpus(s, ENC, EVALSET, OPTIONS)
        counts = s.counts()
        ingest_corpus(s, ENC, EVALSET, OPTIONS)
        assert s.counts() == counts
        docs = s.docs.documents()
        assert sorted(d.path for d in docs) == sorted(f"{EVAL_KEY}{d.doc_id}" for d in DOCS)
        assert {d.path: d.id for d in docs if d.path in first} == first  # the first two were kept, not redone
        assert {c: o for c, o in s.chunks.chunk_owners().items() if c in first_chunks} == first_chunks
        assert len(s.chunks.chunk_owners()) == len(DOCS)
        assert counts["chunk_vectors"] == counts["late_vectors"] == len(DOCS)


def test_equal_texts_under_different_ids_stay_apart(tmp_path: Path) -> None:
    twins = EvalSet("twins", (CorpusDoc("x", "", "same text here"), CorpusDoc("y", "", "same text here")), ())
    with kb(tmp_path / "eval.sqlite") as s:
        ingest_corpus(s, ENC, twins, OPTIONS)
        assert sorted(chunk_doc_keys(s).values()) == [("x",), ("y",)]


def test_ingest_corpus_reports_progress(tmp_path: Path) -> None:
    events: list[Event] = []
    with kb(tmp_path / "eval.sqlite") as s:
        ingest_corpus(s, ENC, EVALSET, OPTIONS, events.append)
    assert StageStarted("parse", len(DOCS), "docs") in events
    assert [e.done for e in events if isinstance(e, StageAdvanced) and e.stage == "parse"] == list(
        range(1, len(DOCS) + 1)
    )


# --- metrics on forced rankings ---------------------------------------------------------------------------


def test_exact_document_text_queries_are_found_first_in_every_mode(store: Store) -> None:
    scores = scores_of(store, list(EXACT))
    assert list(scores) == list(MODES)
    for s in scores.values():
        assert s.queries == len(EXACT)
        assert_scores(s, 1.0, dict.fromkeys(KS, 1.0), 1.0)


def test_relevant_document_second_by_bm25(store: Store) -> None:
    bm25 = scores_of(store, [SECOND], modes=("bm25",))["bm25"]
    # ranked [p, r]: r at rank 2 → DCG = 1/log2(3), IDCG = 1
    assert_scores(bm25, 1 / math.log2(3), {1: 0.0, 5: 1.0, 10: 1.0, 100: 1.0}, 0.5)


def test_one_of_two_relevant_documents_never_retrieved_by_bm25(store: Store) -> None:
    bm25 = scores_of(store, [HALF], modes=("bm25",))["bm25"]
    # ranked [a]; b shares no word with the query → IDCG = 1 + 1/log2(3)
    assert_scores(bm25, 1 / (1 + 1 / math.log2(3)), dict.fromkeys(KS, 0.5), 1.0)
    graded = scores_of(store, [GRADED], modes=("bm25",))["bm25"]
    assert_scores(graded, 2 / (2 + 1 / math.log2(3)), dict.fromkeys(KS, 0.5), 1.0)
    # Dense rankings hold every chunk of the KB, so both are within the top 100 (b may be anywhere).
    for mode in ("dense", "late"):
        dense = scores_of(store, [HALF], modes=(mode,))[mode]
        assert dense.recall[100] == 1.0 and dense.recall[1] == 0.5 and dense.mrr == 1.0


def test_hit_only_counts_one_right_answer_as_full_recall(store: Store) -> None:
    bm25 = scores_of(store, [HALF], modes=("bm25",), hit_only=True)["bm25"]
    assert_scores(bm25, 1 / (1 + 1 / math.log2(3)), dict.fromkeys(KS, 1.0), 1.0)  # nDCG and MRR unchanged
    second = scores_of(store, [SECOND], modes=("bm25",), hit_only=True)["bm25"]
    assert second.recall == {1: 0.0, 5: 1.0, 10: 1.0, 100: 1.0}
    absent = scores_of(store, [ABSENT], modes=("bm25",), hit_only=True)["bm25"]
    assert absent.recall == dict.fromkeys(KS, 0.0)


def test_a_relevant_document_missing_from_the_corpus_scores_zero(store: Store) -> None:
    for s in scores_of(store, [ABSENT]).values():
        assert_scores(s, 0.0, dict.fromkeys(KS, 0.0), 0.0)


def test_scores_are_means_over_the_queries(store: Store) -> None:
    bm25 = scores_of(store, [SECOND, HALF, ABSENT, EXACT[0]], modes=("bm25",))["bm25"]
    assert bm25.queries == 4
    ndcg = (1 / math.log2(3) + 1 / (1 + 1 / math.log2(3)) + 0.0 + 1.0) / 4
    assert_scores(
        bm25,
        ndcg,
        {1: (0 + 0.5 + 0 + 1) / 4, 5: (1 + 0.5 + 0 + 1) / 4, 10: (1 + 0.5 + 0 + 1) / 4, 100: (1 + 0.5 + 0 + 1) / 4},
        (0.5 + 1 + 0 + 1) / 4,
    )


def test_evaluate_reports_query_progress(store: Store) -> None:
    events: list[Event] = []
    evaluate(store, ENC, [SECOND, HALF], modes=("bm25",), sink=events.append)
    assert events[0] == StageStarted("queries", 2, "queries")
    assert [e for e in events if isinstance(e, StageAdvanced)] == [
        StageAdvanced("queries", 1, 2),
        StageAdvanced("queries", 2, 2),
    ]
    assert isinstance(events[-1], StageFinished) and events[-1].done == 2


def test_no_query_gives_zero_scores(store: Store) -> None:
    for s in evaluate(store, ENC, [], ks=(1, 10)):
        assert (s.queries, s.ndcg10, s.recall, s.mrr) == (0, 0.0, {1: 0.0, 10: 0.0}, 0.0)


def test_ranked_by_mode_matches_search(store: Store) -> None:
    lists = ranked_by_mode(store, ENC, "alpha beta orange", MODES, 30, {})
    assert list(lists) == list(MODES)
    for mode in MODES:
        assert lists[mode] == [h.chunk.id for h in search(store, ENC, "alpha beta orange", mode=mode, k=30)]  # type: ignore[arg-type]


def test_ranked_by_mode_drops_a_zero_weighted_source_like_search(store: Store) -> None:
    weights = {"dense": 0.0, "late": 0.0}
    lists = ranked_by_mode(store, ENC, "alpha beta", ("hybrid",), 30, weights)
    assert lists["hybrid"] == [h.chunk.id for h in search(store, ENC, "alpha beta", k=30, weights=weights)]


# --- law articles ----------------------------------------------------------------------------------------


def test_article_pattern_matches_the_article_opening_only() -> None:
    p = article_pattern("第三条")
    assert p.search("第三条　内容如下。")
    assert p.search("前文\n第三条　内容如下。")  # at the start of any line
    assert p.search("前文\n  第三条当事人……")  # indented, text right after the label
    assert p.search("第三条") and p.search("第三条\n")
    assert not p.search("第三十三条　内容")
    assert not p.search("第三十条　内容")
    assert not p.search("依照第三条规定处理。")  # mid-line: a reference, not the article
    assert not p.search("前文依照\n本法第三条规定")
    assert article_pattern("第十").search("第十二条") is None  # a label is not a prefix of a longer number
    assert article_pattern("第1条").search("第12条") is None
    assert article_pattern("第3.1条").search("第321条") is None  # the label is literal text


def test_article_pattern_does_not_match_an_inserted_article() -> None:
    assert article_pattern("第一百二十条").search("第一百二十条之一　资助恐怖活动的……") is None


CIVIL = (
    "# 民法\n\n第一条　为了保护民事主体的合法权益，调整民事关系，维护社会和经济秩序，制定本法。\n\n"
    "第二条　民法调整平等主体的自然人、法人和非法人组织之间的人身关系和财产关系。\n"
)
CRIMINAL = (
    "# 刑法\n\n第一条　为了惩罚犯罪，保护人民，根据宪法，结合我国同犯罪作斗争的具体经验及实际情况，制定本法。\n\n"
    "第二条　刑法的任务，是用刑罚同一切犯罪行为作斗争，以保卫国家安全，保护公民的人身权利。\n"
)


def law_folder(root: Path) -> Path:
    laws = root / "laws"
    (laws / "criminal").mkdir(parents=True)
    (laws / "民法.md").write_text(CIVIL, encoding="utf-8")
    (laws / "criminal" / "刑法.md").write_text(CRIMINAL, encoding="utf-8")
    return laws


def article(file: str, label: str, text: str) -> LawArticle:
    law = Path(file).stem
    return LawArticle(f"{file}#{label}", law, law, file, label, text)


def article_text(source: str, label: str) -> str:
    (line,) = [line for line in source.splitlines() if line.startswith(label)]
    return line


def chunk_holding(store: Store, text: str) -> int:
    (cid,) = [c.id for d in store.docs.documents() for c in store.chunks.chunks_of(d.id) if text in c.text]
    return cid


def test_law_relevance_maps_chunks_to_file_article_keys(tmp_path: Path) -> None:
    laws = law_folder(tmp_path)
    civil_2 = article_text(CIVIL, "第二条")
    criminal_1 = article_text(CRIMINAL, "第一条")
    questions = [
        (civil_2.removeprefix("第二条　"), article("民法.md", "第二条", civil_2)),
        (criminal_1.removeprefix("第一条　"), article("criminal/刑法.md", "第一条", criminal_1)),
    ]
    with kb(tmp_path / "law.sqlite") as s:
        report = Ingestor(s, ENC, OPTIONS).ingest_paths([laws])
        assert report.count("ingested") == 2
        queries, key_of = law_relevance(s, questions, laws)

        assert queries == [
            EvalQuery("q0", questions[0][0], {"民法.md#第二条": 1}),
            EvalQuery("q1", questions[1][0], {"criminal/刑法.md#第一条": 1}),
        ]
        assert set(key_of) == set(s.chunks.chunk_owners())
        wanted = {
            chunk_holding(s, civil_2): ("民法.md#第二条",),
            chunk_holding(s, criminal_1): ("criminal/刑法.md#第一条",),
        }
        assert len(wanted) == 2
        for cid, key in key_of.items():
            if cid in wanted:
                assert key == wanted[cid]
            else:  # 民法 第一条 and 刑法 第二条 are not asked for; the same label in the other law gets no credit
                owner = s.docs.get_document(s.chunks.chunk_owners()[cid])
                assert owner is not None
                rel = Path(owner.path).relative_to(laws.resolve()).as_posix()
                assert key == (f"{rel}#chunk{cid}",)
        # The article's own text as the query: BM25 must find exactly that chunk first.
        bm25 = evaluate(s, ENC, queries, modes=("bm25",), ks=(1,), key_of=key_of)[0]
        assert bm25.recall[1] == 1.0 and bm25.mrr == 1.0


def test_two_asked_articles_in_one_chunk_both_count(tmp_path: Path) -> None:
    laws = law_folder(tmp_path)
    civil_1, civil_2 = article_text(CIVIL, "第一条"), article_text(CIVIL, "第二条")
    questions = [(civil_1, article("民法.md", "第一条", civil_1)), (civil_2, article("民法.md", "第二条", civil_2))]
    with kb(tmp_path / "law.sqlite") as s:
        Ingestor(s, ENC, IngestOptions.from_settings(Settings())).ingest_paths(
            [laws]
        )  # default sizes: each law is one chunk
        assert chunk_holding(s, civil_1) == chunk_holding(s, civil_2)
        queries, key_of = law_relevance(s, questions, laws)
        for q in queries:
            assert evaluate(s, ENC, [q], modes=("bm25",), ks=(1,), key_of=key_of)[0].recall[1] == 1.0


# --- the table -------------------------------------------------------------------------------------------


def test_format_table_has_one_row_per_mode_with_three_decimals(store: Store) -> None:
    scores = evaluate(store, ENC, [SECOND, HALF], ks=(1, 5))
    table = format_table("Tiny set", scores, (1, 5))
    lines = table.splitlines()
    assert lines[0] == "**Tiny set**" and lines[1] == ""
    assert lines[2] == "| mode | queries | nDCG@10 | R@1 | R@5 | MRR |"
    assert lines[3] == "|---|---|---|---|---|---|"
    rows = lines[4:]
    assert [r.split(" | ")[0].removeprefix("| ") for r in rows] == list(MODES)
    number = r"[01]\.\d{3}"
    for row, s in zip(rows, scores, strict=True):
        assert re.fullmatch(rf"\| {s.mode} \| 2 \| {number} \| {number} \| {number} \| {number} \|", row)
        cells = row.strip("| ").split(" | ")
        assert cells[2:] == [f"{s.ndcg10:.3f}", f"{s.recall[1]:.3f}", f"{s.recall[5]:.3f}", f"{s.mrr:.3f}"]
    bm25_row = rows[0].strip("| ").split(" | ")
    # bm25: second → nDCG 0.631, R@1 0, R@5 1, MRR 0.5; half → nDCG 0.613, R@1 0.5, R@5 0.5, MRR 1
    assert bm25_row[2:] == [
        f"{(1 / math.log2(3) + 1 / (1 + 1 / math.log2(3))) / 2:.3f}",
        "0.250",
        "0.750",
        "0.750",
    ]
