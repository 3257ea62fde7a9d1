"""Vectors for chunks: early (each chunk with its header, on its own) and late-chunked (pooled in context).

Late chunking runs the encoder over long stretches of the document and mean-pools the token vectors inside
each chunk's span, so a chunk's vector carries what the text around it says ("the bidder" → which one).
A document is handled in groups of consecutive chunks (bounded memory, and a commit point for resuming);
each group's text is widened by a margin on both sides so its first and last chunks also have context.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.kinds import LateContext
from pikelocal.embed.base import Encoder
from pikelocal.embed.late import pool_span
from pikelocal.ingest.split.context import with_header

GROUP_WINDOWS = 4  # a group holds up to this many late windows of chunk text
MARGIN_SHARE = 0.25  # context added on each side of a group, as a share of one late window
# late_context "mix": v = (1 − β)·late + β·early(title › section path), normalised. Late alone, nDCG@10 at β 0 /
# 0.2 / 0.35 / 0.5 (build/bench/bench_late_mix.py, docs/BENCHMARKS.md): LawBench 0.267 / 0.430 / 0.586 / 0.692, tender
# 0.680 / 0.719 / 0.712 / 0.657, 2Wiki-50 0.814 / 0.826 / 0.819 / 0.801, HotpotQA-50 0.872 / 0.889 / 0.882 / 0.865:
# 0.35 beats plain late on all four and is within 0.007 of the best β tried on three.
HEADER_MIX = 0.35


def early_text(chunk: ChunkRecord) -> str:
    """What the encoder (and BM25) sees for a chunk: header, blank line, text."""
    return with_header(chunk.header, chunk.text)


@dataclass(frozen=True)
class LateGroup:
    chunks: tuple[ChunkRecord, ...]
    start: int  # character span of the encoded text (the chunks plus margins) in the document's text
    end: int


def document_text(chunks: Sequence[ChunkRecord]) -> str:
    """Rebuild a document's text from all its chunks (they tile it exactly, in order)."""
    pos = 0
    for c in chunks:
        if c.char_start != pos or c.char_end != pos + len(c.text):
            raise ValueError(f"chunk {c.id} (ord {c.ord}) does not continue the text at offset {pos}")
        pos = c.char_end
    return "".join(c.text for c in chunks)


def plan_late_groups(
    chunks: Sequence[ChunkRecord], tokens: Sequence[int], window: int, text_len: int
) -> list[LateGroup]:
    """Consecutive chunks in groups of at most ``GROUP_WINDOWS * window`` tokens, each widened by a margin."""
    groups: list[list[int]] = []
    budget = GROUP_WINDOWS * window
    size = 0
    for i, n in enumerate(tokens):
        if groups and size + n <= budget:
            groups[-1].append(i)
            size += n
        else:
            groups.append([i])
            size = n
    out = []
    for g in groups:
        first, last = chunks[g[0]], chunks[g[-1]]
        chars = last.char_end - first.char_start
        per_token = chars / max(1, sum(tokens[i] for i in g))
        margin = math.ceil(MARGIN_SHARE * window * per_token)
        start, end = max(0, first.char_start - margin), min(text_len, last.char_end + margin)
        out.append(LateGroup(tuple(chunks[i] for i in g), start, end))
    return out


def header_at(chunks: Sequence[ChunkRecord]) -> Callable[[int], str]:
    """For a character offset in the document's text, the first line of the header of the chunk holding it: the
    document's title and the section path there (not the summary or a table's header row)."""
    starts = [c.char_start for c in chunks]
    heads = [c.header.split("\n", 1)[0] for c in chunks]

    def at(offset: int) -> str:
        return heads[max(0, bisect.bisect_right(starts, offset) - 1)] if heads else ""

    return at


def late_vectors(
    encoder: Encoder,
    text: str,
    group: LateGroup,
    *,
    context: LateContext = "off",
    headers: Callable[[int], str] | None = None,
) -> NDArray[np.float32]:
    """One late-chunked vector per chunk of ``group``: its span pooled from token vectors of the widened text.

    ``context`` "prefix" or "pooled": every encoder window first reads ``headers(offset)`` (the document's
    title and section path where the window starts; :func:`header_at`), so a chunk 30,000 tokens into a law
    still knows which law it is in; "pooled" also counts those tokens in each chunk's mean. "mix": the windows
    read nothing more, and each pooled vector is mixed with its header's early vector (:func:`mixed_with_headers`).
    """
    window_context = None
    if context in ("prefix", "pooled") and headers is not None:
        at = headers

        def window_context(offset: int) -> str:
            return at(group.start + offset)

    tv = encoder.encode_tokens(text[group.start : group.end], context=window_context)
    out = np.zeros((len(group.chunks), encoder.dim), dtype=np.float32)
    for row, c in enumerate(group.chunks):
        try:
            out[row] = pool_span(
                tv, c.char_start - group.start, c.char_end - group.start, with_context=context == "pooled"
            )
        except ValueError:  # no token in the span (only spaces or control characters): fall back to its own text
            out[row] = encoder.encode([early_text(c)], role="passage")[0]
    return mixed_with_headers(encoder, group.chunks, out) if context == "mix" else out


def mixed_with_headers(
    encoder: Encoder, chunks: Sequence[ChunkRecord], late: NDArray[np.float32], beta: float = HEADER_MIX
) -> NDArray[np.float32]:
    """Each chunk's late vector mixed with the early vector of its header's first line (the document's title and
    section path) and normalised: (1 − β)·late + β·header. A late vector alone forgets which law a chunk 30,000
    tokens in belongs to; the header's vector says it. A chunk without a header keeps its late vector."""
    heads = [c.header.split("\n", 1)[0].strip() for c in chunks]
    distinct = [h for h in dict.fromkeys(heads) if h]
    if not distinct:
        return late
    vectors = dict(zip(distinct, encoder.encode(distinct, role="passage"), strict=True))
    out = late.copy()
    for row, head in enumerate(heads):
        if head:
            v = (1 - beta) * late[row] + beta * vectors[head]
            norm = float(np.linalg.norm(v))
            out[row] = v / norm if norm > 0 else late[row]
    return out
