"""Contextual compression: only the sentences of the sources that bear on the question reach the LLM.

Every source is cut into its sentences and table rows (:func:`unit_spans`). Each unit is scored by the encoder:
its best cosine with the question and any sub-questions. Each source keeps its best unit, so no source and no
citation number disappears; then units are added best first while they fit the token budget, each with its
neighbouring unit on either side (a sentence window). A kept row of a
Markdown table brings the table's header row, so the model knows its columns. Kept units stay in document order;
touching ones are one piece, and pieces are joined by " … " (or by "\n…\n" where lines were left out).
``Source.pieces`` maps the kept text back to the whole, so a claim's page and lines are found as before. No LLM
call; the cost is one encoder pass over the sources' sentences.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from pikelocal.domain.answers import Source
from pikelocal.embed.base import Encoder
from pikelocal.query.context.expand import estimate_tokens
from pikelocal.query.verify.support import looks_tabular
from pikelocal.text.ticked_options import blank_unticked

INLINE_GAP, LINE_GAP = " … ", "\n…\n"
# A unit is kept with this many units on each side (a sentence window): the answer often stands in the line or
# sentence next to the one that looks like the question (tender p. 80: "履约期限：1095 日历天" above "…全部服务期从…").
# On the tender's 30 questions it kept every evidence quote the whole context held at 700 tokens (19/30), against
# 15/30 for the units alone (docs/BENCHMARKS.md).
WINDOW_UNITS = 1
# A sentence: up to its first closing mark (Chinese marks, or an English full stop before a space), or the end.
_SENTENCE = re.compile(r"[^。！？；!?;]+?(?:[。！？；!?;]+|\.(?=\s)|$)|[。！？；!?;]+")
LONG_UNIT_CHARS = 400  # a run of lines with no sentence mark longer than this is cut into its lines
# A printed line at least this wide (a CJK character is two columns) is a full line of wrapped prose, not a form's
# field: the tender's "1.4.履约期限： 1095 日历天，…合同签订后30 日历" (76 columns) wraps into "天内提交…",
# and was cut from it as a "table row", so compression kept the 60-day deadline beside it and dropped the 1,095
# days asked about.
FULL_LINE_COLUMNS = 70

Span = tuple[int, int]


def _trim(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def columns(line: str) -> int:
    """The printed width of ``line``: a wide (CJK) character takes two columns."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def wrapped_prose(filled: Sequence[str]) -> bool:
    """Every line but the last is a full printed line: one sentence wrapped at the page's edge."""
    return all(columns(line.strip()) >= FULL_LINE_COLUMNS for line in filled[:-1])


def unit_spans(source: Source) -> list[Span]:
    """The source's sentences and table rows as non-overlapping character spans in order, whitespace trimmed.

    A sentence runs to its closing mark (an English full stop before a space), across the line breaks of wrapped
    text; a stretch of short unpunctuated lines (a table or form) and a long run of lines without any sentence
    mark give one unit per line. A sentence whose lines, all but its last, are full printed lines is wrapped prose,
    not a table, whatever its numbers and missing punctuation (Chinese PDFs wrap at about 40 characters)."""
    text = source.text
    out: list[Span] = []
    for m in _SENTENCE.finditer(text):
        lines = m.group().split("\n")
        filled = [ln for ln in lines if ln.strip()]
        tabular = len(filled) >= 3 and looks_tabular(lines) and not wrapped_prose(filled)
        if len(filled) > 1 and (tabular or len(m.group()) > LONG_UNIT_CHARS):
            offset = m.start()
            for line in lines:
                if line.strip():
                    out.append(_trim(text, offset, offset + len(line)))
                offset += len(line) + 1
        elif m.group().strip():
            out.append(_trim(text, m.start(), m.end()))
    return out


def _table_header(text: str, span: Span) -> Span | None:
    """The first line of the Markdown table a row belongs to (its header), when the row is in one."""
    line_start = text.rfind("\n", 0, span[0]) + 1
    if not text[line_start:].lstrip().startswith("|"):
        return None
    top = line_start
    while top > 0:
        above = text.rfind("\n", 0, top - 1) + 1
        if not text[above : top - 1].lstrip().startswith("|"):
            break
        top = above
    end = text.find("\n", top)
    end = len(text) if end < 0 else end
    return None if top == line_start else (top, end)


