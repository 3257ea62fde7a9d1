"""Entity names are found by whole units: words in alphabetic scripts, single characters in Chinese."""

from __future__ import annotations

import pytest

from pikelocal.text.entity_names import entity_key, name_pieces, occurs, unit_string, units


def test_a_name_occurs_only_as_whole_words_in_english() -> None:
    text = unit_string("Where did Khanzada Begum's father die? Who is the paternal grandfather?")
    assert occurs("Khanzada Begum", text) and occurs("khanzada  BEGUM", text)
    assert not occurs("Red", text)  # 'whe-re d-id' once the spaces are gone: the bug this module fixes
    assert not occurs("ra", text) and not occurs("an", text)  # in 'paternal', 'grandfather'
    assert not occurs("Begum father", text)  # units must follow one another: 's sits between them
    assert occurs("father", text)


def test_punctuation_and_quote_marks_inside_names() -> None:
    text = unit_string("The Rug Maker’s Daughter (1915), directed by B. S. Ranga; Zubdat-Un-Nissa was his child.")
    assert occurs("The Rug Maker's Daughter", text)  # curly and straight quote marks aside
    assert occurs("B. S. Ranga", text) and occurs("Zubdat-un-Nissa", text)
    assert not occurs("Maker", unit_string("Shoemakers")) and not occurs("", text)


def test_chinese_is_matched_character_by_character_whatever_the_spacing() -> None:
    cover = unit_string("湖 北 省 水 利 厅\n招标人为黄梅县水利和湖泊局。")
    assert occurs("湖北省水利厅", cover) and occurs("黄梅县水利和湖泊局", cover) and occurs("水利", cover)
    assert not occurs("湖北省财政厅", cover)
    assert occurs("ＡＢＣ公司", unit_string("由abc公司承担"))  # full-width letters, case aside


def test_pieces_are_the_keys_of_runs_of_whole_units() -> None:
    pieces = name_pieces("Where did Khanzada Begum's father die?", 2, 80)
    assert entity_key("Khanzada Begum") in pieces and "khanzadabegums" in pieces
    assert "red" not in pieces and "ra" not in pieces
    assert {"水利", "水利厅"} <= name_pieces("省水利厅", 2, 80) and "省" not in name_pieces("省水利厅", 2, 80)
    assert all(len(p) <= 6 for p in name_pieces("one two three four", 1, 6))


# a name as written → the key it is one node under, and its units
FORMS: list[tuple[str, str, list[str]]] = [
    ("Khanzada Begum", "khanzadabegum", ["khanzada", "begum"]),
    ("  KHANZADA  begum ", "khanzadabegum", ["khanzada", "begum"]),
    ("“The Rug Maker’s Daughter”", "therugmakersdaughter", ["the", "rug", "maker", "s", "daughter"]),
    ("《招标投标法》", "招标投标法", ["招", "标", "投", "标", "法"]),
    ("ＡＢＣ公司", "abc公司", ["abc", "公", "司"]),
    ("B. S. Ranga", "b.s.ranga", ["b", ".", "s", ".", "ranga"]),
]


@pytest.mark.parametrize(("name", "key", "name_units"), FORMS)
def test_a_name_keys_and_units(name: str, key: str, name_units: list[str]) -> None:
    assert entity_key(name) == key
    assert units(name) == name_units
