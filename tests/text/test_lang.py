"""Which language a text is in: a table of texts and the language each is read as (a CJK character counts as a word;
Chinese when its characters are at least half as many as the English words of two letters or more)."""

from __future__ import annotations

import pytest

from pikelocal.text.lang import Lang, cjk_count, detect_lang, is_chinese

FORMS: list[tuple[str, Lang, int]] = [
    ("投标保证金是多少？", "zh", 8),
    ("押標金金額為新臺幣35萬元", "zh", 11),  # traditional characters count alike
    ("What is the bid bond?", "en", 0),
    ("", "en", 0),
    ("依据 ISO 9001 标准", "zh", 4),  # a code and a number do not flip a Chinese text
    ("The PPP project in 深圳 was approved by the board", "en", 2),  # 2 characters against 8 words
    ("合同 contract", "zh", 2),  # 2 characters, 1 word
    ("１２３", "en", 0),  # full-width digits are no Chinese
]


@pytest.mark.parametrize(("text", "lang", "cjk"), FORMS)
def test_the_language_a_text_is_read_as(text: str, lang: Lang, cjk: int) -> None:
    assert detect_lang(text) == lang
    assert is_chinese(text) is (lang == "zh")
    assert cjk_count(text) == cjk
