"""The TUI's pure render functions (clip, citations, cited lines, page table, reasoning) and PageRecord.lines."""

from __future__ import annotations

import io
import re

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from textual.content import Content

from pikelocal.domain.answers import Answer, CallCost, Candidate, QueryTrace, Round, Source
from pikelocal.domain.documents import PageRecord
from pikelocal.domain.events import ReasoningStep
from pikelocal.tui.render import (
    answer_content,
    cited_lines,
    clip,
    file_name,
    page_table,
    reasoning_text,
    source_prompt,
    step_text,
    without_dirs,
)


def make_source(
    number: int = 1,
    *,
    path: str = "/docs/a.pdf",
    title: str | None = None,
    page_start: int | None = 1,
    page_end: int | None = 1,
    line_start: int | None = None,
    line_end: int | None = None,
    text: str = "some cited text",
) -> Source:
    return Source(
        number=number,
        doc_id=1,
        path=path,
        title=title,
        chunk_ids=(number,),
        page_start=page_start,
        page_end=page_end,
        line_start=line_start,
        line_end=line_end,
        section=(),
        text=text,
    )


def make_trace(mode: str = "decompose", rounds: tuple[Round, ...] = (), sources: tuple[Source, ...] = ()) -> QueryTrace:
    answer = Answer(
        question="q?",
        mode=mode,  # type: ignore[arg-type]
        lang="en",
        text="answer [1]",
        sources=sources,
        cited=(1,),
        removed_citations=0,
        unsupported=False,
    )
    return QueryTrace(
        question="q?",
        mode=mode,  # type: ignore[arg-type]
        rounds=rounds,
        answer=answer,
        calls=(CallCost("answer", 10, 5, 0.1, False),),
        first_token_s=0.1,
        total_s=0.2,
        model_id="test-model",
    )


def render(table: Table, width: int = 60) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(table)
    return console.export_text().splitlines()


# --- clip -------------------------------------------------------------------------------------------------------


def test_clip_collapses_whitespace_to_one_line() -> None:
    assert clip("  a\n b\t\tc  \r\n d ", 40) == "a b c d"


def test_clip_leaves_text_that_fits_unchanged() -> None:
    assert clip("hello world", 11) == "hello world"


def test_clip_cuts_with_ellipsis_within_the_cells() -> None:
    out = clip("hello world", 8)
    assert out == "hello w…"
    assert cell_len(out) == 8


@pytest.mark.parametrize("cells", range(2, 12))
def test_clip_counts_cjk_as_two_cells(cells: int) -> None:
    out = clip("中文字符测试一二三四", cells)  # 20 cells
    assert cell_len(out) <= cells
    assert out.endswith("…")
    assert cell_len(out) >= cells - 1  # at most one cell left over, where a wide character did not fit


def test_clip_mixed_chinese_and_english() -> None:
    text = "PikeRAG 是一个 document QA 工具"
    assert clip(text, cell_len(text)) == text
    out = clip(text, 14)
    assert cell_len(out) <= 14 and out.endswith("…")
    assert out.startswith("PikeRAG 是")


# --- answer_content -----------------------------------------------------------------------------------------------


def click_spans(content: Content) -> dict[str, str]:
    """The text under each span whose style holds a click action, mapped to that style."""
    return {content.plain[s.start : s.end]: str(s.style) for s in content.spans if "@click" in str(s.style)}


def test_answer_content_keeps_the_text_exactly() -> None:
    text = "Alpha [1]. Beta [2, 3]. Gamma [9]. Literal [b]markup[/b] stays."
    content = answer_content(text, [1, 2])
    assert isinstance(content, Content)
    assert content.plain == text


def test_answer_content_links_known_markers_to_their_source() -> None:
    content = answer_content("Alpha [1]. Beta [2, 3]. Gamma [9].", [1, 2])
    spans = click_spans(content)
    assert set(spans) == {"1", "2"}
    assert "screen.open_source(1)" in spans["1"]
    assert "screen.open_source(2)" in spans["2"]


def test_answer_content_leaves_unknown_numbers_unlinked() -> None:
    content = answer_content("Beta [2, 3]. Gamma [9].", [2])
    styles = " ".join(str(s.style) for s in content.spans)
    assert "open_source(3)" not in styles and "open_source(9)" not in styles
    assert [content.plain[s.start : s.end] for s in content.spans if "@click" in str(s.style)] == ["2"]


def test_answer_content_without_markers_has_no_links() -> None:
    content = answer_content("No citations here.", [1, 2])
    assert content.plain == "No citations here."
    assert click_spans(content) == {}


# --- cited_lines --------------------------------------------------------------------------------------------------


def test_cited_lines_on_a_single_page() -> None:
    source = make_source(page_start=4, page_end=4, line_start=2, line_end=3)
    assert cited_lines(source, 4, 10) == {2, 3}
    assert cited_lines(source, 5, 10) == set()