def select_units(
    spans: Sequence[Sequence[Span]],
    scores: Sequence[Sequence[float]],
    costs: Sequence[Sequence[int]],
    tokens: int,
    window: int = WINDOW_UNITS,
) -> list[set[int]]:
    """Which units of each source to keep: every source's best, then the best of the rest while they fit ``tokens``;
    each with the ``window`` units on either side of it (those not kept yet count in its cost).

    Pure: ``scores`` and ``costs`` are given per source and unit (costs in tokens)."""
    keep: list[set[int]] = [set() for _ in spans]

    def group(s: int, u: int) -> list[int]:
        return [v for v in range(u - window, u + window + 1) if 0 <= v < len(scores[s]) and v not in keep[s]]

    used = 0
    for s, row in enumerate(scores):
        if len(row):
            best = group(s, int(np.argmax(row)))
            keep[s].update(best)
            used += sum(costs[s][v] for v in best)
    ranked = sorted(((score, s, u) for s, row in enumerate(scores) for u, score in enumerate(row)), reverse=True)
    for _score, s, u in ranked:
        if u in keep[s]:
            continue
        more = group(s, u)
        cost = sum(costs[s][v] for v in more)
        if used + cost <= tokens:
            keep[s].update(more)
            used += cost
    return keep


def rebuild(source: Source, kept: Sequence[Span]) -> Source:
    """The source with only ``kept`` spans of its text (sorted, non-overlapping), touching ones merged."""
    text = source.text
    merged: list[list[int]] = []
    for start, end in sorted(kept):
        if merged and not text[merged[-1][1] : start].strip():
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    at = 0
    for i, (start, end) in enumerate(merged):
        if i:
            gap = LINE_GAP if "\n" in text[merged[i - 1][1] : start] else INLINE_GAP
            parts.append(gap)
            at += len(gap)
        elif start > 0:
            parts.append("… ")
            at += 2
        parts.append(text[start:end])
        pieces.append((at, start, end - start))
        at += end - start
    if merged and text[merged[-1][1] :].strip():
        parts.append(" …")
    return replace(source, text="".join(parts), pieces=tuple(pieces))


def _ticked_only(source: Source) -> Source:
    """The source with its form's unticked options blanked (same length: its pieces and citations hold)."""
    text = blank_unticked(source.text)
    return source if text == source.text else replace(source, text=text)


def compress_sources(sources: Sequence[Source], encoder: Encoder, queries: Sequence[str], tokens: int) -> list[Source]:
    """``sources`` with only the sentences that bear on ``queries`` (the question, its sub-questions), within
    ``tokens``; returned whole when they already fit. A form's options not ticked are blanked first
    (``text/ticked_options.py``: 「■不允許□允許 共同投標」 reads 「■不允許 共同投標」), so the model reads what was
    chosen."""
    sources = [_ticked_only(s) for s in sources]
    if not sources or not queries or sum(estimate_tokens(s.text) for s in sources) <= tokens:
        return list(sources)
    spans = [unit_spans(s) for s in sources]
    texts = [s.text[a:b] for s, row in zip(sources, spans, strict=True) for a, b in row]
    if not texts:
        return list(sources)
    unit_vecs = encoder.encode(texts, role="passage")
    query_vecs = encoder.encode(list(queries), role="query")
    flat = (unit_vecs @ query_vecs.T).max(axis=1)
    scores: list[list[float]] = []
    costs: list[list[int]] = []
    k = 0
    for s, row in zip(sources, spans, strict=True):
        scores.append([float(x) for x in flat[k : k + len(row)]])
        costs.append([estimate_tokens(s.text[a:b]) + 1 for a, b in row])
        k += len(row)
    keep = select_units(spans, scores, costs, tokens)
    out = []
    for source, row, chosen in zip(sources, spans, keep, strict=True):
        if len(chosen) == len(row):
            out.append(source)
            continue
        kept = [row[u] for u in sorted(chosen)]
        headers = {h for span in kept if (h := _table_header(source.text, span)) is not None}
        kept = sorted({*kept, *headers})
        out.append(rebuild(source, kept))
    return out
