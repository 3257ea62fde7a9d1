"""Relevant segment extraction (RSE): the answer reads runs of consecutive chunks, chosen by their value.

Pure functions, after dsRAG's ``dsrag/rse.py`` (github.com/D-Star-AI/dsRAG; Zach and Nick McCormick):

- a chunk's value, from ``get_chunk_value``: ``exp(-rank / decay_rate) · relevance - irrelevant_chunk_penalty``,
  the rank counted from 0. A chunk the ranking did not find is worth ``-irrelevant_chunk_penalty``, so a segment
  may run across a few of them between two good chunks, but never for nothing. dsRAG's relevance is a reranker's
  absolute score; a fused (RRF) score has no absolute scale, so here it is the score over the ranking's top score
  (the top chunk 1); a chunk given without a score counts as 1, and its rank alone lowers its value.
- the segments, from ``get_best_segments``: over and over, the run of consecutive chunks of one document with the
  largest sum of values, at most ``max_length`` chunks, starting and ending on a chunk of non-negative value,
  overlapping no run already taken, within ``overall_max_length`` chunks in all; the search ends when the best
  run left is worth less than ``minimum_value``. Added here: a token budget (a run that would pass it is not a
  candidate) and a chunk that must be kept (the best run holding it is taken first, whatever its value; alone and
  over the budget when nothing holding it fits, so the caller can cut it).
- the presets, from ``RSE_PARAMS_PRESETS``: balanced, precision and find_all with dsRAG's numbers, and its
  ``top_k_for_document_selection`` (segments come only from documents among the first ranked chunks).

Left out: dsRAG's chunk-length adjustment (values scaled up for chunks longer than 700 characters: the splitter
here keeps chunks near one target size) and its ``overall_max_length_extension``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.domain.kinds import SegmentPreset
from pikelocal.domain.search import SegmentCell, SegmentSpan


@dataclass(frozen=True)
class SegmentParams:
    max_length: int  # chunks in one segment, at most
    overall_max_length: int  # chunks in all segments together, at most
    minimum_value: float  # a segment worth less is not taken (and ends the search)
    # What each chunk costs, so what sets the segments' length (dsRAG: 0.05 very long, 20-50 chunks; 0.1 long;
    # 0.2 medium, 4-10; 0.3 short; 0.4 very short, 1-3).
    irrelevant_chunk_penalty: float
    decay_rate: float  # how fast relevance fades down the ranking: at rank ``decay_rate`` it is 1/e
    top_k_documents: int  # segments come from the documents of the first this many ranked chunks


PRESETS: dict[SegmentPreset, SegmentParams] = {
    "balanced": SegmentParams(15, 30, 0.5, 0.18, 30, 10),
    "precision": SegmentParams(15, 30, 0.7, 0.2, 30, 10),  # a higher bar and a higher cost: fewer, shorter
    "find_all": SegmentParams(40, 200, 0.4, 0.18, 200, 200),  # slow decay, long and many segments
}
DEFAULT_PRESET: SegmentPreset = "balanced"


def chunk_values(ranking: Sequence[tuple[int, float | None]], params: SegmentParams) -> dict[int, float]:
    """The value of each chunk in ``ranking`` (chunk id and score, best first); a repeated id keeps its best rank.

    A chunk not in the result is worth :func:`unranked_value`.
    """
    unique: dict[int, float | None] = {}
    for cid, score in ranking:
        unique.setdefault(cid, score)
    top = max((s for s in unique.values() if s is not None), default=0.0)
    values: dict[int, float] = {}
    for rank, (cid, score) in enumerate(unique.items()):
        relevance = 1.0 if score is None or top <= 0 else max(0.0, score) / top
        values[cid] = math.exp(-rank / params.decay_rate) * relevance - params.irrelevant_chunk_penalty
    return values


def unranked_value(params: SegmentParams) -> float:
    """What a chunk the ranking did not find is worth."""
    return -params.irrelevant_chunk_penalty


def top_documents(ranked_docs: Sequence[int], params: SegmentParams) -> list[int]:
    """The documents segments may come from: those of the first ``top_k_documents`` ranked chunks, in the order
    they first appear (``ranked_docs`` is each ranked chunk's document, best first)."""
    return list(dict.fromkeys(ranked_docs[: params.top_k_documents]))


def window_ords(ranked_ords: Sequence[int], max_length: int) -> list[int]:
    """The positions of one document a segment can cover, given its ranked chunks' positions: every ranked one,
    and those between two ranked ones close enough to share a segment of ``max_length`` chunks. (A segment
    starts and ends on a ranked chunk, since a chunk not ranked has a negative value.)"""
    ords = sorted(set(ranked_ords))
    out = list(ords)
    for a, b in zip(ords, ords[1:], strict=False):
        if b - a < max_length:
            out.extend(range(a + 1, b))
    return sorted(out)


def best_segments(
    cells: Sequence[SegmentCell],
    params: SegmentParams,
    budget_tokens: int,
    *,
    overhead: int = 0,
    keep: tuple[int, int] | None = None,
) -> list[SegmentSpan]:
    """The segments, in the order they were taken (best first, after the one holding ``keep``).

    ``cells`` are the chunks that may be covered (a missing position breaks a run); ``overhead`` tokens are
    counted once per segment; ``keep`` is (document, position) of a chunk that must be in the first segment.
    Ties go to the run met first (cells' documents in the order given, then by position), shortest first.
    """
    lines = _lines(cells)
    taken: list[SegmentSpan] = []
    covered: set[tuple[int, int]] = set()
    used_tokens = used_chunks = 0

    def take(span: SegmentSpan) -> None:
        nonlocal used_tokens, used_chunks
        taken.append(span)
        covered.update((span.doc_id, o) for o in range(span.first_ord, span.last_ord + 1))
        used_tokens += span.tokens
        used_chunks += span.last_ord - span.first_ord + 1

    if keep is not None and (first := _keep_segment(lines, params, budget_tokens, overhead, keep)) is not None:
        take(first)
    while used_chunks < params.overall_max_length:
        room = (budget_tokens - used_tokens, params.overall_max_length - used_chunks)
        best = _best(lines, params, room, overhead, covered, None)
        if best is None or best.value < params.minimum_value:
            break
        take(best)
    return taken


def _lines(cells: Sequence[SegmentCell]) -> list[list[SegmentCell]]:
    """Maximal runs of consecutive positions within a document; documents in the order they first appear."""
    by_doc: dict[int, dict[int, SegmentCell]] = {}
    for cell in cells:
        by_doc.setdefault(cell.doc_id, {}).setdefault(cell.ord, cell)
    lines: list[list[SegmentCell]] = []
    for doc in by_doc.values():
        line: list[SegmentCell] = []
        for ord_ in sorted(doc):
            if line and ord_ != line[-1].ord + 1:
                lines.append(line)
                line = []
            line.append(doc[ord_])
        if line:
            lines.append(line)
    return lines


def _keep_segment(
    lines: list[list[SegmentCell]], params: SegmentParams, budget_tokens: int, overhead: int, keep: tuple[int, int]
) -> SegmentSpan | None:
    """The best segment holding ``keep`` that fits; else ``keep`` alone, over the budget or not."""
    found = _best(lines, params, (budget_tokens, params.overall_max_length), overhead, set(), keep)
    if found is not None:
        return found
    for line in lines:
        for cell in line:
            if (cell.doc_id, cell.ord) == keep:
                return SegmentSpan(cell.doc_id, cell.ord, cell.ord, cell.value, cell.tokens + overhead)
    return None


def _best(
    lines: list[list[SegmentCell]],
    params: SegmentParams,
    room: tuple[int, int],
    overhead: int,
    covered: set[tuple[int, int]],
    holding: tuple[int, int] | None,
) -> SegmentSpan | None:
    """The most valuable run within ``room`` (tokens, chunks) that overlaps nothing ``covered`` (and holds
    ``holding`` when given)."""
    room_tokens, room_chunks = room
    best: SegmentSpan | None = None
    for line in lines:
        doc = line[0].doc_id
        if holding is not None and holding[0] != doc:
            continue
        for i, start in enumerate(line):
            if start.value < 0 or (doc, start.ord) in covered:
                continue
            value, tokens = 0.0, overhead
            for end in line[i : i + min(params.max_length, room_chunks)]:
                if (doc, end.ord) in covered:
                    break
                value += end.value
                tokens += end.tokens
                if tokens > room_tokens:
                    break
                if end.value < 0 or (holding is not None and not start.ord <= holding[1] <= end.ord):
                    continue
                if best is None or value > best.value:
                    best = SegmentSpan(doc, start.ord, end.ord, value, tokens)
    return best
