"""Listwise reranking: the LLM orders the fused top passages by how well each answers the question.

No cross-encoder weights can be installed, so the local LLM is the reranker. One call per question: the
instructions, the numbered passages (each cut to a few lines), then the question last, so a reply that is only a
list of numbers costs a handful of generated tokens. The parser keeps valid, unique numbers in the order given;
the caller appends the passages the model left out in their fused order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError
from pikelocal.text.lang import Lang

RERANK_MAX_PASSAGES = 20

_SYSTEM: Mapping[Lang, str] = {
    "zh": "你是检索排序助手：按与问题的相关程度给文档片段排序。",
    "en": "You rank search results: order passages by how well they answer a question.",
}
_USER: Mapping[Lang, str] = {
    "zh": (
        "下面是编号的文档片段。按能否回答问题排序，最相关的在前；只列出与问题有关的片段编号。只输出 JSON。\n\n"
        "{passages}\n\n问题：{question}"
    ),
    "en": (
        "Below are numbered passages. Order them by how well they answer the question, the most relevant first;"
        " list only the numbers of passages that bear on it. Output only JSON.\n\n{passages}\n\nQuestion: {question}"
    ),
}


def parse_ranking(data: Any, lang: Lang, fields: Mapping[str, Any]) -> tuple[int, ...]:
    """The passage numbers (1-based) in the model's order, without repeats or numbers out of range."""
    if not isinstance(data, dict) or not isinstance(data.get("ranking"), list):
        raise ReplyError('expected an object with a "ranking" list of passage numbers')
    n = int(fields["n"])
    out: list[int] = []
    for x in data["ranking"]:
        if isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= n and x not in out:
            out.append(x)
    if not out:
        raise ReplyError(f"no passage number between 1 and {n}")
    return tuple(out)


def rerank_prompt(n: int) -> Prompt[tuple[int, ...]]:
    """The prompt for ``n`` passages (numbers 1..n)."""
    schema = {
        "type": "object",
        "properties": {
            "ranking": {"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": n}, "maxItems": n}
        },
        "required": ["ranking"],
    }
    return Prompt(
        name="rerank",
        system=_SYSTEM,
        user=_USER,
        schema=schema,
        parse=parse_ranking,
        max_tokens=16 + 4 * n,
    )
