"""Citation markers: valid ones kept (and normalised), numbers that name no source removed and counted."""

from __future__ import annotations

import pytest

from pikelocal.domain.answers import Source
from pikelocal.prompts.answer import says_not_stated
from pikelocal.query.verify.attribute import add_missing_citations
from pikelocal.query.verify.citations import CitationFilter, clean_citations, strip_citations


def test_invalid_numbers_are_removed_and_counted() -> None:
    text, cited, removed = clean_citations("The bond is 50,000 yuan [2]. It is refundable [7].", 3)
    assert text == "The bond is 50,000 yuan [2]. It is refundable."
    assert cited == (2,) and removed == 1


def test_lists_full_width_and_repeats() -> None:
    text, cited, removed = clean_citations("甲【1】，乙[3, 1]，丙[1、4]，丁[0]。", 3)
    assert text == "甲[1]，乙[3][1]，丙[1]，丁。"
    assert cited == (1, 3) and removed == 2  # 4 and 0 name no source


def test_brackets_that_are_not_citations_stay() -> None:
    text, cited, removed = clean_citations("Clause [a] and array[ ] stay; see [2].", 2)
    assert text == "Clause [a] and array[ ] stay; see [2]."
    assert cited == (2,) and removed == 0


@pytest.mark.parametrize("cut", range(1, 30))
def test_streaming_gives_the_same_text_wherever_the_deltas_split(cut: int) -> None:
    answer = "The fee is $30 [1][9] and notice is 30 days [2, 3]."
    f = CitationFilter(2)
    shown = f.feed(answer[:cut]) + f.feed(answer[cut:]) + f.finish()
    assert shown == "The fee is $30 [1] and notice is 30 days [2]."
    assert f.cited == [1, 2] and f.removed == 2


def test_a_half_written_marker_is_held_back_until_it_closes() -> None:
    f = CitationFilter(1)
    assert f.feed("Yes [") == "Yes"
    assert f.feed("5") == ""
    assert f.feed("]. Done [1]") == ". Done [1]"
    assert f.finish() == "" and f.removed == 1


def test_an_unclosed_bracket_is_released_at_the_end() -> None:
    f = CitationFilter(1)
    assert f.feed("value [x") == "value"
    assert f.finish() == " [x"


def test_strip_citations_for_scoring() -> None:
    assert strip_citations("Denise Levertov [1][2].") == "Denise Levertov."
    assert strip_citations("五万元【1】") == "五万元"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("文档中没有说明投标保证金的金额。", True),
        ("资料中未提及履约保证金。", True),
        ("The documents do not state the warranty period.", True),
        ("The document does not mention a termination fee.", True),
        ("投标保证金为五万元 [1]。", False),
        ("The buyer may terminate on 30 days' notice [2].", False),
    ],
)
def test_says_not_stated(text: str, expected: bool) -> None:
    assert says_not_stated(text) is expected


def _source(number: int, text: str) -> Source:
    return Source(number, 1, "a.pdf", None, (number,), 1, 1, 1, 2, (), text)


def test_a_missing_citation_is_added_to_the_sentence_that_matches_a_source() -> None:
    sources = [_source(1, "投标有效期为90日历天。"), _source(2, "履约期限：1095 日历天，计划开工日期 2025 年。")]
    text, added = add_missing_citations("服务期为1095日历天。", sources)
    assert text == "服务期为1095日历天 [2]。" and added == (2,)
    text, added = add_missing_citations("Section 1 commences on the date of assent.", [
        _source(1, "The buyer pays within 30 days."),
        _source(2, "This section and section 1 shall commence on the date of assent to this Act."),
    ])  # fmt: skip
    assert text == "Section 1 commences on the date of assent [2]." and added == (2,)


def test_no_citation_is_added_without_a_clear_match_or_when_the_model_cited() -> None:
    sources = [_source(1, "The seller warrants the goods for twelve months.")]
    assert add_missing_citations("Nobody knows the answer.", sources) == ("Nobody knows the answer.", ())
    assert add_missing_citations("Twelve months [1]. Also warrants goods.", sources)[1] == ()
