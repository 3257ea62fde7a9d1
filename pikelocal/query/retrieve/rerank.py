"""Reranking of the fused top hits by the local LLM, listwise (``search.rerank``; prompts/rerank.py).

The top ``n`` hits are shown to the model as numbered passages, each its header's first line and the start of its
text (``PASSAGE_CHARS``); the model's order comes first, then the hits it left out in their fused order, then the
rest of the ranking unchanged. A reply that cannot be used (twice) leaves the ranking as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from pikelocal.domain.documents import ChunkRecord
from pikelocal.llm.base import LLM
from pikelocal.prompts.base import run_prompt
from pikelocal.prompts.rerank import RERANK_MAX_PASSAGES, rerank_prompt
from pikelocal.text.lang import Lang, detect_lang

PASSAGE_CHARS = 240  # of each passage's text shown (about 100-240 tokens): the reading is what costs
T = TypeVar("T")


def passage(chunk: ChunkRecord) -> str:
    head = chunk.header.split("\n", 1)[0]
    text = " ".join(chunk.text.split())
    body = text[:PASSAGE_CHARS] + (" …" if len(text) > PASSAGE_CHARS else "")
    return f"{head}\n{body}" if head else body


def reorder(items: Sequence[T], order: Sequence[int]) -> list[T]:
    """``items`` with the 1-based positions in ``order`` first (in that order), the others after in their order."""
    picked = [items[i - 1] for i in order if 1 <= i <= len(items)]
    seen = {i - 1 for i in order if 1 <= i <= len(items)}
    return [*picked, *(x for k, x in enumerate(items) if k not in seen)]


def rerank(llm: LLM, question: str, chunks: Sequence[ChunkRecord], n: int, lang: Lang | None = None) -> list[int]:
    """The ids of ``chunks`` (a ranking, best first) with the first ``n`` reordered by the LLM."""
    n = min(n, len(chunks), RERANK_MAX_PASSAGES)
    ids = [c.id for c in chunks]
    if n < 2:
        return ids
    top = chunks[:n]
    passages = "\n\n".join(f"[{k}] {passage(c)}" for k, c in enumerate(top, start=1))
    lang = lang or detect_lang(question)
    result = run_prompt(llm, rerank_prompt(n), lang, {"n": n, "passages": passages, "question": question})
    if result.value is None:
        return ids
    return [*(c.id for c in reorder(top, result.value)), *ids[n:]]
