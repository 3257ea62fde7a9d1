"""Checks on stored atomic questions: their language, and whether they share key terms with their chunk."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pikelocal.store.store import Store
from pikelocal.text.lang import is_chinese

# Question words and fillers: a question sharing only these with its chunk shares nothing that matters.
_ZH_FUNCTION_CHARS = frozenset("的是了在和与及或有为中对等多少什么哪吗呢何否怎样谁几")
_EN_FILLER = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "does",
        "did",
        "the",
        "and",
        "for",
        "are",
        "was",
        "were",
        "with",
        "from",
        "that",
        "this",
        "there",
        "their",
        "have",
        "has",
        "been",
        "shall",
        "will",
        "would",
        "should",
        "could",
        "must",
        "may",
        "can",
        "into",
        "under",
        "about",
    ]  # noqa: SIM905
)
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]{2,}|\d[\d.,%]*\d|\d{2,}")


def key_terms(question: str) -> set[str]:
    """Chinese character bigrams and English words / numbers of a question, without question and function words."""
    terms: set[str] = set()
    for run in _CJK_RUN.findall(question):
        terms.update(run[i : i + 2] for i in range(len(run) - 1))
    terms.update(w.lower() for w in _WORD.findall(question))
    return {t for t in terms if t not in _EN_FILLER and not _ZH_FUNCTION_CHARS.intersection(t)}


def shared_terms(question: str, chunk_text: str) -> set[str]:
    """The key terms of ``question`` that occur in ``chunk_text`` (whitespace and case ignored)."""
    flat = "".join(chunk_text.split()).lower()
    return {t for t in key_terms(question) if t in flat}


@dataclass(frozen=True)
class AtomCheck:
    chunks: int  # chunks with questions
    questions: int
    chinese: int  # questions in Chinese
    sharing: int  # questions sharing at least one key term with their chunk
    failed_chunks: int


def check_atoms(store: Store, *, chinese_chunks_only: bool = True) -> AtomCheck:
    """Language and key-term overlap of every stored question (of Chinese chunks, by default)."""
    chunks = questions = chinese = sharing = 0
    for doc in store.docs.documents():
        for chunk in store.chunks.chunks_of(doc.id):
            if chinese_chunks_only and not is_chinese(chunk.text):
                continue
            qs = store.chunks.questions_of(chunk.id)
            chunks += bool(qs)
            for q in qs:
                questions += 1
                chinese += is_chinese(q)
                sharing += bool(shared_terms(q, chunk.text))
    failed = sum(1 for f in store.enrichment.enrich_failures() if f.chunk_ord is not None)
    return AtomCheck(chunks, questions, chinese, sharing, failed)
