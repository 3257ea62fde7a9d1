"""PIKE-RAG Algorithm 1's two prompts: propose atomic sub-questions, then pick the most useful retrieved question.

Both see the question and the evidence gathered so far, so round 2 builds on what round 1 found. An empty list of
sub-questions means "the evidence is enough"; pick 0 means "none of these helps": either ends the loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.prompts.lang import Lang

SUB_QUESTION_MAX_CHARS = 150
NO_EVIDENCE: Mapping[Lang, str] = {"zh": "（还没有）", "en": "(none yet)"}


def numbered(items: Sequence[str], lang: Lang) -> str:
    """``1. …`` lines, or the language's "(none yet)"."""
    return "\n".join(f"{i}. {t}" for i, t in enumerate(items, start=1)) if items else NO_EVIDENCE[lang]


# --- propose ---------------------------------------------------------------------------------------------------

_PROPOSE_SYSTEM: Mapping[Lang, str] = {
    "zh": "你负责规划如何从文档中找到问题的答案。你会看到问题和目前已找到的资料。",
    "en": "You plan how to find the answer to a question in a set of documents. You see the question and the "
    "evidence found so far.",
}
_PROPOSE_USER: Mapping[Lang, str] = {
    "zh": (
        "要求：写出最多 {max_q} 个简短的子问题，用来查找回答问题还缺少的信息。每个子问题只问一个事实，"
        "写出主体的名称，不用“它”“该”等指代，不重复已经问过的子问题。"
        "只有当已找到的资料明确给出了问题每一部分的答案时，才返回空列表。\n"
        '只输出 JSON：{{"sub_questions": ["…"]}}\n\n'
        "问题：{question}\n\n已找到的资料：\n{evidence}\n\n已经问过的子问题：\n{asked}"
    ),
    "en": (
        "Task: write at most {max_q} short sub-questions that would find the information still missing to answer "
        "the question. Each asks for one fact and names its subject (no 'it' or 'the above'); do not repeat a "
        "sub-question already asked. Return an empty list only when the evidence found so far states the answer to "
        "every part of the question.\n"
        'Reply with only JSON: {{"sub_questions": ["…"]}}\n\n'
        "Question: {question}\n\nEvidence found so far:\n{evidence}\n\nSub-questions already asked:\n{asked}"
    ),
}


def _parse_proposals(data: Any, lang: Lang, fields: Mapping[str, Any]) -> tuple[str, ...]:
    if not isinstance(data, dict) or not isinstance(data.get("sub_questions"), list):
        raise ReplyError('expected {"sub_questions": [...]}')
    seen = {" ".join(q.split()).lower() for q in fields.get("asked_list", ())}
    seen.add(" ".join(str(fields["question"]).split()).lower())
    out: list[str] = []
    for item in data["sub_questions"]:
        text = clean_line(item, SUB_QUESTION_MAX_CHARS)
        key = text.lower()
        if len(text) >= 4 and key not in seen:
            seen.add(key)
            out.append(text)
    return tuple(out[: int(fields["max_q"])])


def propose_prompt(max_q: int) -> Prompt[tuple[str, ...]]:
    schema = {
        "type": "object",
        "properties": {
            "sub_questions": {
                "type": "array",
                "items": {"type": "string", "maxLength": SUB_QUESTION_MAX_CHARS},
                "maxItems": max_q,
            }
        },
        "required": ["sub_questions"],
    }
    return Prompt("propose_subquestions", _PROPOSE_SYSTEM, _PROPOSE_USER, schema, _parse_proposals, max_tokens=200)


# --- select ----------------------------------------------------------------------------------------------------

_SELECT_SYSTEM: Mapping[Lang, str] = {
    "zh": "你负责挑选最有助于回答问题的资料线索。",
    "en": "You choose the lead most likely to help answer a question.",
}
_SELECT_USER: Mapping[Lang, str] = {
    "zh": (
        "下面每个候选问题都指向文档中的一段资料。选出最有助于回答原问题、且补充了已找到资料所缺信息的一个候选，"
        "给出它的编号{none}。\n"
        '只输出 JSON：{{"pick": 编号}}\n\n'
        "问题：{question}\n\n已找到的资料：\n{evidence}\n\n候选：\n{candidates}"
    ),
    "en": (
        "Each candidate below points to a passage of the documents. Choose the one that best helps answer the "
        "question with information the evidence found so far lacks, and give its number{none}.\n"
        'Reply with only JSON: {{"pick": number}}\n\n'
        "Question: {question}\n\nEvidence found so far:\n{evidence}\n\nCandidates:\n{candidates}"
    ),
}
SELECT_NONE: Mapping[Lang, str] = {"zh": "；如果都没有帮助，给出 0", "en": "; give 0 if none helps"}


def _parse_pick(data: Any, lang: Lang, fields: Mapping[str, Any]) -> int | None:
    """The 0-based index of the chosen candidate, or None for "none helps"."""
    n = int(fields["n_candidates"])
    low = 0 if fields.get("none", "") else 1
    pick = data.get("pick") if isinstance(data, dict) else None
    if isinstance(pick, str) and pick.strip().isdigit():
        pick = int(pick.strip())
    if not isinstance(pick, int) or isinstance(pick, bool) or not low <= pick <= n:
        raise ReplyError(f"pick must be a number from {low} to {n}")
    return None if pick == 0 else pick - 1


def select_prompt(n_candidates: int, *, allow_none: bool = True) -> Prompt[int | None]:
    """``allow_none=False`` before any evidence is gathered: a small model otherwise answers 0 by habit, and
    the best candidate is still better than the plain search results the loop would fall back to."""
    schema = {
        "type": "object",
        "properties": {"pick": {"type": "integer", "enum": list(range(0 if allow_none else 1, n_candidates + 1))}},
        "required": ["pick"],
    }
    return Prompt("select_atom", _SELECT_SYSTEM, _SELECT_USER, schema, _parse_pick, max_tokens=20)
