"""Every chunk within a size in characters and in tokens, whatever the reader and the splitter made of the text.

The splitters measure text with the encoder's token counter, and a counter can be fooled: MiniLM's WordPiece reads
a run of 8,192 ``a`` with no space (a .docx paragraph of 2 M one-letter runs) as one unknown word, one token, so the
run passed every token check and was stored as one chunk of 2,000,000 characters, which every prompt and snippet
then carried (``ask`` on that KB took 118 s with the tiny model instead of 3). So, last of all, a chunk longer than
``max_chars`` characters or counted over ``max_tokens`` tokens is cut, preferably after a newline or a space, into
pieces within both; a chunk within them is left exactly as the splitter made it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pikelocal.ingest.split.split_struct import ChunkSpan, CountTokens

# The most characters a chunk may hold per token of ``max_tokens``: real text holds 1-2 characters a token in
# Chinese and some 4-5 in English, so only text the counter misreads comes near it.
CHARS_PER_TOKEN = 8


def max_chars_for(max_tokens: int) -> int:
    """A chunk's most characters, for chunks of at most ``max_tokens`` tokens."""
    return max_tokens * CHARS_PER_TOKEN


def bounded(
    spans: Sequence[ChunkSpan], text: str, count: CountTokens, *, max_tokens: int, max_chars: int
) -> list[tuple[int, ChunkSpan]]:
    """The spans with each over-long one cut into pieces within ``max_chars`` characters and ``max_tokens`` tokens:
    (the index of the span it comes from, the span or piece), in order; pieces rebuild their span exactly."""
    out: list[tuple[int, ChunkSpan]] = []
    for i, span in enumerate(spans):
        if span.end - span.start <= max_chars and span.tokens <= max_tokens:
            out.append((i, span))
            continue
        for start, end, tokens in _pieces(text, span.start, span.end, count, max_tokens, max_chars):
            out.append((i, ChunkSpan(start, end, span.section_path, tokens, span.table_header)))
    return out


def _pieces(
    text: str, start: int, end: int, count: CountTokens, max_tokens: int, max_chars: int
) -> Iterator[tuple[int, int, int]]:
    """(start, end, tokens) of text[start:end] cut within ``max_chars``, then halved while over ``max_tokens``."""
    a = start
    while a < end:
        b = end if end - a <= max_chars else _cut_point(text, a, a + max_chars)
        yield from _within_tokens(text, a, b, count, max_tokens)
        a = b


def _within_tokens(
    text: str, start: int, end: int, count: CountTokens, max_tokens: int
) -> Iterator[tuple[int, int, int]]:
    """text[start:end] whole when it counts within ``max_tokens``, else its halves, each the same way."""
    pending = [(start, end)]
    while pending:
        a, b = pending.pop()
        tokens = count(text[a:b])
        if tokens <= max_tokens or b - a <= 1:
            yield a, b, tokens
            continue
        middle = _cut_point(text, a, a + (b - a) // 2)
        pending += [(middle, b), (a, middle)]  # the first half is taken next: pieces come out in order


def _cut_point(text: str, start: int, limit: int) -> int:
    """Where to end a piece that starts at ``start`` and may not pass ``limit``: after the last newline, else the
    last space, in the second half of the piece; else at ``limit``."""
    half = start + (limit - start) // 2
    for sep in ("\n", " "):
        at = text.rfind(sep, half, limit)
        if at >= 0:
            return at + 1
    return limit
