"""PIKE-RAG LLM-guided splitting: a rolling window of numbered lines; the model names where the first chunk ends.

The text is cut into pieces first: its lines (a blank line joins the line before it; a line longer than
``max_tokens`` is cut by the structure splitter at sentence ends). Then, from a cursor: a window of whole
pieces up to the token budget goes to the model, numbered, after the running summary of what came before;
the model names the last line of the first chunk (within the range that keeps the chunk between
``min_tokens`` and ``max_tokens``, never a heading line), its summary, and a new running summary. The chunk
is consumed and the loop goes on from its end. A window whose reply is still unusable after one retry takes
the first span of the structure splitter instead (counted in ``fallbacks``). When what is left fits within
``target`` tokens it is the last chunk: one more call, with the range fixed at its last line, gives its
summary.

Every chunk consumes at least one piece, so the loop ends, with at most two calls per chunk. Chunks tile the
text exactly, as the fast path's do. Sizes use the sum of the pieces' token counts.
"""

from __future__ import annotations

import logging
import time
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.ingest.split.split_struct import ChunkSpan, CountTokens, marker, split_structured
from pikelocal.llm.base import LLM
from pikelocal.prompts.base import PromptResult, run_prompt
from pikelocal.prompts.split import NO_PREVIOUS, SplitReply, split_prompt
from pikelocal.text.lang import Lang, detect_lang

log = logging.getLogger(__name__)

WINDOW_FACTOR = 3  # default window budget: this many times the target chunk size
LANG_SAMPLE_CHARS = 4000  # the prompt language follows the document's beginning
HEADING_MAX_CHARS = 40  # a marker line this short, not ending like a sentence or clause, is a heading
_CLAUSE_END = "。！？；;.!?：:，,、"
Progress = Callable[[int, int], None]  # (characters consumed, characters in the text)


@dataclass(frozen=True)
class Piece:
    start: int
    end: int  # exclusive
    tokens: int
    heading: bool = False  # a heading line: a chunk may not end with it


@dataclass(frozen=True)
class LLMChunk:
    span: ChunkSpan
    summary: str | None  # None where the structure splitter stood in for the model


@dataclass(frozen=True)
class LLMSplit:
    chunks: tuple[LLMChunk, ...]
    lang: Lang
    windows: int  # windows sent to the model (one per chunk, except for a text that is only whitespace)
    calls: int  # completions asked for, retries included
    cached: int  # of which answered from the cache
    fallbacks: int  # windows split by structure after two unusable replies
    errors: tuple[str, ...]  # the last error of each fallback
    prompt_tokens: int
    completion_tokens: int
    seconds: float


def is_heading(line: str) -> bool:
    """A line that titles what follows: a Markdown heading, or a short marker line (第三章 总则, 1.2 Scope) that is
    not a sentence or clause of its own."""
    stripped = line.strip()
    if stripped.startswith("#"):
        return True
    return marker(line) is not None and len(stripped) <= HEADING_MAX_CHARS and stripped[-1] not in _CLAUSE_END


def line_pieces(text: str, count: CountTokens, options: SplitOptions) -> list[Piece]:
    """The units a window numbers: lines, blank lines folded into the line before, long lines cut within max."""
    pieces: list[Piece] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        end = pos + len(line)
        if not line.strip():
            if pieces:
                pieces[-1] = replace(pieces[-1], end=end)
        else:
            start = pos if pieces else 0  # leading blank lines join the first piece
            n = count(line)
            if n <= options.max_tokens:
                pieces.append(Piece(start, end, n, is_heading(line)))
            else:
                spans = split_structured(
                    line, count, target=options.max_tokens, min_tokens=options.min_tokens, max_tokens=options.max_tokens
                )
                for k, s in enumerate(spans):
                    pieces.append(Piece(start if k == 0 else pos + s.start, pos + s.end, s.tokens))
        pos = end
    if not pieces and text:  # only whitespace
        pieces.append(Piece(0, len(text), count(text)))
    return pieces


class SectionIndex:
    """The section path at any offset: headings and numbered clauses, as the structure splitter tracks them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offsets: list[int] = [0]
        self.paths: list[tuple[str, ...]] = [()]
        stack: list[tuple[int, str]] = []
        pos = 0
        for line in text.splitlines(keepends=True):
            found = marker(line)
            if found is not None and found[1]:
                level, label = found
                while stack and stack[-1][0] >= level:
                    stack.pop()
                stack.append((level, label))
                self.offsets.append(pos)
                self.paths.append(tuple(lbl for _, lbl in stack))
            pos += len(line)

    def at(self, start: int, end: int) -> tuple[str, ...]:
        """The path of a chunk [start, end): the one in force at its first non-blank character."""
        first = start
        while first < end - 1 and self.text[first].isspace():
            first += 1
        return self.paths[bisect_right(self.offsets, first) - 1]


def allowed_ends(window: Sequence[Piece], options: SplitOptions) -> tuple[int, ...]:
    """The lines of :func:`end_range` that are not headings (all of them when every one is)."""
    first, last = end_range([p.tokens for p in window], options)
    lines = tuple(k for k in range(first, last + 1) if not window[k - 1].heading)
    return lines or tuple(range(first, last + 1))


def end_range(tokens: Sequence[int], options: SplitOptions) -> tuple[int, int]:
    """The lines (1-based) the first chunk of a window may end at: it reaches ``min_tokens`` unless the window
    is too short, and stays within ``max_tokens`` unless its first line alone is longer."""
    total, first, last = 0, len(tokens), 1
    for k, n in enumerate(tokens, 1):
        total += n
        if total >= options.min_tokens and first == len(tokens):
            first = k
        if total <= options.max_tokens:
            last = k
    return min(first, last), last


def _numbered(text: str, window: Sequence[Piece]) -> str:
    return "\n".join(f"[{n}] {text[p.start : p.end].strip()}" for n, p in enumerate(window, 1))


def _structure_end(text: str, window: Sequence[Piece], count: CountTokens, options: SplitOptions) -> int:
    """Lines of the structure splitter's first chunk of the window (its end snapped back to a piece end)."""
    base = window[0].start
    spans = split_structured(
        text[base : window[-1].end],
        count,
        target=options.target,
        min_tokens=options.min_tokens,
        max_tokens=options.max_tokens,
    )
    cut = base + spans[0].end
    return max(1, bisect_right([p.end for p in window], cut))