def test_cited_lines_across_pages() -> None:
    source = make_source(page_start=1, page_end=2, line_start=30, line_end=4)
    assert cited_lines(source, 1, 35) == set(range(30, 36))
    assert cited_lines(source, 2, 40) == {1, 2, 3, 4}
    assert cited_lines(source, 3, 40) == set()


def test_cited_lines_of_an_unpaged_document_are_on_its_one_page() -> None:
    source = make_source(page_start=None, page_end=None, line_start=1, line_end=3)  # a workbook, a .docx
    assert cited_lines(source, 1, 10) == {1, 2, 3}
    assert cited_lines(make_source(page_start=None, page_end=None, line_start=None, line_end=None), 1, 10) == set()


def test_cited_lines_clips_line_end_to_the_page() -> None:
    source = make_source(page_start=2, page_end=2, line_start=5, line_end=99)
    assert cited_lines(source, 2, 7) == {5, 6, 7}


# --- paths -------------------------------------------------------------------------------------------------------


def test_without_dirs_drops_the_folder_of_the_path() -> None:
    path = "/home/me/papers/bad.pdf"
    assert without_dirs(f"{path}: encrypted", path) == "bad.pdf: encrypted"


def test_without_dirs_leaves_a_bare_file_name_alone() -> None:
    assert without_dirs("bad.pdf: encrypted", "bad.pdf") == "bad.pdf: encrypted"


@pytest.mark.parametrize("path", ["/a/b/report.pdf", "C:\\a\\b\\report.pdf", "a/b\\report.pdf", "report.pdf"])
def test_file_name_with_either_slash(path: str) -> None:
    assert file_name(path) == "report.pdf"


# --- page_table ---------------------------------------------------------------------------------------------------


def test_page_table_has_one_row_per_line() -> None:
    page = PageRecord(1, 1, "one\ntwo\nthree\n", (0, 4, 8))
    assert page_table(page, set()).row_count == 3


def test_page_table_marks_only_highlighted_lines() -> None:
    page = PageRecord(1, 1, "one\ntwo\nthree\nfour\n", (0, 4, 8, 14))
    lines = render(page_table(page, {2, 3}))
    assert len(lines) == 4
    for line in lines:
        number = int(line[:4])
        assert (line[5] == "▌") == (number in {2, 3}), line
        assert "▌" not in line[6:]


def test_page_table_wraps_a_wide_cjk_line_under_its_column() -> None:
    wide = "中文" * 30  # 120 cells: wraps at width 60
    page = PageRecord(1, 1, f"first\n{wide}\nthird\n", (0, 6, 6 + len(wide) + 1))
    lines = render(page_table(page, {2}))
    assert all(cell_len(line) <= 60 for line in lines)
    numbered = [i for i, line in enumerate(lines) if line[:4].strip()]
    assert [lines[i][:4].strip() for i in numbered] == ["1", "2", "3"]
    start, end = numbered[1], numbered[2]
    assert end - start >= 2  # line 2 took more than one row
    column = lines[start].index("中")
    for continuation in lines[start + 1 : end]:
        assert continuation[:column].strip() == ""  # nothing in the number or marker columns
        assert continuation.index("中") == column
    assert "".join(line[column:].strip() for line in lines[start:end]) == wide


# --- PageRecord.lines ---------------------------------------------------------------------------------------------


def test_page_lines_split_at_offsets_without_newlines() -> None:
    text = "first line\nsecond\n\nfourth"
    page = PageRecord(1, 1, text, (0, 11, 18, 19))
    assert page.lines() == ["first line", "second", "", "fourth"]


def test_page_lines_strip_crlf() -> None:
    page = PageRecord(1, 1, "ab\r\ncd\r\n", (0, 4))
    assert page.lines() == ["ab", "cd"]


def test_page_lines_without_offsets_is_the_whole_text() -> None:
    page = PageRecord(1, 1, "all\nof it", ())
    assert page.lines() == ["all\nof it"]


# --- reasoning ----------------------------------------------------------------------------------------------------


def decompose_trace(context_chars_text: str = "second source text") -> QueryTrace:
    round1 = Round(
        number=1,
        proposals=("What is X?", "When did Y happen?"),
        candidates=(
            Candidate(chunk_id=3, text="Unpicked atomic question?", score=0.5, source="atoms"),
            Candidate(chunk_id=7, text="Picked atomic question?", score=0.9, source="atoms"),
        ),
        picked=1,
        chunk_added=7,
        chunk_location="a.pdf, p. 3, lines 1–9",
    )
    round2 = Round(number=2, proposals=(), candidates=(), picked=None, chunk_added=None, stop="enough")
    sources = (
        make_source(1, path="/docs/a.pdf", page_start=3, text="first source text"),
        make_source(2, path="/docs/b.pdf", page_start=5, text=context_chars_text),
    )
    return make_trace("decompose", (round1, round2), sources)


def test_reasoning_text_shows_each_round() -> None:
    plain = reasoning_text(decompose_trace()).plain
    assert "Round 1" in plain and "Round 2" in plain
    assert "What is X?" in plain and "When did Y happen?" in plain
    assert "a.pdf, p. 3, lines 1–9" in plain
    assert "stop: enough" in plain


