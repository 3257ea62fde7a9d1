"""Pure functions from answers, traces and pages to what the TUI shows (no widgets here, so they are easy to test)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.content import Content

from pikelocal.api import best_excerpt
from pikelocal.domain.answers import Answer, QueryTrace, Round, Source
from pikelocal.domain.documents import PageRecord, TableRecord
from pikelocal.domain.events import ReasoningStep

CITATION = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
STEP_MARK = {"propose": "?", "backup": "↺", "pick": "→", "stop": "■"}


def file_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def without_dirs(message: str, path: str) -> str:
    """``message`` with ``path``'s folder left out, so a failure reads ``bad.pdf: encrypted …`` at 80 columns."""
    folder = str(Path(path).parent)
    return message.replace(folder + "/", "") if folder not in ("", ".") else message


def clip(text: str, cells: int) -> str:
    """``text`` on one line, cut to ``cells`` terminal cells (a CJK character takes two) with an ellipsis."""
    flat = " ".join(text.split())
    if cell_len(flat) <= cells:
        return flat
    out, used = [], 0
    for ch in flat:
        width = cell_len(ch)
        if used + width > cells - 1:
            break
        out.append(ch)
        used += width
    return "".join(out) + "…"


def answer_content(text: str, sources: Iterable[int]) -> Content:
    """The answer with each valid ``[n]`` shown as a clickable marker that opens source n."""
    known = set(sources)
    parts: list[Content] = []
    last = 0
    for m in CITATION.finditer(text):
        parts.append(Content(text[last : m.start()]))
        numbers = [int(n) for n in re.split(r"\s*,\s*", m.group(1))]
        parts.append(Content("["))
        for i, n in enumerate(numbers):
            if i:
                parts.append(Content(", "))
            if n in known:
                parts.append(Content.from_markup(f"[b $accent @click=screen.open_source({n})]$n[/]", n=str(n)))
            else:
                parts.append(Content(str(n)))
        parts.append(Content("]"))
        last = m.end()
    parts.append(Content(text[last:]))
    return Content("").join(parts)


_SENTENCE_END = re.compile(r"(?<=[。！？；.!?;])\s+|(?<=[。！？；])|\n+")


def _bigrams(text: str) -> set[str]:
    flat = "".join(text.lower().split())
    return {flat[i : i + 2] for i in range(len(flat) - 1)}


def cited_excerpt(source: Source, answer: str) -> str:
    """The sentence of ``source`` that best matches the answer sentences citing it (its start when none does)."""
    citing = [s for s in _SENTENCE_END.split(answer) if re.search(rf"\[(?:\d+\s*,\s*)*{source.number}\b", s)]
    wanted = _bigrams(CITATION.sub("", " ".join(citing)))
    sentences = [s.strip() for s in _SENTENCE_END.split(source.text) if s.strip()]
    if not wanted or not sentences:
        return source.text
    best = max(sentences, key=lambda s: len(_bigrams(s) & wanted))
    return best if _bigrams(best) & wanted else source.text


def evidence_text(answer: Answer, number: int) -> str:
    """The source sentence a checked claim citing source ``number`` stands on ("" when none does)."""
    for c in answer.claims:
        if c.verdict == "supported" and c.evidence is not None and c.evidence.source == number:
            return c.evidence.text
    return ""


def source_prompt(
    source: Source, width: int = 76, cited: bool = True, answer: str = "", evidence: str = "", question: str = ""
) -> Text:
    """Two lines for the sources list: ``[n] file, p. 3, lines 2–9  title`` and the cited text (``evidence``
    when claim checking found it, else the sentence matching the answer best); an uncited source shows its
    sentence matching ``question`` best (its start without one)."""
    head = Text(clip(f"[{source.number}] {source.location()}", width), style="bold" if cited else "dim")
    room = width - head.cell_len - 2
    if source.title and room >= 6:
        head.append(f"  {clip(source.title, room)}", style="dim")
    uncited = best_excerpt(source.text, question, width=max(width * 2, 80)) if question else source.text
    shown = (evidence or cited_excerpt(source, answer)) if cited else uncited
    body = Text("    " + clip(shown, width - 4), style="dim italic")
    return Text("\n").join([head, body])


def step_text(step: ReasoningStep) -> Text:
    """One live reasoning step, as it arrives."""
    line = Text(f"R{step.round} {STEP_MARK.get(step.kind, '·')} ", style="bold")
    line.append(step.text)
    return line


