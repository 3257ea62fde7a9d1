"""The LLM-guided splitter on a scripted model: boundaries, tiling, positions, running summary, fallback, retry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pikelocal.domain import CachedCompletion
from pikelocal.ingest.read.parse import ParsedDocument, ParsedPage
from pikelocal.ingest.read.textcheck import line_offsets
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from pikelocal.ingest.split.split_llm import LLMSplit, LLMSplitter, end_range, is_heading, line_pieces
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.cached import CachedLLM
from pikelocal.llm.fake import FakeLLM, word_count
from pikelocal.prompts.base import ReplyError
from pikelocal.prompts.split import NO_PREVIOUS, dedupe_sentences, split_prompt
from tests.support.split_scripts import _LINE, _RANGE, Chooser, at_topic_end, reply, script, topic_text, window_of  # noqa: F401

OPTIONS = SplitOptions(target=30, min_tokens=10, max_tokens=50)  # word counts (the fake's tokens)


def document(*pages: str, title: str = "Doc") -> ParsedDocument:
    parsed = tuple(ParsedPage(n, text, line_offsets(text)) for n, text in enumerate(pages, 1))
    return ParsedDocument(Path("doc.md"), "markdown", title, parsed, "utf-8", ())


def split(text: str, llm: FakeLLM | CachedLLM, options: SplitOptions = OPTIONS) -> LLMSplit:
    return LLMSplitter(llm).split(text, word_count, options, title="Doc")


def assert_tiles(text: str, result: LLMSplit) -> None:
    spans = [c.span for c in result.chunks]
    assert "".join(text[s.start : s.end] for s in spans) == text
    assert spans[0].start == 0 and spans[-1].end == len(text)
    assert all(a.end == b.start and a.end > a.start for a, b in zip(spans, spans[1:], strict=False))


# -- boundaries, tiling, positions ------------------------------------------------------------------


def test_chunks_end_after_the_named_line_and_tile_a_two_page_document() -> None:
    pages = (topic_text(5), topic_text(5, start=5))
    llm = FakeLLM({"split": script(at_topic_end)})
    chunked = chunk_document(document(*pages), word_count, OPTIONS, llm_splitter=LLMSplitter(llm))
    text = chunked.text.text
    chunks = chunked.chunks
    assert "".join(c.text for c in chunks) == text
    assert all(a.char_end == b.char_start for a, b in zip(chunks, chunks[1:], strict=False))
    assert [c.ord for c in chunks] == list(range(len(chunks)))
    # every topic is one chunk: each ends right after the line the model named
    assert len(chunks) == 10
    assert all(c.text.rstrip().endswith("(end of topic)") and c.text.count("(end of topic)") == 1 for c in chunks)
    for c in chunks:
        first_line, last_line = c.text.strip().splitlines()[0], c.text.strip().splitlines()[-1]
        for line, page_no, line_no in ((first_line, c.page_start, c.line_start), (last_line, c.page_end, c.line_end)):
            page = pages[page_no - 1]  # type: ignore[operator]
            assert page.splitlines()[line_no - 1] == line  # type: ignore[operator]
    second = [c for c in chunks if c.text.startswith("Topic 5 line 0")]
    assert [(c.page_start, c.line_start, c.page_end, c.line_end) for c in second] == [(2, 1, 2, 4)]
    assert chunked.llm_split is not None and chunked.llm_split.fallbacks == 0


def test_the_window_is_numbered_lines_within_the_budget_and_the_range_keeps_sizes() -> None:
    text = topic_text(10)
    llm = FakeLLM({"split": script(at_topic_end)})
    split(text, llm)
    lines, first, last = window_of(llm.calls[0].messages)
    assert lines[0] == "Topic 0 line 0 says alpha beta." and lines[3].endswith("(end of topic)")
    assert sum(word_count(line) for line in lines) <= 3 * OPTIONS.target  # blank lines folded, not numbered
    assert len(lines) == 12 and (first, last) == (2, 7)  # ≥ 10 words needs 2 lines; ≤ 50 words allows 7
    schema = llm.calls[0].params.json_schema
    assert schema is not None and schema["properties"]["end_line"]["enum"] == list(range(2, 8))


def test_end_range() -> None:
    assert end_range([5, 5, 5, 5], OPTIONS) == (2, 4)
    assert end_range([3, 3], OPTIONS) == (2, 2)  # too short to reach min: the whole window
    assert end_range([60, 5], OPTIONS) == (1, 1)  # one overlong line alone
    assert end_range([8, 45, 5], OPTIONS) == (1, 1)  # the min would break the max: the max wins


def test_section_paths_follow_headings() -> None:
    text = "# Guide\n\n## Part A\n\n" + topic_text(2) + "## Part B\n\n" + topic_text(2, start=2)

    def at_heading(lines: list[str], first: int, last: int) -> int:
        before = [n - 1 for n, line in enumerate(lines, 1) if line.startswith("## Part B") and first <= n - 1 <= last]
        return before[0] if before else last

    result = split(text, FakeLLM({"split": script(at_heading)}), SplitOptions(target=60, min_tokens=10, max_tokens=80))
    assert_tiles(text, result)
    paths = [(text[c.span.start : c.span.end].split("\n")[0], c.span.section_path) for c in result.chunks]
    assert paths == [("# Guide", ("Guide",)), ("## Part B", ("Guide", "Part B"))]  # as split_structured has them


def test_a_line_longer_than_max_is_cut_and_no_chunk_exceeds_max() -> None:
    long_line = " ".join(f"Sentence {i} has some words in it." for i in range(30)) + "\n"
    text = topic_text(2) + long_line + topic_text(2, start=2)
    pieces = line_pieces(text, word_count, OPTIONS)
    assert "".join(text[p.start : p.end] for p in pieces) == text
    assert all(p.tokens <= OPTIONS.max_tokens for p in pieces)
    result = split(text, FakeLLM({"split": script(lambda lines, first, last: last)}))
    assert_tiles(text, result)
    assert all(c.span.tokens <= OPTIONS.max_tokens for c in result.chunks)


# -- the running summary -----------------------------------------------------------------------------


def test_the_forward_summary_of_one_window_is_in_the_next_prompt() -> None:
    def answer(messages: Sequence[Message], params: GenParams) -> str:
        lines, first, last = window_of(messages)
        return reply(at_topic_end(lines, first, last), forward=f"Carried from {lines[0][:7]}.")

    llm = FakeLLM({"split": answer})
    split(topic_text(6), llm)
    prompts = [c.messages[1].content for c in llm.calls]
    assert len(prompts) == 6
    assert NO_PREVIOUS["en"] in prompts[0] and "Carried from" not in prompts[0]
    for k in range(1, 6):
        assert f"So far: Carried from Topic {k - 1}." in prompts[k]
        # fixed instructions first, then the summary so far, the numbered lines last
        assert prompts[k].index("Rules:") < prompts[k].index("So far:") < prompts[k].index("[1] ")


# -- fallback and retry -------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["this is not JSON", reply(99)])
def test_a_window_answered_badly_twice_falls_back_to_the_structure_split(bad: str) -> None:
    def answer(messages: Sequence[Message], params: GenParams) -> str:
        lines, first, last = window_of(messages)
        if lines[0].startswith("Topic 2 "):
            return bad
        return reply(at_topic_end(lines, first, last), forward=f"Carried from {lines[0][:7]}.")

    text = topic_text(6)
    llm = FakeLLM({"split": answer})
    result = split(text, llm)
    assert_tiles(text, result)
    assert result.fallbacks == 1 and len(result.errors) == 1
    assert ("invalid JSON" if bad.startswith("this") else "outside the allowed range") in result.errors[0]
    fallen = [c for c in result.chunks if text[c.span.start :].startswith("Topic 2 ")]
    assert len(fallen) == 1 and fallen[0].summary is None
    assert text[fallen[0].span.start : fallen[0].span.end] == topic_text(1, start=2)  # the paragraph, by structure
    later = [c.messages[1].content for c in llm.calls if "[1] Topic 3 " in c.messages[1].content]
    assert later and "So far: Carried from Topic 1." in later[0]  # the loop goes on with the earlier summary
    assert result.calls == len(llm.calls) == 7  # six windows, one of them asked twice


def test_a_reply_bad_once_then_good_costs_two_calls_and_its_boundary_is_used() -> None:
    def answer(messages: Sequence[Message], params: GenParams) -> str:
        lines, first, last = window_of(messages)
        if lines[0].startswith("Topic 1 ") and len(messages) == 2:
            return '{"end_line": '
        return reply(at_topic_end(lines, first, last))

    text = topic_text(4)
    llm = FakeLLM({"split": answer})
    result = split(text, llm)
    window = [c for c in llm.calls if "[1] Topic 1 " in c.messages[1].content]
    assert len(window) == 2
    assert window[1].messages[2] == Message("assistant", '{"end_line": ')
    assert "invalid JSON" in window[1].messages[3].content
    assert result.fallbacks == 0 and result.calls == 5
    assert [text[c.span.start : c.span.end] for c in result.chunks] == [topic_text(1, start=t) for t in range(4)]


def test_a_model_that_always_answers_line_one_still_finishes_with_bounded_calls() -> None:
    text = "".join(f"w{i}\n" for i in range(400))  # 400 one-word lines
    llm = FakeLLM({"split": reply(1)})
    result = split(text, llm)
    assert_tiles(text, result)
    chunks = result.chunks
    assert all(c.span.tokens >= OPTIONS.min_tokens for c in chunks[:-1])
    assert all(c.span.tokens <= OPTIONS.max_tokens for c in chunks)
    assert result.calls == len(llm.calls) <= 2 * len(chunks) and len(chunks) <= 400 // OPTIONS.min_tokens + 1
    assert result.fallbacks == result.windows == len(chunks) and result.calls == 2 * len(chunks)


def test_a_model_at_line_one_is_valid_when_one_line_reaches_min() -> None:
    text = topic_text(3)
    options = SplitOptions(target=10, min_tokens=5, max_tokens=20)
    result = split(text, FakeLLM({"split": reply(1)}), options)
    assert_tiles(text, result)
    assert result.fallbacks == 0 and all(c.span.tokens >= 5 for c in result.chunks)


# -- the rest of the document, empty text -----------------------------------------------------------


def test_the_rest_within_target_is_the_last_chunk_and_gets_a_summary() -> None:
    text = topic_text(1)  # 28 words ≤ target 30: one call, range fixed at its last line
    llm = FakeLLM({"split": script(lambda lines, first, last: last)})
    result = split(text, llm)
    assert len(result.chunks) == 1 and result.chunks[0].summary == "About Topic 0 line 0 says alpha beta."
    assert window_of(llm.calls[0].messages)[1:] == (4, 4)


def test_empty_and_blank_texts_need_no_call() -> None:
    llm = FakeLLM({})
    assert split("", llm).chunks == ()
    blank = split("\n  \n", llm)
    assert [(c.span.start, c.span.end, c.summary) for c in blank.chunks] == [(0, 4, None)]
    assert llm.calls == []


# -- language, summaries, cache ---------------------------------------------------------------------


def test_chinese_document_gets_the_chinese_prompt_and_english_the_english_one() -> None:
    zh = "".join(f"第{i}条 投标人应当按照招标文件的要求编制投标文件，并在截止时间前提交。\n" for i in range(1, 4))
    zh_llm = FakeLLM({"split": lambda m, p: reply(window_of(m)[2], summary="投标文件的编制与提交。")})
    split(zh, zh_llm)
    system, user = zh_llm.calls[0].messages
    assert "文档切分助手" in system.content and "前文概要：（无，这是文档开头）" in user.content
    en_llm = FakeLLM({"split": script(at_topic_end)})
    split(topic_text(1), en_llm)
    system, user = en_llm.calls[0].messages
    assert system.content.startswith("You split documents") and "So far: (none" in user.content


def test_an_english_summary_for_a_chinese_document_is_asked_again() -> None:
    zh = "第一条 投标人应当按照招标文件的要求编制投标文件。\n"
    llm = FakeLLM({"split": reply(1, summary="How to prepare the bid.")})
    result = split(zh, llm)
    assert result.fallbacks == 1 and "Chinese" in result.errors[0] and len(llm.calls) == 2


def test_summaries_land_in_the_chunks() -> None:
    llm = FakeLLM({"split": script(at_topic_end)})
    chunked = chunk_document(document(topic_text(3)), word_count, OPTIONS, llm_splitter=LLMSplitter(llm))
    assert [c.summary for c in chunked.chunks] == [f"About Topic {t} line 0 says alpha beta." for t in range(3)]
    assert all(c.header == "Doc" for c in chunked.chunks)


def test_without_a_splitter_chunks_have_no_summary() -> None:
    chunked = chunk_document(document(topic_text(3)), word_count, OPTIONS)
    assert chunked.llm_split is None and all(c.summary is None for c in chunked.chunks)


class _DictCache:
    def __init__(self) -> None:
        self.rows: dict[str, CachedCompletion] = {}

    def get_cached_completion(self, key: str) -> CachedCompletion | None:
        return self.rows.get(key)

    def put_cached_completion(self, c: CachedCompletion) -> None:
        self.rows[c.key] = c


def test_a_rerun_over_the_cache_asks_nothing_and_gives_the_same_chunks() -> None:
    cache = _DictCache()
    fake = FakeLLM({"split": script(at_topic_end)})
    text = topic_text(5)
    first = split(text, CachedLLM(fake, cache))
    n = len(fake.calls)
    again = split(text, CachedLLM(fake, cache))
    assert len(fake.calls) == n and again.cached == again.calls == first.calls
    assert again.chunks == first.chunks


def test_split_prompt_schema_and_parser_agree_on_the_allowed_lines() -> None:
    prompt = split_prompt((3, 5, 6))
    assert prompt.name == "split"
    prop = prompt.schema["properties"]["end_line"]
    assert (prop["minimum"], prop["maximum"], prop["enum"]) == (3, 6, [3, 5, 6])
    fields = {"first_line": 3, "last_line": 6, "previous": ""}
    assert prompt.parse({"end_line": 5, "summary": "ok fine", "forward_summary": ""}, "en", fields).end_line == 5
    with pytest.raises(ReplyError, match="line 4 is a heading"):
        prompt.parse({"end_line": 4, "summary": "ok fine", "forward_summary": ""}, "en", fields)
    with pytest.raises(ReplyError, match="outside the allowed range 3 to 6"):
        prompt.parse({"end_line": 7, "summary": "ok fine", "forward_summary": ""}, "en", fields)
    with pytest.raises(ReplyError, match="line number"):
        prompt.parse({"end_line": True, "summary": "ok fine", "forward_summary": ""}, "en", fields)
    assert "enum" not in split_prompt(tuple(range(1, 501))).schema["properties"]["end_line"]


def test_a_summary_looping_on_itself_is_cut_and_one_copying_the_previous_is_dropped() -> None:
    assert dedupe_sentences("投标保证金五万元。投标保证金五万元。投标保证金五万元。") == "投标保证金五万元。"
    assert dedupe_sentences("Bids close at noon. Bids close at noon.") == "Bids close at noon."
    prompt = split_prompt((1,))
    fields = {"first_line": 1, "last_line": 1, "previous": "本法规范招标投标。", "previous_summary": "总则的规定。"}
    for copied in ("本法规范招标投标。", "总则的规定", "总则的规定。总则的规定。"):
        data = {"end_line": 1, "summary": copied, "forward_summary": "本法规范招标投标。"}
        assert prompt.parse(data, "zh", fields).summary is None
    data = {"end_line": 1, "summary": "招标的方式。", "forward_summary": ""}
    assert prompt.parse(data, "zh", fields).summary == "招标的方式。"


def test_a_model_repeating_one_summary_keeps_its_boundaries_and_only_the_first_summary() -> None:
    def answer(messages: Sequence[Message], params: GenParams) -> str:
        lines, first, last = window_of(messages)
        return reply(at_topic_end(lines, first, last), summary="The same words.", forward="The same words.")

    result = split(topic_text(4), FakeLLM({"split": answer}))
    assert result.fallbacks == 0 and len(result.chunks) == 4
    assert [c.summary for c in result.chunks] == ["The same words.", None, None, None]


def test_headings() -> None:
    assert is_heading("## Part B\n") and is_heading("第二章 招标\n") and is_heading("1.2 Scope\n")
    assert is_heading("第十一条 履约保证金\n")
    assert not is_heading("第一条 为了规范招标投标活动，制定本法。\n")
    assert not is_heading("（一）大型基础设施项目；\n") and not is_heading("Plain words here\n")


def test_a_chunk_never_ends_on_a_heading() -> None:
    text = "".join(f"### Article {t}\n\n" + topic_text(1, start=t) for t in range(6))

    def last_allowed(messages: Sequence[Message], params: GenParams) -> str:
        lines, first, last = window_of(messages)
        return reply(last)

    llm = FakeLLM({"split": last_allowed})
    result = split(text, llm)
    assert_tiles(text, result)
    assert result.fallbacks == 0
    for c in result.chunks:
        assert not text[c.span.start : c.span.end].strip().splitlines()[-1].startswith("###")
    for call in llm.calls[:-1]:
        lines, _, _ = window_of(call.messages)
        enum = call.params.json_schema["properties"]["end_line"]["enum"]  # type: ignore[index]
        assert enum and not any(lines[n - 1].startswith("###") for n in enum)
        assert any(line.startswith("###") for line in lines[enum[0] - 1 : enum[-1]])  # one was left out


def test_the_window_budget_is_three_targets_capped_by_the_context_never_below_max() -> None:
    assert LLMSplitter(FakeLLM({})).budget(OPTIONS) == 90
    assert LLMSplitter(FakeLLM({}), window_tokens=200).budget(OPTIONS) == 200
    assert LLMSplitter(FakeLLM({}, context_tokens=120)).budget(OPTIONS) == 60
    assert LLMSplitter(FakeLLM({}, context_tokens=40)).budget(OPTIONS) == OPTIONS.max_tokens
