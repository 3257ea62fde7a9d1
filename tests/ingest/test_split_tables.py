"""Tables through the structure splitter: never cut inside a row, a long table's later parts carry its header row,
and the Markdown the parsers write is found again."""

from __future__ import annotations

import re
from pathlib import Path

from pikelocal.ingest.read.parse import ParsedDocument, ParsedPage
from pikelocal.ingest.read.tables import find_tables, is_row, markdown_table, split_cells, table_header_lines
from pikelocal.ingest.read.textcheck import line_offsets
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from pikelocal.ingest.split.split_struct import ChunkSpan, split_structured


def count(text: str) -> int:
    """A stand-in token counter: one per CJK character, one per Latin word or number, one per cell bar."""
    return len(re.findall(r"[\u4e00-\u9fff]|[A-Za-z0-9]+|\|", text))


def price_rows(n: int) -> list[list[object]]:
    return [["Item", "Unit", "Quantity", "Unit price (CNY)"]] + [
        [f"Item {i} steel pipe DN{100 + i}", "m", 10 * i, f"{i}.50"] for i in range(1, n + 1)
    ]


def text_with_table(n_rows: int, before_words: int = 60) -> str:
    intro = "# Bill of quantities\n\n" + " ".join(f"word{i}" for i in range(before_words)) + ".\n\n"
    return intro + markdown_table(price_rows(n_rows)) + "\n\nThe prices include VAT at the statutory rate.\n"


def assert_tiles(text: str, chunks: list[ChunkSpan]) -> None:
    assert "".join(text[c.start : c.end] for c in chunks) == text


def assert_no_row_cut(text: str, chunks: list[ChunkSpan]) -> None:
    """Every chunk boundary inside a table falls at a line start."""
    for table in find_tables(text):
        for c in chunks[1:]:
            if table.start < c.start < table.end:
                assert text[c.start - 1] == "\n", repr(text[c.start - 20 : c.start + 20])


def test_markdown_table_folds_a_two_row_header_escapes_bars_and_drops_empty_rows() -> None:
    table = markdown_table(
        [["价格", "", "备注"], ["单价", "合价", ""], ["12", "24", "a|b\nline two"], [None, "", " "]], header_rows=2
    )
    assert table.splitlines() == ["| 价格 单价 | 合价 | 备注 |", "|---|---|---|", "| 12 | 24 | a\\|b line two |"]
    (span,) = find_tables(table)
    assert (span.n_rows, span.n_cols) == (1, 3)
    assert split_cells(table.splitlines()[2]) == ["12", "24", "a|b line two"]
    assert markdown_table([]) == "" and markdown_table([[None, ""]]) == ""


def test_find_tables_needs_a_rule_under_the_header() -> None:
    text = "a | b\n| not | a table |\nprose\n\n| A | B |\n|:---|---:|\n| 1 | 2 |\n| 3 | 4 |\nafter\n| x |\n"
    (span,) = find_tables(text)
    assert text[span.start : span.end] == "| A | B |\n|:---|---:|\n| 1 | 2 |\n| 3 | 4 |\n"
    assert span.header == "| A | B |\n|:---|---:|" and (span.n_rows, span.n_cols) == (2, 2)
    assert text[span.body_start :].startswith("| 1 | 2 |")
    assert find_tables("no bars here\n") == []
    (bare,) = find_tables("| a |\n|---|")  # a header with no rows, at the very end of the text
    assert (bare.start, bare.end, bare.n_rows, bare.n_cols) == (0, 11, 0, 1)


def test_a_table_that_fits_a_chunk_is_not_split_even_when_it_would_overflow_the_current_one() -> None:
    text = text_with_table(12)  # the table: some 130 tokens; the intro: 60 words
    chunks = split_structured(text, count, target=150, min_tokens=50, max_tokens=200)
    assert_tiles(text, chunks)
    (table,) = find_tables(text)
    holding = [c for c in chunks if c.start < table.end and table.start < c.end]
    assert len(holding) == 1, [text[c.start : c.end][:40] for c in chunks]
    assert holding[0].start == table.start and holding[0].table_header == ""


def test_a_long_table_is_cut_between_rows_and_every_later_part_carries_the_header_row() -> None:
    text = text_with_table(80)  # about 900 tokens of table
    chunks = split_structured(text, count, target=150, min_tokens=50, max_tokens=200)
    assert_tiles(text, chunks)
    assert_no_row_cut(text, chunks)
    (table,) = find_tables(text)
    parts = [c for c in chunks if c.start < table.end and table.start < c.end]
    assert len(parts) >= 5
    assert all(count(text[c.start : c.end]) <= 200 for c in parts)
    assert parts[0].table_header == "" and text[parts[0].start : parts[0].end].startswith("| Item | Unit |")
    assert all(p.table_header == "| Item | Unit | Quantity | Unit price (CNY) |\n|---|---|---|---|" for p in parts[1:])
    assert all(is_row(text[p.start : p.end].splitlines()[0]) for p in parts[1:])
    after = [c for c in chunks if c.start >= table.end]
    assert all(c.table_header == "" for c in after)
    # every row of the table is in exactly one chunk, whole
    rows = text[table.body_start : table.end].splitlines()
    for row in rows:
        assert sum(row in text[c.start : c.end].splitlines() for c in chunks) == 1, row


def test_the_contextual_header_of_a_continuing_part_names_the_columns() -> None:
    text = text_with_table(80)
    doc = ParsedDocument(
        Path("boq.md"), "markdown", "Bill of quantities", (ParsedPage(1, text, line_offsets(text)),), "utf-8", ()
    )
    chunked = chunk_document(doc, count, SplitOptions(target=150, min_tokens=50, max_tokens=200))
    continuing = [c for c in chunked.chunks if c.text.startswith("|") and not c.text.startswith("| Item | Unit |")]
    assert continuing
    for chunk in continuing:
        assert chunk.header.splitlines()[-2:] == ["| Item | Unit | Quantity | Unit price (CNY) |", "|---|---|---|---|"]
        assert table_header_lines(chunk.header) == "| Item | Unit | Quantity | Unit price (CNY) |\n|---|---|---|---|"
    assert "".join(c.text for c in chunked.chunks) == text  # the stored text is the document's, unchanged
