"""Sentences stating the language bids are written in (text/bid_languages.py), as tenders print them."""

from __future__ import annotations

import pytest

from pikelocal.text.bid_languages import bid_language


@pytest.mark.parametrize(
    "sentence",
    [
        "9.1 除招标文件另有规定外，投标文件应使用中文文本，若有不同文本，以中文文本为准。",
        "招标投标文件使用的语言文字为中文。",
        "1.1供应商提交的资格证明文件、商务技术文件，包括技术资料等中的说明以及所有来往函电，均应使用中文简体字。",
        "１ 所提內容，包括其他相關文件，請以正體中文呈現。",
        "服務建議書一律以 A4 紙張中文橫式撰寫。",
        "內文應以中文由左至右橫式繕打撰寫(如有必要時，得以英文註記)。",
        "1、投标文件必须使用简体中文，投标文件中若有英文或其他语言文字的资料，应翻译成中文。",
    ],
)
def test_a_language_stated(sentence: str) -> None:
    assert bid_language(sentence) == " ".join(sentence.split())


@pytest.mark.parametrize(
    "sentence",
    [
        "供应商名称应填写营业执照上的中文名称。",  # a name's Chinese form
        "本项目为中文教学平台的建设与维护。",  # no document's language
        "投标文件应使用A4纸装订成册。",  # no language
        "7.5 质疑函的方式：书面形式，质疑函应当使用中文。",  # a challenge's language
        "5.4 招标文件以中文为准。",  # which text prevails
        "程式(Windows 等作業系統及中文字型依其版權宣告為準)",  # a font
    ],
)
def test_no_language_where_the_sentence_says_another_thing(sentence: str) -> None:
    assert bid_language(sentence) is None
