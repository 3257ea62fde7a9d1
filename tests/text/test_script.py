"""Answers in the question's script: detection, OpenCC conversion that spares source quotations, fixed phrases."""

from __future__ import annotations

import pytest

from pikelocal.prompts.answer import answer_messages, cite_each_sentence_grammar, not_stated, says_not_stated
from pikelocal.text.script import Script, convert, detect_script, in_script, to_simplified, to_traditional


def test_a_mixed_answer_is_converted_whole_to_the_questions_script() -> None:
    drifted = "厂商簡報时间不得超过15分钟"  # the answer to a traditional question
    assert convert(drifted, "hant") == "廠商簡報時間不得超過15分鐘"
    assert convert("評審項目佔多少權重", "hans") == "评审项目占多少权重"
    assert convert("Notice takes 30 days.", "en") == "Notice takes 30 days."


def test_phrases_convert_as_phrases_not_characters() -> None:
    assert convert("文档中没有说明押标金", "hant") == "文件中沒有說明押標金"  # Taiwan says 文件, not 文檔
    assert convert("新台币", "hant") == "新臺幣"


def test_a_quotation_standing_in_a_source_keeps_its_characters_and_others_convert() -> None:
    source = "投标有效期为90日历天。"
    text = "依「投标有效期为90日历天」，另依「投标人须知」办理"
    assert convert(text, "hant", keep=[source]) == "依「投标有效期为90日历天」，另依「投標人須知」辦理"
    assert in_script(convert(text, "hant", keep=[source]), "hant", keep=[source])


def test_the_script_is_what_most_characters_say() -> None:
    assert detect_script("投標保證金是多少") == "hant" and detect_script("投标保证金是多少") == "hans"
    assert detect_script("第5条") == "hans"  # nothing traditional: simplified
    assert detect_script("What is the bid bond under 第5条?") == "en"


def test_the_not_stated_phrase_in_each_script_is_recognised() -> None:
    assert not_stated("hans", "押标金金额") == "文档中没有说明押标金金额。"
    assert not_stated("hant", "押標金金額") == "文件中沒有說明押標金金額。"
    assert not_stated("en", "the bid bond") == "The documents do not state the bid bond."
    assert [not_stated(s) for s in ("hans", "hant", "en")] == [
        "文档中没有说明这一点。",
        "文件中沒有說明這一點。",
        "The documents do not state this.",
    ]
    assert all(says_not_stated(not_stated(s, "x")) for s in ("hans", "hant", "en"))  # type: ignore[arg-type]


def test_a_traditional_question_gets_traditional_rules() -> None:
    hant = answer_messages("押標金是多少？", "zh", [(1, "h", "t")], script="hant")[1].content
    hans = answer_messages("押标金是多少？", "zh", [(1, "h", "t")], script="hans")[1].content
    assert "繁體" in hant and "文件中沒有說明" in hant and "繁體" not in hans


def test_the_cite_each_sentence_grammar_compiles_in_llama_cpp() -> None:
    from llama_cpp import LlamaGrammar

    gbnf = cite_each_sentence_grammar(3)
    assert '"1" | "2" | "3"' in gbnf
    LlamaGrammar.from_string(gbnf, verbose=False)


# written, its script, in simplified, in Taiwan's traditional forms
FORMS: list[tuple[str, Script, str, str]] = [
    ("投標保證金是多少", "hant", "投标保证金是多少", "投標保證金是多少"),
    ("投标保证金是多少", "hans", "投标保证金是多少", "投標保證金是多少"),
    ("新台币35万元", "hans", "新台币35万元", "新臺幣35萬元"),
    ("文档中没有说明", "hans", "文档中没有说明", "文件中沒有說明"),
    ("第5条", "hans", "第5条", "第5條"),
    ("Notice takes 30 days.", "en", "Notice takes 30 days.", "Notice takes 30 days."),
]


@pytest.mark.parametrize(("written", "script", "simplified", "traditional"), FORMS)
def test_each_form_in_each_script(written: str, script: Script, simplified: str, traditional: str) -> None:
    assert detect_script(written) == script
    assert (to_simplified(written), to_traditional(written)) == (simplified, traditional)
