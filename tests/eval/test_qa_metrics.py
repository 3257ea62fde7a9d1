"""Answer scoring: expected values are worked out by hand in each test."""

from __future__ import annotations

import pytest

from pikelocal.eval.qa_metrics import (
    Score,
    article_numbers,
    clean_lawbench_gold,
    extract_bool,
    extract_choices,
    mean_scores,
    normalize_en,
    normalize_zh,
    score_articles,
    score_bool,
    score_choice,
    score_item,
    score_text,
    tokens,
)

ONES = Score(1.0, 1.0, 1.0, 1.0)
ZEROS = Score(0.0, 0.0, 0.0, 0.0)


def approx(score: Score, em: float, f1: float, precision: float, recall: float) -> None:
    assert (score.em, score.f1, score.precision, score.recall) == pytest.approx((em, f1, precision, recall))


# --- normalisation and tokens ----------------------------------------------------------------------------------


def test_normalize_en_drops_articles_and_punctuation() -> None:
    assert normalize_en("The Eiffel  Tower!") == "eiffel tower"
    assert normalize_en("an apple, a pear & the U.S.") == "apple pear us"
    assert normalize_en("“Hello,” she said — again…") == "hello she said again"  # Unicode punctuation too
    assert normalize_en("Theater and Anthem") == "theater and anthem"  # articles only as whole words


def test_normalize_zh_full_and_half_width_agree() -> None:
    full = "ＧＤＰ增长２０１９年，“好”！"
    half = 'gdp增长2019年,"好"!'
    assert normalize_zh(full) == normalize_zh(half) == "gdp增长2019年好"
    assert normalize_zh("《刑法》第 264 条（盗窃罪）。") == "刑法第264条盗窃罪"
    assert normalize_zh("甲、乙；丙：丁——戊…己·庚【辛】") == "甲乙丙丁戊己庚辛"


def test_tokens_keep_ascii_runs_whole() -> None:
    assert tokens("2019年", "zh") == ["2019", "年"]
    assert tokens("2019年ＧＤＰ增长", "zh") == ["2019", "年", "gdp", "增", "长"]
    assert tokens("hello world 你好", "zh") == ["hello", "world", "你", "好"]  # whitespace separates words
    assert tokens("北京 is big", None) == ["北", "京", "is", "big"]  # an ideograph makes it Chinese
    assert tokens("The cat, the hat.", None) == ["cat", "hat"]


# --- free text -------------------------------------------------------------------------------------------------


def test_chinese_character_f1() -> None:
    # prediction 北京大学 (4 chars), gold 北京 (2): overlap 2 → P = 2/4, R = 2/2, F1 = 2·0.5·1/1.5 = 2/3
    approx(score_text("北京大学", ["北京"], "zh"), 0.0, 2 / 3, 0.5, 1.0)
    # 我爱我家 vs 我家很好: 我 counts min(2, 1) = 1, 家 1 → overlap 2 of 4 and 4 → P = R = F1 = 0.5
    approx(score_text("我爱我家", ["我家很好"], "zh"), 0.0, 0.5, 0.5, 0.5)
    assert score_text("ＡＢ公司。", ["ab公司"], "zh") == ONES  # full width equals half width


def test_english_word_f1() -> None:
    # [big, red, dog] vs [red, dog, barked]: overlap 2 → P = R = F1 = 2/3
    approx(score_text("the big red dog", ["a red dog barked"], "en"), 0.0, 2 / 3, 2 / 3, 2 / 3)
    assert score_text("The Eiffel Tower.", ["eiffel tower"], "en") == ONES


def test_multiple_golds_take_the_best() -> None:
    # [paris, france] vs "London": 0; vs "Paris": P = 1/2, R = 1, F1 = 2/3
    approx(score_text("Paris France", ["London", "Paris"], "en"), 0.0, 2 / 3, 0.5, 1.0)
    assert score_text("Paris France", ["London", "Paris", "Paris, France"], "en") == ONES


def test_empty_answers() -> None:
    assert score_text("", ["Cork"], "en") == ZEROS
    assert score_text("Cork", [""], "en") == ZEROS
    assert score_text("", [""], "en") == ONES
    assert score_text("the", ["a"], "en") == ONES  # both normalise to nothing
    with pytest.raises(ValueError, match="no gold"):
        score_text("x", [], "en")


# --- choices ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "letters"),
    [
        ("[正确答案]B<eoa>", {"B"}),
        ("分析如下……[正确答案]D<eoa>", {"D"}),
        ("正确答案：C。", {"C"}),
        ("正确答案:A", {"A"}),
        ("答案是 C", {"C"}),
        ("我认为答案：根据题意，应选 D", {"D"}),  # nothing after the marker: falls back to 选
        ("选项B正确", {"B"}),
        ("A, B, C", {"A", "B", "C"}),
        ("ABC", {"A", "B", "C"}),
        ("A和C", {"A", "C"}),
        ("Answer: b", {"B"}),
        ("The answer is B and D.", {"B", "D"}),
        ("(C) is right", {"C"}),
        ("B。", {"B"}),
        ("According to the judgment, the contract was void.", set()),  # the A of a word is no option
        ("A contract is void if ...", set()),  # the article, not option A
        ("BAD faith was shown", set()),  # out-of-order letters make a word
        ("I am not sure.", set()),
    ],
)
def test_extract_choices(reply: str, letters: set[str]) -> None:
    assert extract_choices(reply) == frozenset(letters)