def _round_text(r: Round) -> Text:
    out = Text(f"Round {r.number}", style="bold underline")
    if r.backup:
        out.append(f"  (backup: {r.backup})", style="yellow")
    for p in r.proposals:
        out.append("\n  ? ", style="bold")
        out.append(p)
    if r.picked is not None and r.picked < len(r.candidates):
        c = r.candidates[r.picked]
        out.append("\n  → ", style="bold green")
        out.append(f"{clip(c.text, 160)}  ", style="green")  # a chunk-backup candidate is the chunk's opening
        out.append(f"({c.source}, {c.score:.2f}; {len(r.candidates)} candidates)", style="dim")
    elif r.candidates:
        out.append(f"\n  × none of {len(r.candidates)} candidates picked", style="yellow")
    if r.chunk_added is not None:
        out.append("\n  + chunk ", style="bold")
        out.append(f"{r.chunk_added}: {r.chunk_location or '(removed since)'}")
    if r.stop:
        out.append(f"\n  ■ stop: {r.stop}", style="dim")
    return out


def reasoning_text(trace: QueryTrace, *, context_chars: int = 600) -> Text:
    """The trace round by round (sub-questions → picked atomic question → chunk added), then the context sent."""
    parts: list[Text] = [Text(f"{trace.mode} · {len(trace.rounds)} round(s) · {len(trace.calls)} LLM call(s)")]
    if trace.mode != "decompose":
        parts.append(Text("No decomposition rounds in this mode: the question's own search results were used.", "dim"))
    parts += [_round_text(r) for r in trace.rounds]
    parts += [Text(f"note: {n}", style="yellow") for n in trace.notes]
    parts.append(Text(f"Context sent for the answer ({len(trace.answer.sources)} sources)", style="bold underline"))
    for s in trace.answer.sources:
        block = Text(f"[{s.number}] {s.heading()}", style="bold")
        body = s.text if len(s.text) <= context_chars else s.text[:context_chars] + " …"
        block.append("\n" + body.strip(), style="dim")
        parts.append(block)
    return Text("\n").join(parts)


def cited_lines(source: Source, page_no: int, n_lines: int) -> set[int]:
    """The line numbers of ``page_no`` (1-based) that ``source`` covers; empty when it is not on that page."""
    p0, p1 = source.page_start, source.page_end if source.page_end is not None else source.page_start
    if p0 is None and source.line_start is not None:  # an unpaged document: its lines are on its one page
        p0 = p1 = page_no
    if p0 is None or p1 is None or not p0 <= page_no <= p1:
        return set()
    first = (source.line_start or 1) if page_no == p0 else 1
    last = (source.line_end or n_lines) if page_no == p1 else n_lines
    return set(range(first, min(last, n_lines) + 1))


def excerpt_lines(lines: list[str], excerpt: str, among: set[int]) -> set[int]:
    """The line numbers (of ``among``) that hold part of ``excerpt``: the sentence the answer rests on."""
    flat = "".join(excerpt.split())
    found = set()
    for n in among:
        line = "".join(lines[n - 1].split()) if 0 < n <= len(lines) else ""
        if len(line) >= 4 and (line in flat or (len(flat) >= 4 and flat in line)):
            found.add(n)
    return found


def table_spans(page: PageRecord, tables: Iterable[TableRecord]) -> list[tuple[int, int, TableRecord]]:
    """Where the recorded ``tables`` lie on ``page``: (first line, last line, table), 1-based and inclusive, in line
    order. A table running over from the page before, or onto the next, is cut at the page's edge; one that
    overlaps a table before it is left out."""
    starts = list(page.line_offsets) or [0]
    page_end = page.char_start + len(page.text)
    found = []
    for t in tables:
        lo, hi = max(t.char_start, page.char_start) - page.char_start, min(t.char_end, page_end) - page.char_start
        if lo < hi:  # bisect_right gives the 1-based number of the line holding the offset
            found.append((max(1, bisect_right(starts, lo)), max(1, bisect_right(starts, hi - 1)), t))
    out: list[tuple[int, int, TableRecord]] = []
    for span in sorted(found, key=lambda f: (f[0], f[1])):
        if not out or span[0] > out[-1][1]:
            out.append(span)
    return out


_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_RULE_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")


def _row_cells(line: str) -> list[str] | None:
    """The cells of a Markdown table row (``\\|`` unescaped), or None when ``line`` is no row (as the parsers
    write them, see ``ingest/read/tables.py``; the front end may not import it)."""
    stripped = line.strip()
    if len(stripped) < 2 or not (stripped.startswith("|") and stripped.endswith("|")):
        return None
    return [c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(stripped[1:-1])]


def _is_rule(cells: list[str]) -> bool:
    return all(_RULE_CELL.match(c) for c in cells)


