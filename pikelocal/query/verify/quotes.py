"""Where a model's quote stands in the numbered sources: exactly after normalising, else by a bounded fuzzy match.

Both sides are compared as their letters and digits only, in simplified characters, NFKC-folded (full-width
forms become half-width) and lower-cased: whitespace, line breaks and punctuation drop out, so a sentence wrapped
over two lines of a table cell ("於 114 年 12 月 15" / "日前提送至本會"), "【 4 】" and a traditional quote of a
simplified source all match. Each kept character remembers its offset in the source, so a match maps back to a
span of the source's text, and the citation's page and lines come from where the quote stands, not from the
number the model wrote.

A quote that is not there verbatim (an OCR slip, a word the model changed) is accepted when one region of a source
holds at least ``FUZZY_MIN_SHARE`` of its characters in order, within ``FUZZY_SPREAD`` times its length. A model that
restates the question before its sentence, or runs on past the end of a cut source, has the part that stands in a
source kept (``PART_*``). A quote that stands nowhere is an invention.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from pikelocal.domain.answers import Source
from pikelocal.text.script import to_simplified

FUZZY_MIN_SHARE = 0.8  # of the quote's characters, in order, in one region of a source
FUZZY_SPREAD = 1.5  # that region is at most this many times the quote's length
PART_MIN_SHARE = 0.5  # a faithful part of a quote: at least this share of it …
PART_DENSITY = 0.9  # … matched this densely …
PART_MIN_CHARS = 8  # … and at least this many characters
MIN_QUOTE_CHARS = 2  # a quote shorter than this (after normalising) locates nothing
MAX_QUOTE_CHARS = 600  # longer quotes are matched on their first this-many characters
_SIGN_AFTER = frozenset("%％‰")  # what ends a number's value, though folding drops it
_SIGN_BEFORE = frozenset("$＄¥￥€£")  # what starts one


@dataclass(frozen=True)
class Folded:
    """A text's letters and digits, normalised, with the offset in the original of each."""

    text: str
    offsets: tuple[int, ...]


@dataclass(frozen=True)
class Located:
    """Where a quote stands: the source, the span of its text, and how much of the quote matched (1.0: all)."""

    source: Source
    start: int
    end: int
    share: float

    @property
    def text(self) -> str:
        return self.source.text[self.start : self.end]


def fold(text: str) -> Folded:
    """``text``'s letters and digits, NFKC-folded, simplified and lower-cased, each with its offset in ``text``."""
    simplified = to_simplified(text)
    if len(simplified) != len(text):  # a conversion that changed the length: character by character
        simplified = "".join(to_simplified(ch) if len(to_simplified(ch)) == 1 else ch for ch in text)
    chars: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(simplified):
        for c in unicodedata.normalize("NFKC", ch).lower():
            if c.isalnum():
                chars.append(c)
                offsets.append(i)
    return Folded("".join(chars), tuple(offsets))


def locate(quote: str, sources: Sequence[Source], prefer: int | None = None) -> Located | None:
    """Where ``quote`` stands in ``sources``: verbatim (after folding) in the source the model named, then in any;
    else the best fuzzy region. None: it stands nowhere."""
    q = fold(quote).text[:MAX_QUOTE_CHARS]
    if len(q) < MIN_QUOTE_CHARS:
        return None
    order = sorted(sources, key=lambda s: s.number != prefer)
    folded = [(s, fold(s.text)) for s in order]
    for source, f in folded:
        at = f.text.find(q)
        if at >= 0:
            return _span(source, f, at, at + len(q), 1.0)
    best: Located | None = None
    for source, f in folded:
        found = _fuzzy(q, f)
        if found is not None and (best is None or found[2] > best.share):
            best = _span(source, f, *found)
    return best


def _span(source: Source, f: Folded, a: int, b: int, share: float) -> Located:
    """The source's span of folded characters [a, b), widened over the sign of a number at either end: folding
    keeps letters and digits only, so a quote ending 「投标报价的 1.5-2%」 would stand as 「…1.5-2」 and lose its %,
    one starting 「$1,442,404.50」 its $."""
    text, start, end = source.text, f.offsets[a], f.offsets[b - 1] + 1
    if f.text[b - 1].isdigit():
        after = end + len(text[end:]) - len(text[end:].lstrip(" \t"))
        end = after + 1 if after < len(text) and text[after] in _SIGN_AFTER else end
    if f.text[a].isdigit():
        before = len(text[:start].rstrip(" \t"))
        start = before - 1 if before > 0 and text[before - 1] in _SIGN_BEFORE else start
    return Located(source, start, end, share)


def _fuzzy(q: str, f: Folded) -> tuple[int, int, float] | None:
    """The region of ``f`` holding the most of ``q``'s characters in order, within ``FUZZY_SPREAD`` × its length,
    as (start, end, share of ``q``) in folded characters. Accepted when it holds ``FUZZY_MIN_SHARE`` of the quote,
    or when it is itself a faithful part of the quote: ``PART_DENSITY`` of the region matched, and at least
    ``PART_MIN_SHARE`` of the quote (a model restates the question before the sentence, or runs on past the end of
    a cut source: only the part that stands in the source is kept). None otherwise."""
    blocks = [b for b in SequenceMatcher(None, f.text, q, autojunk=False).get_matching_blocks() if b.size]
    limit = len(q) * FUZZY_SPREAD
    best: tuple[int, int, float] | None = None
    for i, first in enumerate(blocks):
        matched = 0
        for last in blocks[i:]:
            end = last.a + last.size
            if end - first.a > limit:
                break
            matched += last.size
            share = matched / len(q)
            whole = share >= FUZZY_MIN_SHARE
            part = share >= PART_MIN_SHARE and matched >= PART_DENSITY * (end - first.a) and matched >= PART_MIN_CHARS
            if (whole or part) and (best is None or share > best[2]):
                best = (first.a, end, share)
    return best
