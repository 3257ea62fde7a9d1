"""Pure functions from answers, traces and pages to what the TUI shows (no widgets here, so they are easy to test)."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.content import Content

from pikelocal.domain.answers import Answer, QueryTrace, Round, Source
from pikelocal.domain.documents import PageRecord
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


def source_prompt(source: Source, width: int = 76, cited: bool = True, answer: str = "", evidence: str = "") -> Text:
    """Two lines for the sources list: ``[n] file, p. 3, lines 2–9  title`` and the cited text (``evidence``
    when claim checking found it, else the sentence matching the answer best)."""
    head = Text(clip(f"[{source.number}] {source.location()}", width), style="bold" if cited else "dim")
    room = width - head.cell_len - 2
    if source.title and room >= 6:
        head.append(f"  {clip(source.title, room)}", style="dim")
    shown = (evidence or cited_excerpt(source, answer)) if cited else source.text
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


def page_table(page: PageRecord, highlight: Collection[int], strong: Collection[int] = ()) -> Table:
    """The page's lines with their numbers: the source's lines marked, the supporting sentence's lines
    highlighted (wide characters wrap inside their column)."""
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(justify="right", width=4, no_wrap=True)
    table.add_column(width=1, no_wrap=True)
    table.add_column(ratio=1, overflow="fold")
    for n, line in enumerate(page.lines(), start=1):
        if n in strong:
            table.add_row(Text(str(n), "bold"), Text("▌", "bold yellow"), Text(line, "black on yellow"))
        elif n in highlight:
            table.add_row(
                Text(str(n), "bold"), Text("▌", "yellow"), Text(line, "yellow" if strong else "black on yellow")
            )
        else:
            table.add_row(Text(str(n), "dim"), Text(" "), Text(line))
    return table
