"""CJK-aware full-text search: the pure normaliser / query builder, and real FTS5 through the Store."""

from __future__ import annotations

import pytest

from pikelocal.domain.documents import NewChunk, NewQuestion
from pikelocal.store.fts import build_match_query, is_cjk_sentence, normalize_for_index
from pikelocal.store.store import Store

TEXTS = {
    "amount": "本合同金额为人民币",
    "bond": "投标人须提交投标保证金人民币五万元",
    "terminate": "The Contractor may terminate this Agreement at any time.",
    "terminated": "This CONTRACT is terminated upon written notice.",
    "mixed": "本合同的termination条款",
    "article": "按照第3条规定执行",
    "fullwidth": "ＡＢＣ公司　２０２４年",
    "notice": "Notice periods are thirty days.",
}

NASTY = [
    '"',
    '""',
    '"unbalanced',
    "*",
    "合同*",
    "-合同",
    "a:b",
    "col:合同",
    "(",
    ")(",
    "AND",
    "OR OR",
    "NOT termination",
    "NEAR(a b, 3)",
    "termination AND",
    "^合同",
    "合同 + 金额",
    "{a b}:c",
    "'; DROP TABLE chunks; --",
    "\\",
    "\x00",
    "   ",
    "？！。，",
]


def test_normalize_nfkc_lower_and_bigrams() -> None:
    assert normalize_for_index("ＡＢＣ Contract") == "abc contract"
    assert normalize_for_index("合同金额").split() == ["合", "合同", "同金", "金额", "额"]
    assert normalize_for_index("金").split() == ["金"]
    # a CJK run next to digits or letters is split off from them
    assert normalize_for_index("第3条").split() == ["第", "3", "条"]
    assert normalize_for_index("PDF文件").split() == ["pdf", "文", "文件", "件"]


def test_query_builder_quotes_everything() -> None:
    assert build_match_query("合同金额") == '"合同 同金 金额"'
    assert build_match_query("Termination CONTRACT") == '"termination" OR "contract"'
    assert build_match_query("合同 termination", require_all=True) == '"合同" AND "termination"'
    assert build_match_query("金") == '"金"*'
    assert build_match_query("the contract") == '"contract"'  # stopword dropped ...
    assert build_match_query("the") == '"the"'  # ... unless nothing else is left
    assert build_match_query("保证金", exact_phrases=False) == '"保证" OR "证金"'
    assert build_match_query("") is None
    assert build_match_query(" -- ?? ") is None


@pytest.fixture
def fts_store(store: Store) -> tuple[Store, dict[str, int]]:
    doc = store.docs.add_document(path="t.txt", sha256="t")
    chunks = [NewChunk(ord=i, text=t, char_start=0, char_end=len(t)) for i, t in enumerate(TEXTS.values())]
    ids = dict(zip(TEXTS, store.chunks.add_chunks(doc, chunks), strict=True))
    return store, ids


def _hits(store: Store, query: str, **kw: bool) -> set[int]:
    return {i for i, _ in store.index.fts_search("chunk", query, 20, **kw)}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("合同", {"amount", "mixed"}),
        ("合同金额", {"amount"}),
        ("投标保证金", {"bond"}),
        ("保证金", {"bond"}),
        ("人民币", {"amount", "bond"}),
        ("金", {"amount", "bond"}),  # a single character inside a run, and at a run's end (五万元 ... 金人)
        ("元", {"bond"}),  # last character of a run
        ("第3条", {"article"}),  # CJK run touching a digit, inside a longer run in the text
        ("Termination", {"terminate", "terminated", "mixed"}),  # porter stemming
        ("CONTRACT", {"terminated"}),
        ("contract", {"terminated"}),
        ("abc", {"fullwidth"}),
        ("ＡＢＣ", {"fullwidth"}),
        ("2024", {"fullwidth"}),
        ("合同 termination", {"amount", "mixed", "terminate", "terminated"}),
        ("(投标保证金)?", {"bond"}),
    ],
)
def test_fts_matches_inside_runs(fts_store: tuple[Store, dict[str, int]], query: str, expected: set[str]) -> None:
    store, ids = fts_store
    assert _hits(store, query) == {ids[n] for n in expected}


def test_fts_absent_term_does_not_match(fts_store: tuple[Store, dict[str, int]]) -> None:
    store, _ = fts_store
    assert _hits(store, "履约保证金") == set()
    assert _hits(store, "合同保证金") == set()


def test_fts_require_all_and_loose_mode(fts_store: tuple[Store, dict[str, int]]) -> None:
    store, ids = fts_store
    assert _hits(store, "合同 termination", require_all=True) == {ids["mixed"]}
    # a question written without spaces: every bigram separately, best overlap first
    hits = store.index.fts_search("chunk", "投标保证金是多少？", 5, exact_phrases=False)
    assert hits[0][0] == ids["bond"]
    assert all(a[1] >= b[1] for a, b in zip(hits, hits[1:], strict=False))


def test_fts_ranks_more_terms_higher(fts_store: tuple[Store, dict[str, int]]) -> None:
    store, ids = fts_store
    hits = store.index.fts_search("chunk", "terminated written notice", 5)
    assert hits[0][0] == ids["terminated"]
    assert {i for i, _ in hits} >= {ids["terminated"], ids["notice"], ids["terminate"]}


@pytest.mark.parametrize("query", NASTY)
def test_fts_syntax_characters_never_raise(fts_store: tuple[Store, dict[str, int]], query: str) -> None:
    store, _ = fts_store
    for exact in (True, False):
        for require_all in (True, False):
            assert isinstance(
                store.index.fts_search("chunk", query, 5, exact_phrases=exact, require_all=require_all), list
            )


def test_fts_header_is_searchable_and_questions_index(store: Store) -> None:
    doc = store.docs.add_document(path="h.txt", sha256="h")
    (cid,) = store.chunks.add_chunks(doc, [NewChunk(ord=0, text="正文", char_start=0, char_end=2, header="付款条件")])
    assert [i for i, _ in store.index.fts_search("chunk", "付款", 5)] == [cid]
    (qid,) = store.chunks.add_questions([NewQuestion(chunk_id=cid, text="付款期限是多少天？", lang="zh")])
    assert [i for i, _ in store.index.fts_search("question", "付款期限", 5)] == [qid]
    assert store.index.fts_search("question", "退款", 5) == []


def test_a_chinese_question_searches_its_bigrams_by_default(fts_store: tuple[Store, dict[str, int]]) -> None:
    store, ids = fts_store
    assert store.index.fts_search("chunk", "投标保证金是多少？", 5, exact_phrases=True) == []  # the sentence is nowhere
    hits = store.index.fts_search("chunk", "投标保证金是多少？", 5)  # default: a CJK sentence is a bag of bigrams
    assert hits and hits[0][0] == ids["bond"]
    # a short term keeps its exact-phrase meaning: 履约保证金 must not match the bid bond
    assert store.index.fts_search("chunk", "履约保证金", 5) == []


@pytest.mark.parametrize(
    ("query", "sentence"),
    [("投标保证金", False), ("投标保证金是多少", True), ("合同 金额 期限", False), ("What is 投标保证金?", False)],
)
def test_is_cjk_sentence(query: str, sentence: bool) -> None:
    assert is_cjk_sentence(query) is sentence
