"""Recorded tables in the viewer's page: drawn as a table with the header row bold and column borders,
every row beside its line number, cited rows highlighted; a table whose Markdown does not parse stays raw lines,
and every line outside a table is drawn as before."""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.table import Table

from pikelocal.domain.documents import PageRecord, TableRecord
from pikelocal.tui.render import page_table, parse_table_lines, table_spans

HEADER = "| 名称 | 数量 |\n|---|---|"
TEXT = "Intro line\n\n" + HEADER + "\n| 服务器 | 3 |\n| a \\| b | 4 |\n\nAfter\n"


def page_of(text: str, page_no: int = 1, char_start: int = 0) -> PageRecord:
    offsets = (0, *(m.end() for m in re.finditer("\n", text[:-1])))
    return PageRecord(1, page_no, text, offsets, char_start)


def recorded(text: str, header: str = HEADER, shift: int = 0) -> TableRecord:
    """The table of ``text`` as the store records it: from its header row to the end of its last row."""
    start = text.index(header.splitlines()[0])
    end = text.index("\n\n", start) + 1
    return TableRecord(start + shift, end + shift, 1, 1, 2, 2, header)


PAGE, TABLE = page_of(TEXT), recorded(TEXT)


def render(table: Table, width: int = 60) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(table)
    return console.export_text().splitlines()


def styles_of(table: Table, fragment: str, width: int = 60) -> list[str]:
    """The styles of the rendered segments that hold ``fragment``."""
    console = Console(width=width, file=io.StringIO())
    return [str(s.style) for line in console.render_lines(table) for s in line if fragment in s.text]


def numbered(lines: list[str]) -> dict[int, str]:
    return {int(line[:4]): line for line in lines if line[:4].strip()}


def test_table_spans_map_the_recorded_span_to_the_page_lines() -> None:
    assert table_spans(PAGE, [TABLE]) == [(3, 6, TABLE)]
    assert table_spans(PAGE, []) == []
    elsewhere = TableRecord(500, 600, 2, 2, 1, 2, HEADER)  # on another page of the document
    assert table_spans(PAGE, [elsewhere]) == []


def test_table_spans_cut_a_table_at_the_page_edge() -> None:
    second = page_of("| x | 9 |\n| y | 8 |\nend\n", page_no=2, char_start=100)
    over = TableRecord(90, 120, 1, 2, 4, 2, HEADER)  # began on page 1, ends on line 2 of page 2
    assert table_spans(second, [over]) == [(1, 2, over)]


def test_the_table_is_drawn_with_borders_and_every_row_beside_its_line_number() -> None:
    lines = render(page_table(PAGE, set(), tables=[TABLE]))
    rows = numbered(lines)
    assert sorted(rows) == [1, 2, 3, 4, 5, 6, 7, 8]  # every line number still shown, the rule's included
    assert re.search(r"│ 名称\s+│ 数量 │", rows[3])
    assert "├" in rows[4] and "┼" in rows[4]  # the |---| rule is the line under the header
    assert re.search(r"│ 服务器\s+│ 3\s+│", rows[5])
    assert re.search(r"│ a \| b\s+│ 4\s+│", rows[6])  # an escaped pipe is a character of its cell
    assert not any("|---|" in line or "| 服务器 |" in line for line in lines)
    assert len(lines) == 10  # the eight lines and the table's top and bottom borders
    assert "┌" in lines[2] and "└" in lines[7] and not lines[2][:4].strip() and not lines[7][:4].strip()


def test_the_header_row_is_bold() -> None:
    assert any("bold" in s for s in styles_of(page_table(PAGE, set(), tables=[TABLE]), "名称"))
    assert not any("bold" in s for s in styles_of(page_table(PAGE, set(), tables=[TABLE]), "服务器"))


def test_a_cited_row_is_marked_and_highlighted() -> None:
    table = page_table(PAGE, {5}, tables=[TABLE])
    rows = numbered(render(table))
    assert [n for n, line in rows.items() if line[5] == "▌"] == [5]
    assert any("on yellow" in s for s in styles_of(table, "服务器"))
    assert not any("on yellow" in s for s in styles_of(table, "名称"))


def test_the_cited_sentence_row_gets_the_strong_highlight() -> None:
    table = page_table(PAGE, {5, 6}, {6}, tables=[TABLE])
    assert any("on yellow" in s for s in styles_of(table, "a | b"))
    assert not any("on yellow" in s for s in styles_of(table, "服务器"))  # cited, not the sentence: yellow text
    assert any("yellow" in s for s in styles_of(table, "服务器"))


def test_lines_outside_the_table_are_drawn_as_before() -> None:
    plain, drawn = (
        numbered(render(page_table(PAGE, {1, 8}))),
        numbered(render(page_table(PAGE, {1, 8}, tables=[TABLE]))),
    )
    for n in (1, 2, 7, 8):
        assert drawn[n] == plain[n]


def test_a_ragged_table_falls_back_to_its_raw_lines() -> None:
    text = "Intro\n" + HEADER + "\n| only one |\n| x | 3 |\n"
    page, table = page_of(text), TableRecord(6, len(text), 1, 1, 2, 2, HEADER)
    assert parse_table_lines(page.lines(), 2, 5, table, continued=False) is None
    assert render(page_table(page, {3}, tables=[table])) == render(page_table(page, {3}))


def test_a_span_that_is_no_table_falls_back_to_its_raw_lines() -> None:
    text = "| a | b |\nno rule here\n| c | d |\n"  # a record that does not match the text (a stale KB)
    page, table = page_of(text), TableRecord(0, len(text), 1, 1, 1, 2, "| a | b |\n|---|---|")
    assert render(page_table(page, set(), tables=[table])) == render(page_table(page, set()))


def test_a_table_from_the_page_before_shows_the_recorded_header_unnumbered() -> None:
    second = page_of("| x | 9 |\n| y | 8 |\nend\n", page_no=2, char_start=100)
    lines = render(page_table(second, {2}, tables=[TableRecord(90, 120, 1, 2, 4, 2, HEADER)]))
    header = next(line for line in lines if "名称" in line)
    assert not header[:6].strip()  # no line number and no mark: the header is on the page before
    rows = numbered(lines)
    assert sorted(rows) == [1, 2, 3] and rows[2][5] == "▌" and re.search(r"│ y\s+│ 8\s+│", rows[2])
    assert rows[3].rstrip().endswith("end")


def test_a_table_too_wide_for_the_view_keeps_one_row_per_line() -> None:
    wide = "| " + " | ".join(f"column {i} with a long name" for i in range(6)) + " |"
    rule = "|" + "---|" * 6
    body = "\n".join("| " + " | ".join(f"服务器 型号 S{r}{i} 的说明文字" for i in range(6)) + " |" for r in range(3))
    text = f"{wide}\n{rule}\n{body}\n"
    page = page_of(text)
    table = TableRecord(0, len(text), 1, 1, 3, 6, f"{wide}\n{rule}")
    lines = render(page_table(page, {4}, tables=[table]), width=50)
    assert len(lines) == 7  # borders + header + rule + three rows: nothing wrapped
    assert sorted(numbered(lines)) == [1, 2, 3, 4, 5]
    assert numbered(lines)[4][5] == "▌"
