"""Citations the model left out, found by matching each uncited sentence to the sources that hold its key terms.

Small local models often state a fact from the sources without the [n] they were asked for. A sentence is given
the source that shares the most of its key terms (numbers, CJK bigrams, longer words), and only when the match is
clear: a shared number, or at least half of the sentence's terms. The trace records which numbers were added this
way, so a reader can tell them from the model's own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pikelocal.domain.answers import Source
from pikelocal.query.verify.citations import MARKER

_SENTENCE = re.compile(r"[^。！？!?\n]+(?:[。！？!?]+|\.(?=\s|$)|$)")
_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_STOP = {"that", "this", "with", "from", "have", "which", "there", "their", "shall", "will", "does", "documents"}


def key_terms(text: str) -> set[str]:
    terms = {n.replace(",", "") for n in _NUMBER.findall(text)}
    for run in _CJK_RUN.findall(text):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    terms.update(w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP)
    return terms


def _best_source(sentence: str, sources: Sequence[Source], source_terms: Sequence[set[str]]) -> int | None:
    terms = key_terms(sentence)
    if not terms:
        return None
    numbers = {t for t in terms if t[0].isdigit()}
    best, best_score = None, 0.0
    for source, have in zip(sources, source_terms, strict=True):
        shared = terms & have
        clear = bool(numbers & have) or len(shared) >= max(2, len(terms) / 2)
        score = len(shared) + 2 * len(numbers & have)
        if clear and score > best_score:
            best, best_score = source.number, score
    return best


def add_missing_citations(text: str, sources: Sequence[Source]) -> tuple[str, tuple[int, ...]]:
    """The text with a [n] after each uncited sentence that clearly matches a source; the numbers added."""
    if not sources or MARKER.search(text):
        return text, ()
    source_terms = [key_terms(s.text) for s in sources]
    added: list[int] = []
    parts: list[str] = []
    last = 0
    for m in _SENTENCE.finditer(text):
        sentence = m.group(0)
        number = _best_source(sentence, sources, source_terms)
        parts.append(text[last : m.start()])
        if number is None:
            parts.append(sentence)
        else:
            body = sentence.rstrip("。！？!?. ")
            parts.append(f"{body} [{number}]{sentence[len(body) :]}")
            if number not in added:
                added.append(number)
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), tuple(added)
