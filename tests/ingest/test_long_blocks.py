"""A paragraph with no breaks (a multi-MB one-line file) is split and checked in bounded memory.

The splitter never tokenizes more than a window at once, whatever the block; the garble check never holds an
object per character. Chunks still tile the text in order, within the token bounds, at the right page and line.
"""

from __future__ import annotations

import re
import tracemalloc
import unicodedata
from pathlib import Path

import pytest

from pikelocal.ingest.read.parse import ParsedDocument, ParsedPage
from pikelocal.ingest.read.textcheck import garbled_share, line_offsets
from pikelocal.ingest.split import split_struct
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from pikelocal.ingest.split.split_struct import ChunkSpan, split_structured

SENTENCE = "投标人应当按照招标文件的要求编制投标文件并在截止时间前提交"  # 29 characters, no punctuation
WINDOW_BOUND = 64_000  # characters: the most any one count may see (the splitter's window is far below it)


class RecordingCounter:
    """A stand-in token counter (one per CJK character, one per Latin word) that remembers its longest input."""

    def __init__(self) -> None:
        self.longest = 0
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.longest = max(self.longest, len(text))
        self.calls += 1
        return len(re.findall(r"[\u4e00-\u9fff]|[A-Za-z0-9]+", text))


def assert_tiles(text: str, chunks: list[ChunkSpan]) -> None:
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(a.end == b.start and a.end > a.start for a, b in zip(chunks, chunks[1:], strict=False))


@pytest.mark.parametrize("ending", ["", "。"], ids=["no-punctuation", "sentences"])
def test_one_line_text_is_split_in_bounded_windows(ending: str) -> None:
    text = (SENTENCE + ending) * 70_000  # 2.0-2.1 M characters on one line (over 6 MB of UTF-8)
    count = RecordingCounter()
    chunks = split_structured(text, count, target=400, min_tokens=100, max_tokens=600)
    assert count.longest <= WINDOW_BOUND, f"the splitter tokenized {count.longest:,} characters at once"
    assert_tiles(text, chunks)
    sizes = [RecordingCounter()(text[c.start : c.end]) for c in chunks]
    assert sizes == [c.tokens for c in chunks]
    assert all(n <= 600 for n in sizes)
    assert all(n >= 100 for n in sizes[:-1])
    if ending:  # sentence ends are still where chunks end
        assert all(text[c.end - 1] == "。" for c in chunks)


def test_windows_do_not_change_the_chunks_of_a_long_paragraph(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cut in windows or counted whole, an evenly dense paragraph (sentences, a 29,000-character run) gives the
    same chunks."""
    text = "".join(f"第{i}项：{SENTENCE * (i % 7)}。" for i in range(400)) + SENTENCE * 1_000 + "。末句。"
    in_windows = RecordingCounter()
    windowed = split_structured(text, in_windows, target=300, min_tokens=80, max_tokens=450)
    assert in_windows.longest <= WINDOW_BOUND, f"the splitter tokenized {in_windows.longest:,} characters at once"
    monkeypatch.setattr(split_struct, "WINDOW_CHARS", 10 * len(text))
    whole = RecordingCounter()
    assert split_structured(text, whole, target=300, min_tokens=80, max_tokens=450) == windowed
    assert whole.longest == len(text)  # with a window over the text, the whole block is counted at once


def test_chunks_of_a_long_page_keep_their_pages_and_lines() -> None:
    """A one-line page of 1 M characters between two short pages: spans, pages and lines as in the text."""
    pages_text = ["标题\n第一页第二行。\n", SENTENCE * 35_000, "第三页。\n第二行。\n第三行"]
    pages = tuple(ParsedPage(i + 1, t, line_offsets(t)) for i, t in enumerate(pages_text))
    count = RecordingCounter()
    doc = ParsedDocument(Path("long.txt"), "text", "long", pages, "utf-8", ())
    chunked = chunk_document(doc, count, SplitOptions(target=400, min_tokens=100, max_tokens=600))
    assert count.longest <= WINDOW_BOUND, f"the splitter tokenized {count.longest:,} characters at once"
    text = chunked.text.text
    chunks = chunked.chunks
    assert [c.ord for c in chunks] == list(range(len(chunks)))
    assert chunks[0].char_start == 0 and chunks[-1].char_end == len(text)
    assert all(a.char_end == b.char_start for a, b in zip(chunks, chunks[1:], strict=False))
    assert all(c.text == text[c.char_start : c.char_end] for c in chunks)
    page2 = chunked.pages[1].char_start
    page3 = chunked.pages[2].char_start
    for c in chunks:
        first = c.char_start + (len(c.text) - len(c.text.lstrip()))
        last = c.char_start + len(c.text.rstrip()) - 1
        assert c.page_start == (1 if first < page2 else 2 if first < page3 else 3)
        assert c.page_end == (1 if last < page2 else 2 if last < page3 else 3)
        if c.page_start == 2:
            assert c.line_start == 1
        if c.page_end == 3:
            assert c.line_end == text[page3 : last + 1].count("\n") + 1
    assert chunks[-1].page_end == 3 and chunks[-1].line_end == 3
    middle = [c for c in chunks if c.page_start == c.page_end == 2]
    assert len(middle) > 1000 and all(RecordingCounter()(c.text) <= 600 for c in middle)


def test_garble_check_of_a_20_mb_line_stays_small() -> None:
    """The share of garbled characters on a 20 MB (UTF-8) line, in a few MB rather than an object per character."""
    unit = SENTENCE + " " + "\ufffd" + "\x03" + "\ue000"  # 29 good, 3 bad, a space
    text = unit * 220_000  # 7.3 M characters
    assert len(text.encode("utf-8")) > 20_000_000
    tracemalloc.start()
    try:
        share = garbled_share(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert share == pytest.approx(3 / 32)
    assert peak < 32 * 2**20, f"the garble check took {peak / 2**20:,.0f} MB"


def test_garble_check_judges_every_code_point_as_unicodedata_does_in_bounded_memory() -> None:
    """Each code point counts as garbled exactly when it is U+FFFD or of category Cc, Co or Cs (not whitespace)."""
    chars = [chr(cp) for cp in range(0x110000) if not chr(cp).isspace()]
    bad = "".join(ch for ch in chars if ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cs"))
    good = "".join(ch for ch in chars if not (ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cs")))
    del chars
    assert len(bad) > 100_000 and len(good) > 900_000
    tracemalloc.start()
    try:
        shares = (garbled_share(bad), garbled_share(good), garbled_share(" \t\n\u3000"), garbled_share(""))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert shares == (1.0, 0.0, 0.0, 0.0)
    assert peak < 32 * 2**20, f"the garble check took {peak / 2**20:,.0f} MB"
