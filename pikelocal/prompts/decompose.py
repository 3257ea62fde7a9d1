"""PIKE-RAG Algorithm 1's two prompts: propose atomic sub-questions, then pick the most useful retrieved question.

Both see the question and the sources gathered so far, so round 2 builds on what round 1 found. An empty list of
sub-questions means "the sources are enough"; pick 0 means "none of these helps": either ends the loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.text.lang import Lang

SUB_QUESTION_MAX_CHARS = 150
NO_EVIDENCE: Mapping[Lang, str] = {"zh": "（还没有）", "en": "(none yet)"}


def numbered(items: Sequence[str], lang: Lang) -> str:
    """``1. …`` lines, or the language's "(none yet)"."""
    return "\n".join(f"{i}. {t}" for i, t in enumerate(items, start=1)) if items else NO_EVIDENCE[lang]


# --- the shared layout ----------------------------------------------------------------------------------------
#
# Every call of one decompose question reads the same prefix: one system text (the answer's rules and what the
# planning calls are for), then the sources in the order they were gathered, then the question. Only the call's own
# task comes after. llama.cpp keeps the KV state of the previous call's longest common prefix, so each source is
# run through the model once per question, not once per call, and the final answer reuses all of it.

_PLANNING: Mapping[Lang, str] = {
    "zh": "在回答之前，你可能会被要求规划还需要查找什么资料，或者从候选线索中挑选一个：按每次给出的任务做。",
    "en": "Before answering you may be asked to plan what is still to be looked up, or to choose one lead among "
    "candidates: do the task given each time.",
}
_LABELS: Mapping[Lang, tuple[str, str]] = {"zh": ("资料", "问题"), "en": ("Sources", "Question")}


def shared_system(answer_system: str, answer_rules: str, lang: Lang) -> str:
    """The system text of every call of a decompose question: the answer's own system text and rules, then what
    the planning calls are for. The same for every question asked with the same answer style."""
    return f"{answer_system}\n\n{answer_rules}\n{_PLANNING[lang]}"


def sources_block(sources: Sequence[tuple[int, str, str]], lang: Lang) -> str:
    """``资料：`` then ``[n] heading`` / text blocks, in the order given (the order they were gathered)."""
    blocks = "\n\n".join(f"[{n}] {heading}\n{text}" for n, heading, text in sources)
    return f"{_LABELS[lang][0]}:\n{blocks or NO_EVIDENCE[lang]}"


def shared_user(sources: str, question: str, lang: Lang, task: str) -> str:
    """The sources, the question, then the call's own task (all that differs between the calls)."""
    return f"{sources}\n\n{_LABELS[lang][1]}: {question}\n\n{task}"


def _template(lang: Lang, task: str) -> str:
    return shared_user("{sources}", "{question}", lang, task)


# --- propose ---------------------------------------------------------------------------------------------------

_PROPOSE_TASK: Mapping[Lang, str] = {
    "zh": (
        "任务：写出最多 {max_q} 个简短的子问题，用来查找回答问题还缺少的信息。每个子问题只问一个事实，"
        "写出主体的名称，不用“它”“该”等指代，不重复已经问过的子问题。"
        "只有当上面的资料明确给出了问题每一部分的答案时，才返回空列表。\n"
        "已经问过的子问题：\n{asked}\n"
        '只输出 JSON：{{"sub_questions": ["…"]}}'
    ),
    "en": (
        "Task: write at most {max_q} short sub-questions that would find the information still missing to answer "
        "the question. Each asks for one fact and names its subject (no 'it' or 'the above'); do not repeat a "
        "sub-question already asked. Return an empty list only when the sources above state the answer to every "
        "part of the question.\n"
        "Sub-questions already asked:\n{asked}\n"
        'Reply with only JSON: {{"sub_questions": ["…"]}}'
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


def propose_prompt(max_q: int, system: str) -> Prompt[tuple[str, ...]]:
    """Fields: sources (:func:`sources_block`), question, asked, asked_list, max_q."""
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
    user = {lang: _template(lang, _PROPOSE_TASK[lang]) for lang in _LANGS}
    return Prompt("propose_subquestions", {lang: system for lang in _LANGS}, user, schema, _parse_proposals, 200)


# --- select ----------------------------------------------------------------------------------------------------

_SELECT_TASK: Mapping[Lang, str] = {
    "zh": (
        "任务：下面每个候选问题都指向文档中的一段资料。选出最有助于回答问题、且补充了上面资料所缺信息的一个候选，"
        "给出它的编号{none}。\n候选：\n{candidates}\n"
        '只输出 JSON：{{"pick": 编号}}'
    ),
    "en": (
        "Task: each candidate below points to a passage of the documents. Choose the one that best helps answer the "
        "question with information the sources above lack, and give its number{none}.\nCandidates:\n{candidates}\n"
        'Reply with only JSON: {{"pick": number}}'
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


def select_prompt(n_candidates: int, system: str, *, allow_none: bool = True) -> Prompt[int | None]:
    """Fields: sources, question, candidates, n_candidates, none.

    ``allow_none=False`` before any evidence is gathered: a small model otherwise answers 0 by habit, and
    the best candidate is still better than the plain search results the loop would fall back to."""
    schema = {
        "type": "object",
        "properties": {"pick": {"type": "integer", "enum": list(range(0 if allow_none else 1, n_candidates + 1))}},
        "required": ["pick"],
    }
    user = {lang: _template(lang, _SELECT_TASK[lang]) for lang in _LANGS}
    return Prompt("select_atom", {lang: system for lang in _LANGS}, user, schema, _parse_pick, max_tokens=20)


_LANGS: tuple[Lang, ...] = ("zh", "en")
