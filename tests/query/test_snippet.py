"""Snippets: query terms, marks, the best window and rendering (pure functions)."""

from __future__ import annotations

import pytest

from pikelocal.domain.search import Snippet
from pikelocal.query.retrieve.snippet import find_marks, make_snippet, query_terms


def marked(text: str, query: str) -> list[str]:
    return [text[s:e] for s, e in find_marks(text, query_terms(query))]


def assert_marks_valid(snippet: Snippet) -> None:
    previous_end = -1
    for s, e in snippet.marks:
        assert 0 <= s < e <= len(snippet.text)
        assert s > previous_end  # sorted, merged, never overlapping or touching
        previous_end = e


# --- query terms ---------------------------------------------------------------------------------------------


def test_query_terms_are_cjk_bigrams_and_lowercased_words() -> None:
    assert query_terms("投标保证金") == ["投标", "标保", "保证", "证金"]
    assert query_terms("Bond") == ["bond"]
    assert query_terms("金") == ["金"]  # a lone CJK character is its own term
    assert query_terms("deposit") == ["depos"]  # long words keep a prefix so inflections match
    assert query_terms("bond bond BOND") == ["bond"]


def test_stopwords_and_single_letters_are_no_terms() -> None:
    assert query_terms("What is the deposit of a bidder?") == ["depos", "bidder"]
    assert query_terms("the of and") == []
    assert query_terms("什么 是 的") == []
    assert query_terms("5 x") == ["5"]  # a digit stays, a letter goes


def test_full_width_query_is_normalised() -> None:
    assert query_terms("ＢＯＮＤ") == ["bond"]


# --- marks ---------------------------------------------------------------------------------------------------


def test_chinese_bigrams_mark_the_term_inside_longer_runs() -> None:
    text = "投标人须提交投标保证金，履约保证金另行约定。"
    assert marked(text, "投标保证金") == ["投标", "投标保证金", "保证金"]  # 投标人 (投标) and 履约保证金 (保证金) too
    assert marked(text, "履约保证金") == ["保证金", "履约保证金"]
    assert marked(text, "竣工验收") == []


def test_a_single_cjk_character_is_marked_anywhere() -> None:
    assert marked("合同金额与金价", "金") == ["金", "金"]


def test_english_inflections_are_marked_as_whole_words() -> None:
    text = "Deposits were paid; the deposit is due. A redeposit is not the same."
    assert marked(text, "deposit") == ["Deposits", "deposit"]  # not inside "redeposit"
    assert marked("The bidders and the bidder", "bidder") == ["bidders", "bidder"]
    assert marked("deliver, delivered, delivery", "deliveries") == ["deliver", "delivered", "delivery"]


def test_stopwords_in_the_query_are_not_marked() -> None:
    text = "What is the deposit for the bond?"
    assert marked(text, "what is the deposit for the bond") == ["deposit", "bond"]


def test_words_before_chinese_or_between_spaces_are_marked() -> None:
    assert marked("PDF文件和 Word 格式", "pdf word") == ["PDF", "Word"]


def test_words_right_after_chinese_are_marked() -> None:
    assert marked("请提交PDF文件", "pdf") == ["PDF"]
    assert marked("金额为5万元", "5") == ["5"]


def test_overlapping_terms_merge_into_one_mark() -> None:
    text = "本合同金额为十万元"
    marks = find_marks(text, query_terms("合同 合同金额"))
    assert [text[s:e] for s, e in marks] == ["合同金额"]


# --- the window ----------------------------------------------------------------------------------------------


def test_a_short_text_is_the_whole_snippet_with_whitespace_collapsed() -> None:
    snippet = make_snippet("  The bid\n\n  deposit\tis due.  ", "deposit")
    assert snippet.text == "The bid deposit is due."
    assert [snippet.text[s:e] for s, e in snippet.marks] == ["deposit"]
    assert not snippet.clipped_start and not snippet.clipped_end
    assert snippet.marked() == "The bid [deposit] is due."


def test_the_window_holds_the_most_matches() -> None:
    filler = "lorem ipsum dolor sit amet "  # 27 characters, no query term
    text = (
        filler * 2
        + "one deposit here. "
        + filler * 10
        + "deposit rules: each deposit is refunded, a deposit never lapses. "
        + filler * 12
    )
    snippet = make_snippet(text, "deposit", width=120)
    assert len(snippet.text) == 120
    assert [snippet.text[s:e] for s, e in snippet.marks] == ["deposit"] * 3  # the cluster, not the lone one
    assert "deposit rules: each deposit is refunded, a deposit never lapses." in snippet.text
    assert "one deposit" not in snippet.text
    assert snippet.clipped_start and snippet.clipped_end
    assert_marks_valid(snippet)
    rendered = snippet.marked()
    assert rendered.startswith("…") and rendered.endswith("…")
    assert rendered.count("[deposit]") == 3