def test_reasoning_text_marks_only_the_picked_candidate() -> None:
    plain = reasoning_text(decompose_trace()).plain
    picks = [line for line in plain.splitlines() if "→" in line]
    assert len(picks) == 1
    assert "Picked atomic question?" in picks[0]
    assert "Unpicked atomic question?" not in plain


def test_reasoning_text_ends_with_the_context_sent() -> None:
    plain = reasoning_text(decompose_trace()).plain
    heading_at = plain.index("Context sent for the answer")
    first = plain.index("first source text")
    second = plain.index("second source text")
    assert heading_at < first < second
    assert plain.index("[1] ") > heading_at and plain.index("[2] ") > heading_at


def test_reasoning_text_cuts_long_sources() -> None:
    long_text = "word " * 100  # 500 characters
    plain = reasoning_text(decompose_trace(long_text), context_chars=50).plain
    assert long_text[:50] + " …" in plain
    assert long_text[:51] not in plain


def test_reasoning_text_for_a_mode_without_rounds() -> None:
    plain = reasoning_text(make_trace("naive", (), (make_source(1, text="the only source"),))).plain
    assert "No decomposition rounds" in plain
    assert "Round " not in plain
    assert "the only source" in plain


def test_step_text() -> None:
    assert step_text(ReasoningStep(round=2, kind="pick", text="x")).plain == "R2 → x"


# --- source_prompt ------------------------------------------------------------------------------------------------


def test_source_prompt_is_location_then_text() -> None:
    source = make_source(
        3,
        path="/docs/年度报告.pdf",
        title="公司治理与风险管理",
        page_start=3,
        page_end=3,
        line_start=2,
        line_end=9,
        text="本公司在报告期内持续完善治理结构，" * 10,
    )
    lines = source_prompt(source, 76).plain.split("\n")
    assert len(lines) == 2
    assert lines[0].startswith("[3] ")
    assert source.location() in lines[0]
    assert lines[1].strip().startswith("本公司")
    assert all(cell_len(line) <= 76 for line in lines), [cell_len(line) for line in lines]


@pytest.mark.parametrize("path", ["/docs/年度报告.pdf", "/docs/二〇二三年度公司治理与风险管理专项审计报告全文.pdf"])
def test_source_prompt_fits_a_narrow_width(path: str) -> None:
    source = make_source(
        1,
        path=path,
        title="公司治理与风险管理章节",
        page_start=3,
        page_end=3,
        line_start=2,
        line_end=9,
        text="本公司在报告期内持续完善治理结构，" * 10,
    )
    lines = source_prompt(source, 40).plain.split("\n")
    assert all(cell_len(line) <= 40 for line in lines), [cell_len(line) for line in lines]


def test_source_prompt_head_is_bold_when_cited_and_dim_when_not() -> None:
    for cited, style in ((True, "bold"), (False, "dim")):
        prompt = source_prompt(make_source(1), 60, cited=cited)
        assert re.match(r"\[1\] a\.pdf, p\. 1", prompt.plain)
        assert any(span.start == 0 and str(span.style) == style for span in prompt.spans), prompt.spans


def test_an_uncited_source_shows_its_sentence_closest_to_the_question() -> None:
    text = "第二条 投标人资格要求。投标人须具有独立法人资格。第十条 投标保证金为人民币伍万元整，于开标前提交。"
    source = make_source(2, text=text)
    shown = source_prompt(source, 60, cited=False, question="投标保证金是多少？").plain.split("\n")[1].strip()
    assert shown.startswith("第十条 投标保证金为人民币伍万元整")
    assert source_prompt(source, 60, cited=False).plain.split("\n")[1].strip().startswith("第二条")  # no question


def test_cited_excerpt_is_the_source_sentence_closest_to_the_citing_answer_sentence() -> None:
    from pikelocal.tui.render import cited_excerpt

    source = make_source(2, text="投标保证金为五万元。履约保证金为合同价款的百分之十。退还期限为二十八日。")
    answer = "投标保证金见另一来源 [1]。履约保证金是合同价款的百分之十 [2]。"
    assert cited_excerpt(source, answer) == "履约保证金为合同价款的百分之十。"
    assert cited_excerpt(source, "nothing cites it") == source.text  # no citing sentence: the whole source


def test_excerpt_lines_are_the_lines_holding_the_sentence_among_the_source_lines() -> None:
    from pikelocal.tui.render import excerpt_lines

    lines = ["# 标题", "The seller warrants that the goods", "are free from defects.", "Other text here."]
    sentence = "The seller warrants that the goods are free from defects."
    assert excerpt_lines(lines, sentence, {1, 2, 3, 4}) == {2, 3}
    assert excerpt_lines(lines, sentence, {3, 4}) == {3}  # only lines of the cited source count
    assert excerpt_lines(lines, "", {1, 2, 3, 4}) == set()
