"""Snippets: the part of a chunk that best matches a query, with the matched terms located (pure functions)."""

from __future__ import annotations

import re
import unicodedata

from pikelocal.domain.search import Snippet
from pikelocal.store.fts import CJK_CHARS, STOPWORDS

_WORD = re.compile(rf"[^\W_{CJK_CHARS}]+|[{CJK_CHARS}]+")
_IS_CJK = re.compile(rf"[{CJK_CHARS}]")
_STOP = STOPWORDS | frozenset(["的", "是", "了", "在", "和", "与", "及", "或", "吗", "什么", "哪些", "如何", "多少"])


def query_terms(query: str) -> list[str]:
    """Lower-cased terms to look for: words (prefix of 5 letters matches inflections) and CJK bigrams."""
    terms: list[str] = []
    for m in _WORD.finditer(unicodedata.normalize("NFKC", query).lower()):
        word = m.group(0)
        if word in _STOP:
            continue
        if _IS_CJK.match(word):
            terms += [word] if len(word) == 1 else [word[i : i + 2] for i in range(len(word) - 1)]
        elif len(word) > 1 or word.isdigit():
            terms.append(word[:5] if len(word) > 6 and word.isalpha() else word)  # crude stemming
    return list(dict.fromkeys(t for t in terms if t not in _STOP))


def _fold(text: str) -> str:
    """NFKC + lower case, character by character so offsets stay those of ``text`` (Ｐ→p, but ﬁ stays)."""
    out = []
    for ch in text:
        folded = unicodedata.normalize("NFKC", ch).lower()
        out.append(folded if len(folded) == 1 else (ch.lower() if len(ch.lower()) == 1 else ch))
    return "".join(out)


def _word_char(ch: str) -> bool:
    return ch.isalnum() and not _IS_CJK.match(ch)


def find_marks(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Merged spans of ``text`` where a term occurs (words from a word start; CJK anywhere)."""
    low = _fold(text)
    spans: list[tuple[int, int]] = []
    for term in terms:
        cjk = bool(_IS_CJK.match(term))
        for m in re.finditer(re.escape(term), low):
            s, e = m.start(), m.end()
            if not cjk:
                if s > 0 and _word_char(low[s - 1]):
                    continue
                while e < len(low) and _word_char(low[e]):
                    e += 1  # mark the whole word an inflection prefix matched
            spans.append((s, e))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


# A sentence ends at 。！？；!? or a full stop before a space, and before a Markdown heading (whitespace is
# collapsed, so "## 第二章 … ### 第十条 …" is one line); a snippet starts at the sentence that matches best.
_SENTENCE_END = re.compile(r"[。！？；!?;]|\.(?=\s)|\s(?=#{1,6} )")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each sentence of ``text`` (an end mark stays with its sentence; blank ones dropped)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in spans if text[a:b].strip()]


def best_sentence(text: str, terms: list[str], marks: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The sentence of ``text`` holding the most distinct ``terms`` (then the most marked characters of
    ``marks``, then the first); None when no term is marked anywhere."""
    low = _fold(text)
    best: tuple[int, int] | None = None
    best_key = (0, 0)
    for a, b in sentence_spans(text):
        marked = sum(min(e, b) - max(s, a) for s, e in marks if s < b and e > a)
        if not marked:
            continue
        sentence = low[a:b]
        key = (sum(term in sentence for term in terms), marked)
        if key > best_key:
            best, best_key = (a, b), key
    return best


def make_snippet(text: str, query: str, *, width: int = 240) -> Snippet:
    """``width`` characters of ``text`` (whitespace collapsed) from the sentence that best matches ``query``: the
    one holding the most distinct query terms, so a line-clipped display shows it first. A best sentence longer
    than ``width`` shows the window of it holding the most matches; no match shows the start."""
    flat = re.sub(r"\s+", " ", text).strip()
    terms = query_terms(query)
    marks = find_marks(flat, terms)
    best = best_sentence(flat, terms, marks)
    if best is None:
        start = 0
    elif best[1] - best[0] <= width:
        start = best[0]
    else:
        start = _densest_window(flat, [m for m in marks if m[0] >= best[0] and m[1] <= best[1]], width)
    end = min(len(flat), start + width)
    inside = tuple((a - start, b - start) for a, b in marks if a >= start and b <= end)
    return Snippet(flat[start:end], inside, start > 0, end < len(flat))


def _densest_window(flat: str, marks: list[tuple[int, int]], width: int) -> int:
    """The start of the ``width``-character window holding the most of ``marks`` (a quarter of it before the
    first)."""
    best_start, best_count = 0, -1
    for s, _ in marks:
        start = max(0, min(s - width // 4, len(flat) - width))
        count = sum(1 for a, b in marks if a >= start and b <= start + width)
        if count > best_count:
            best_start, best_count = start, count
    return best_start