class LLMSplitter:
    """Splits a document's text with ``llm`` (pass a cached LLM: a rerun then repeats no call)."""

    def __init__(
        self,
        llm: LLM,
        *,
        window_tokens: int | None = None,
        lang: Lang | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.llm, self.window_tokens, self.lang, self.progress = llm, window_tokens, lang, progress

    def budget(self, options: SplitOptions) -> int:
        """Window size in tokens: ``window_tokens`` (default 3 × target), at most half the model's context (room
        for the instructions and the reply), never below ``max_tokens``."""
        budget = min(self.window_tokens or WINDOW_FACTOR * options.target, self.llm.context_tokens // 2)
        return max(budget, options.max_tokens)

    def split(self, text: str, count: CountTokens, options: SplitOptions, *, title: str = "") -> LLMSplit:
        t0 = time.perf_counter()
        lang = self.lang or detect_lang(text[:LANG_SAMPLE_CHARS])
        pieces = line_pieces(text, count, options)
        sections = SectionIndex(text)
        budget = self.budget(options)
        left = sum(p.tokens for p in pieces)
        chunks: list[LLMChunk] = []
        tally = _Tally()
        i = 0
        while i < len(pieces):
            window, allowed = _window(pieces, i, left, budget, options)
            ask = _WindowAsk(text, window, allowed, lang, title, chunks[-1].summary if chunks else None)
            k, summary = self._cut(ask, count, options, tally)
            start, end = pieces[i].start, pieces[i + k - 1].end
            tokens = sum(p.tokens for p in pieces[i : i + k])
            chunks.append(LLMChunk(ChunkSpan(start, end, sections.at(start, end), tokens), summary))
            left -= tokens
            i += k
            if self.progress is not None:
                self.progress(end, len(text))
        return tally.result(tuple(chunks), lang, time.perf_counter() - t0)

    def _cut(self, ask: _WindowAsk, count: CountTokens, options: SplitOptions, tally: _Tally) -> tuple[int, str | None]:
        """How many of the window's pieces its first chunk takes, and that chunk's summary: the LLM's choice, or the
        structure splitter's where its replies are unusable; a window of whitespace is one chunk, asked nothing."""
        text, window, allowed, lang = ask.text, ask.window, ask.allowed, ask.lang
        if not text[window[0].start : window[-1].end].strip():
            return len(window), None  # nothing to read
        tally.windows += 1
        fields = {
            "title": ask.title.strip() or "-",
            "previous": tally.previous or NO_PREVIOUS[lang],
            "first_line": allowed[0],
            "last_line": allowed[-1],
            "lines": _numbered(text, window),
            "previous_summary": ask.previous_summary,  # for the parser only
        }
        result = run_prompt(self.llm, split_prompt(allowed), lang, fields)
        tally.count(result)
        if result.value is not None:
            tally.previous = result.value.forward_summary or tally.previous
            return result.value.end_line, result.value.summary
        k = min(max(_structure_end(text, window, count, options), allowed[0]), allowed[-1])
        tally.errors.append(result.error or "")
        log.debug("split window at %d: falling back to structure: %s", window[0].start, result.error)
        return k, None


@dataclass(frozen=True)
class _WindowAsk:
    """One window of pieces put to the model: its lines, where its first chunk may end, and what came before."""

    text: str
    window: Sequence[Piece]
    allowed: tuple[int, ...]
    lang: Lang
    title: str
    previous_summary: str | None  # the last chunk's summary


@dataclass
class _Tally:
    """What the windows' calls add up to, and the running summary handed from one window to the next."""

    windows: int = 0
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)
    previous: str = ""  # the running summary

    def count(self, result: PromptResult[SplitReply]) -> None:
        self.calls += len(result.completions)
        self.cached += sum(1 for c in result.completions if c.cached)
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens

    def result(self, chunks: tuple[LLMChunk, ...], lang: Lang, seconds: float) -> LLMSplit:
        return LLMSplit(
            chunks=chunks,
            lang=lang,
            windows=self.windows,
            calls=self.calls,
            cached=self.cached,
            fallbacks=len(self.errors),
            errors=tuple(self.errors),
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            seconds=seconds,
        )


def _window(
    pieces: Sequence[Piece], i: int, left: int, budget: int, options: SplitOptions
) -> tuple[Sequence[Piece], tuple[int, ...]]:
    """The pieces from ``i`` that fit ``budget`` and the lines the first chunk may end at; the rest whole, as the
    last chunk, once it is within the target."""
    if left <= options.target:  # the rest is the last chunk; ask only for its summary
        j = len(pieces)
        return pieces[i:j], (j - i,)
    j, total = i, 0
    while j < len(pieces) and (j == i or total + pieces[j].tokens <= budget):
        total += pieces[j].tokens
        j += 1
    return pieces[i:j], allowed_ends(pieces[i:j], options)