@dataclass(frozen=True)
class TableLines:
    """A table's lines on a page, parsed: its header (and the header's line, None when the table began on an
    earlier page and the header is the recorded one) and its body rows with their line numbers."""

    header: list[str]
    header_line: int | None
    rows: list[tuple[int, list[str]]]


def parse_table_lines(
    lines: list[str], first: int, last: int, table: TableRecord, *, continued: bool
) -> TableLines | None:
    """Lines ``first``..``last`` of a page (1-based) as a table; None when they are not one whose every row has
    the header's number of cells (a ragged table is shown as its raw lines)."""
    block = lines[first - 1 : last]
    if continued:  # the rows go on from the page before: the header is the recorded one
        head = _row_cells(table.header.splitlines()[0]) if table.header else None
        header_line, body = None, list(enumerate(block, start=first))
    else:
        head = _row_cells(block[0]) if block else None
        rule = _row_cells(block[1]) if len(block) > 1 else None
        if head is None or rule is None or not _is_rule(rule) or len(rule) != len(head):
            return None
        header_line, body = first, list(enumerate(block[2:], start=first + 2))
    if head is None:
        return None
    rows = []
    for n, line in body:
        cells = _row_cells(line)
        if cells is None or len(cells) != len(head) or _is_rule(cells):
            return None
        rows.append((n, cells))
    return TableLines(head, header_line, rows)


def _line_style(n: int | None, highlight: Collection[int], strong: Collection[int]) -> str:
    if n is None:
        return ""
    if n in strong:
        return "black on yellow"
    if n in highlight:
        return "yellow" if strong else "black on yellow"
    return ""


def _marker(n: int | None, highlight: Collection[int], strong: Collection[int]) -> Text:
    if n is not None and n in strong:
        return Text("▌", "bold yellow")
    if n is not None and n in highlight:
        return Text("▌", "yellow")
    return Text(" ")


def _cell(text: str, style: str = "") -> Text:
    return Text(text, style, no_wrap=True, overflow="ellipsis")  # one terminal row per line: numbers stay beside it


def _table_rows(grid: TableLines, highlight: Collection[int], strong: Collection[int]) -> tuple[Text, Text, Table]:
    """The number column, the marker column and the rendered table of one table on a page, row for row: the top
    border, the header row (its line), the rule under it (the ``|---|`` line), the body rows, the bottom border."""
    rule_line = grid.header_line + 1 if grid.header_line is not None else None
    numbers = [None, grid.header_line, rule_line, *(n for n, _ in grid.rows), None]
    marked = set(highlight) | set(strong)
    number_col = Text("\n").join(Text(str(n) if n else "", "bold" if n in marked else "dim") for n in numbers)
    marker_col = Text("\n").join(_marker(n, highlight, strong) for n in numbers)
    table = Table(box=box.SQUARE, show_header=True, header_style="", pad_edge=True)
    head_style = "bold " + (_line_style(grid.header_line, highlight, strong) if grid.header_line else "dim")
    for name in grid.header:
        table.add_column(_cell(name, head_style.strip()))
    for n, cells in grid.rows:
        table.add_row(*(_cell(c) for c in cells), style=_line_style(n, highlight, strong) or None)
    return number_col, marker_col, table


def page_table(
    page: PageRecord,
    highlight: Collection[int],
    strong: Collection[int] = (),
    tables: Iterable[TableRecord] = (),
) -> Table:
    """The page's lines with their numbers: the source's lines marked, the supporting sentence's lines
    highlighted (wide characters wrap inside their column). The lines of each of ``tables`` (the document's
    recorded tables) that lie on the page are drawn as a table, every row beside its line number, unless they do
    not parse as one."""
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(justify="right", width=4, no_wrap=True)
    table.add_column(width=1, no_wrap=True)
    table.add_column(ratio=1, overflow="fold")
    lines = page.lines()
    blocks: dict[int, tuple[int, TableLines]] = {}
    for first, last, t in table_spans(page, tables):
        grid = parse_table_lines(lines, first, last, t, continued=t.char_start < page.char_start)
        if grid is not None:
            blocks[first] = (last, grid)
    n = 1
    while n <= len(lines):
        if n in blocks:
            last, grid = blocks[n]
            table.add_row(*_table_rows(grid, highlight, strong))
            n = last + 1
            continue
        line = lines[n - 1]
        if n in strong:
            table.add_row(Text(str(n), "bold"), Text("▌", "bold yellow"), Text(line, "black on yellow"))
        elif n in highlight:
            table.add_row(
                Text(str(n), "bold"), Text("▌", "yellow"), Text(line, "yellow" if strong else "black on yellow")
            )
        else:
            table.add_row(Text(str(n), "dim"), Text(" "), Text(line))
        n += 1
    return table
