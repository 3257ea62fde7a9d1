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


def make_snippet(text: str, query: str, *, width: int = 240) -> Snippet:
    """The ``width``-character window of ``text`` holding the most matched terms (whitespace collapsed)."""
    flat = re.sub(r"\s+", " ", text).strip()
    marks = find_marks(flat, query_terms(query))
    if len(flat) <= width:
        return Snippet(flat, tuple(marks), False, False)
    best_start, best_count = 0, -1
    for s, _ in marks or [(0, 0)]:
        start = max(0, min(s - width // 4, len(flat) - width))
        count = sum(1 for a, b in marks if a >= start and b <= start + width)
        if count > best_count:
            best_start, best_count = start, count
    end = best_start + width
    inside = tuple((a - best_start, b - best_start) for a, b in marks if a >= best_start and b <= end)
    return Snippet(flat[best_start:end], inside, best_start > 0, end < len(flat))