def test_window_at_the_start_and_at_the_end_is_clipped_on_one_side_only() -> None:
    filler = "lorem ipsum dolor sit amet " * 20
    head = make_snippet("termination notice. " + filler, "termination", width=100)
    assert not head.clipped_start and head.clipped_end
    assert head.text.startswith("termination notice.")
    assert head.marked().endswith("…") and not head.marked().startswith("…")
    tail = make_snippet(filler + "final termination notice.", "termination", width=100)
    assert tail.clipped_start and not tail.clipped_end
    assert tail.text.endswith("final termination notice.")
    assert tail.marked().startswith("…") and not tail.marked().endswith("…")
    for snippet in (head, tail):
        assert [snippet.text[s:e] for s, e in snippet.marks] == ["termination"]


def test_no_match_gives_the_start_of_the_text() -> None:
    text = "甲方与乙方签订本合同。" * 40
    snippet = make_snippet(text, "zebra", width=50)
    assert snippet.text == text[:50] and snippet.marks == ()
    assert not snippet.clipped_start and snippet.clipped_end
    assert snippet.marked() == text[:50] + "…"


def test_long_chinese_text_window_and_marks_point_at_the_term() -> None:
    text = (
        "甲方与乙方签订本合同。" * 30 + "投标人应提交投标保证金，投标保证金为五万元。" + "甲方与乙方签订本合同。" * 30
    )
    snippet = make_snippet(text, "投标保证金", width=60)
    assert_marks_valid(snippet)
    assert [snippet.text[s:e] for s, e in snippet.marks] == ["投标", "投标保证金", "投标保证金"]
    assert snippet.clipped_start and snippet.clipped_end
    assert snippet.marked("<b>", "</b>").count("<b>投标保证金</b>") == 2


@pytest.mark.parametrize("width", [20, 60, 240])
def test_marks_are_within_bounds_for_any_width(width: int) -> None:
    text = " ".join(f"clause {i} deposit paid" for i in range(60))
    snippet = make_snippet(text, "deposit clause", width=width)
    assert len(snippet.text) == width
    assert_marks_valid(snippet)
    assert snippet.marks
    for s, e in snippet.marks:
        assert snippet.text[s:e] in ("clause", "deposit")


def test_render_with_custom_markers_keeps_the_text() -> None:
    snippet = Snippet("abc def ghi", ((4, 7),), False, False)
    assert snippet.marked("**", "**") == "abc **def** ghi"
    assert Snippet("abc", (), True, True).marked() == "…abc…"


def test_full_width_text_is_marked() -> None:
    assert marked("ＰＤＦ 文件", "PDF") == ["ＰＤＦ"]


def test_the_snippet_starts_at_the_sentence_holding_the_most_distinct_terms() -> None:
    # A chunk opening with another clause (the demo's first hit for this question opened at 第二条): a display
    # that shows the snippet's first line must show 第十条's sentence.
    text = (
        "第二条 投标人资格要求 投标人须具有独立法人资格，近五年内无重大违法记录。"
        "第十条 投标保证金 投标人应于2026年12月15日前提交投标保证金人民币伍万元整。逾期不予受理。"
    )
    snippet = make_snippet(text, "投标保证金是多少？什么时候提交？")
    assert snippet.text.startswith("第十条 投标保证金 投标人应于2026年12月15日前提交投标保证金")
    assert snippet.clipped_start and not snippet.clipped_end
    assert snippet.marked().startswith("…第十条 [投标保证金]")
    assert_marks_valid(snippet)
    english = make_snippet("Scope of works. The bid bond is AUD 5,000 and is due with the bid.", "bid bond due")
    assert english.text == "The bid bond is AUD 5,000 and is due with the bid."


def test_a_markdown_heading_starts_a_sentence() -> None:
    text = "## 第二章 投标人须知\n\n### 第十条 投标保证金\n\n投标人应于2026年12月15日前提交投标保证金。"
    snippet = make_snippet("# 第一章 招标公告\n\n本项目已具备招标条件。\n\n" + text, "投标保证金是多少？")
    assert snippet.text.startswith("### 第十条 投标保证金 投标人应于")