def test_score_choice() -> None:
    assert score_choice("[正确答案]B<eoa>", "正确答案：B。") == ONES
    assert score_choice("A、B、C", "A, B, C") == ONES
    # {A} vs {A, B, C}: P = 1, R = 1/3, F1 = 2·(1/3)/(4/3) = 0.5, no exact match
    approx(score_choice("[正确答案]A<eoa>", "A, B, C"), 0.0, 0.5, 1.0, 1 / 3)
    assert score_choice("B", "正确答案：C。") == ZEROS
    assert score_choice("I cannot tell", "B") == ZEROS


# --- true / false ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("True", True),
        ("T.", True),
        ("Yes, the clause is a penalty.", True),
        ("False", False),
        ("F", False),
        ("No. The orders were set aside.", False),
        ("The statement is false.", False),
        ("It is not true that the orders stood.", False),
        ("True or False? False", False),  # the echoed question is skipped
        ("Answer: TRUE", True),
        ("正确", True),
        ("对。", True),
        ("该说法正确。", True),
        ("错误", False),
        ("不正确，因为……", False),
        ("[正确答案]F<eoa>", False),
        ("对于这个问题，该说法是错误的", False),  # 对于 is not 对
        ("我认为本题的正确答案是：错误", False),  # the 正确 of 正确答案 says nothing
        ("It depends on the facts.", None),
        ("Partly true and partly false.", None),
    ],
)
def test_extract_bool(reply: str, value: bool | None) -> None:
    assert extract_bool(reply) is value


def test_score_bool() -> None:
    assert score_bool("True", "TRUE") == ONES
    assert score_bool("false", "f") == ONES
    assert score_bool("True", "F") == ZEROS
    assert score_bool("It depends.", "T") == ZEROS  # unclear counts as wrong
    with pytest.raises(ValueError, match="T, TRUE, F or FALSE"):
        score_bool("True", "maybe")


# --- articles --------------------------------------------------------------------------------------------------


def test_article_numbers() -> None:
    assert article_numbers("刑法第二百六十四条") == {264}
    assert article_numbers("第一百零三条") == {103}
    assert article_numbers("第十条") == {10}
    assert article_numbers("依照第二百三十二条") == {232}
    assert article_numbers("[法条]刑法第128条、刑法第341条<eoa>") == {128, 341}
    assert article_numbers("刑法第234、275条") == {234, 275}  # LawBench 3-1 gold lists share one 第…条
    assert article_numbers("第２６４条") == {264}
    assert article_numbers("第三人应当承担责任") == frozenset()


def test_score_articles() -> None:
    assert score_articles("根据刑法第二百六十四条", "刑法第264条") == ONES
    # {264, 312} vs {264}: P = 1/2, R = 1, F1 = 2/3
    approx(score_articles("[法条]刑法第264条、刑法第312条<eoa>", "刑法第264条"), 0.0, 2 / 3, 0.5, 1.0)
    assert score_articles("不知道", "刑法第264条") == ZEROS
    assert score_articles("不知道", "无") == ZEROS  # equal but empty sets are no match


# --- golds, dispatch and means ---------------------------------------------------------------------------------


def test_clean_lawbench_gold() -> None:
    assert clean_lawbench_gold("答案:甲。,乙。") == "甲。,乙。"  # 1-1 paragraphs stay joined by ","
    assert clean_lawbench_gold(" 答案：甲 ") == "甲"
    assert clean_lawbench_gold("正确答案：B。") == "B。"
    assert clean_lawbench_gold("正确答案:C。") == "C。"
    assert clean_lawbench_gold("法条:刑法第264条") == "刑法第264条"
    assert clean_lawbench_gold("回答:醉驾可能有影响") == "醉驾可能有影响"
    assert clean_lawbench_gold("根据《公司法》第五条") == "根据《公司法》第五条"


def test_score_item_dispatch() -> None:
    assert score_item("1-2", "[正确答案]B<eoa>", ["B。"]) == ONES
    assert score_item("3-6", "[正确答案]A<eoa>", ["C。"]) == ZEROS
    # {A, B} vs {A, B, C}: P = 1, R = 2/3, F1 = 2·(2/3)/(5/3) = 0.8
    approx(score_item("mcq", "A, B", ["A, B, C"]), 0.0, 0.8, 1.0, 2 / 3)
    assert score_item("mcq", "C", ["A", "C"]) == ONES  # best gold
    assert score_item("3-1", "[法条]刑法第二百六十四条<eoa>", ["刑法第264条"]) == ONES
    assert score_item("tf", "False.", ["F"]) == ONES
    approx(score_item("1-1", "北京大学", ["北京"]), 0.0, 2 / 3, 0.5, 1.0)
    approx(score_item("text", "北京大学", ["北京"]), 0.0, 2 / 3, 0.5, 1.0)  # detected Chinese: by character
    assert score_item("text", "the cat", ["cat"]) == ONES  # detected English: the article goes
    # LawBench text tasks are always Chinese: "the" stays a token → [the, cat] vs [cat]: P = 1/2, R = 1, F1 = 2/3
    approx(score_item("3-8", "the cat", ["cat"]), 0.0, 2 / 3, 0.5, 1.0)
    with pytest.raises(ValueError, match="unknown QA task"):
        score_item("9-9", "x", ["x"])
    with pytest.raises(TypeError):
        score_item("text", "x", "x")


def test_mean_scores() -> None:
    assert mean_scores([]) == ZEROS
    approx(mean_scores([ONES, Score(0.0, 0.5, 0.25, 1.0)]), 0.5, 0.75, 0.625, 1.0)
