"""Statements of an item's value found in the text without the LLM: the first value after a hint term in its
sentence, whatever the case of an English term, a table row a sentence of its own, and only values that differ
from the answer's reported."""

from __future__ import annotations

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.review import ChecklistItem
from pikelocal.review.conflicts import Corpus, disagreeing, statements
from pikelocal.review.values import normalise


def corpus(*texts: str) -> Corpus:
    chunks = {
        n: [ChunkRecord(n * 10, n, 0, text, 0, len(text), None, None, None, None, (), "", None)]
        for n, text in enumerate(texts, start=1)
    }
    return Corpus({n: f"doc {n}" for n in chunks}, chunks, {n: [] for n in chunks})


def item(kind: str, *hints: str) -> ChecklistItem:
    return ChecklistItem("x", "x", kind, {"en": "?"}, hints)  # type: ignore[arg-type]


def test_an_english_term_matches_in_any_case_and_its_first_value_is_taken() -> None:
    found = statements(
        corpus("Warranty period: 24 months from delivery.", "The warranty period is 36 months, see clause 9."),
        item("duration", "warranty period"),
    )
    assert [(s.value.normal, s.where.doc_id) for s in found] == [("24 months", 1), ("36 months", 2)]


def test_a_table_row_is_a_sentence_of_its_own() -> None:
    table = "| term | value |\n|---|---|\n| Renewal term | 12 months |\n| Notice period | 90 days |\n"
    found = statements(corpus(table), item("duration", "renewal term"))
    assert [s.value.normal for s in found] == ["12 months"]
    assert [s.sentence for s in found] == ["| Renewal term | 12 months |"]


def test_a_value_of_another_kind_first_after_the_term_is_not_the_terms() -> None:
    text = "投标保证金应于2025年10月25日前提交，金额为5万元。"
    assert statements(corpus(text), item("amount", "投标保证金")) == []
    assert [s.value.normal for s in statements(corpus(text), item("date", "投标保证金"))] == ["2025-10-25"]


def test_only_values_that_differ_from_the_answer_are_reported_once_each() -> None:
    found = statements(
        corpus("投标保证金为人民币5万元。", "投标保证金：50,000元。", "投标保证金为8万元。", "投标保证金8万元整。"),
        item("amount", "投标保证金"),
    )
    answer = normalise("5万元", "amount")
    assert answer is not None
    assert [s.value.number for s in disagreeing(answer, found)] == [80_000]


def test_an_english_term_is_matched_as_whole_words_only() -> None:
    text = "| 5 | Renewal | Successive renewal terms of 12 months; notice of non-renewal at least 90 days |"
    assert [s.value.normal for s in statements(corpus(text), item("duration", "renewal"))] == ["12 months"]
