"""PIKE-RAG knowledge atomizing: the questions a chunk can answer (and, for a long chunk, a one-line summary).

The parser keeps a question only when it is in the chunk's language and names its subject (no bare 它 / 该项目
/ "it"); duplicates are dropped. A reply with no usable question is a :class:`ReplyError`, so the model is
asked once more with the reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.prompts.lang import Lang, detect_lang

QUESTION_MAX_CHARS = 120
SUMMARY_MAX_CHARS = 150
# A chunk shorter than this (characters) gets no summary: it would say little more than the chunk itself.
SUMMARY_MIN_CHARS: Mapping[Lang, int] = {"zh": 250, "en": 700}

# Bare references a reader of the question alone could not resolve. 应该/活该 are verbs, not 该 + noun.
_VAGUE: Mapping[Lang, re.Pattern[str]] = {
    # 本法 / 本公司 are vague only as words of their own, not inside a name (基本法, 日本公司): after a non-Chinese
    # character or one of the function words that introduce them.
    "zh": re.compile(
        r"它|(?<![应活])该(?![死])|上述|此项|这个|这些"
        r"|(?:(?<![\u3400-\u9fff])|(?<=[的在按依照据对从]))本(?:项目|公司|合同|协议|文件|条|章|节|法|办法|规定|次|单位)"
    ),
    # Pronouns in any case except all capitals ("IT services" names something).
    "en": re.compile(
        r"\b(?:[Ii]t|[Ii]ts|[Tt]hey|[Tt]hem|[Tt]heir|[Tt]heirs|[Tt]his|[Tt]hese|[Tt]hose)\b"
        r"|(?i:\bthe (?:above|aforementioned|project|company|document|agreement|contract|text|passage|section"
        r"|clause)\b)"
    ),
}

_SYSTEM: Mapping[Lang, str] = {
    "zh": "你是文档索引助手：阅读一段文档，写出这段文字能回答的问题。",
    "en": "You index documents: read a passage and write the questions it answers.",
}
_RULES: Mapping[Lang, str] = {
    "zh": (
        "要求：\n"
        "1. 用中文提问；每个问题只问一件事，答案在这段文字中。\n"
        "2. 问题要独立完整：写出主体的名称（项目、公司、法律、条款号），不用“它”“该项目”“本合同”“上述”等指代。\n"
        "3. 最多 {max_q} 个问题，互不重复。\n"
    ),
    "en": (
        "Rules:\n"
        "1. Ask in English; each question asks one thing that the passage answers.\n"
        "2. Each question stands alone: name the subject (project, company, law, clause number); never write"
        ' "it", "this agreement", "the project" or "the above".\n'
        "3. At most {max_q} questions, no duplicates.\n"
    ),
}
_SUMMARY_RULE: Mapping[Lang, str] = {
    "zh": "4. summary：一句话概括这段文字，不超过 60 字。\n",
    "en": "4. summary: one sentence on what the passage says, at most 40 words.\n",
}
_PASSAGE: Mapping[Lang, str] = {
    "zh": "只输出 JSON。\n\n文档：{title}\n位置：{section}\n{context}文字：\n{text}\n\n"
    "每个问题都写明主体，如“{title}”。",
    "en": (
        "Output only JSON.\n\nDocument: {title}\nSection: {section}\n{context}Passage:\n{text}\n\n"
        'Name the subject in every question, e.g. "{title}".'
    ),
}


@dataclass(frozen=True)
class Atoms:
    questions: tuple[str, ...]
    summary: str | None
    dropped: tuple[tuple[str, str], ...]  # (question, why) for questions the parser refused


def question_key(text: str) -> str:
    """What two questions must share to count as duplicates: letters and digits, case and width folded."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def vague_reference(question: str, lang: Lang) -> str | None:
    """The bare reference a question leans on (它, 该项目, it …), or None when it names its subject."""
    m = _VAGUE[lang].search(question)
    return m.group(0) if m else None


def wants_summary(text: str, lang: Lang) -> bool:
    return len(text.strip()) >= SUMMARY_MIN_CHARS[lang]


def parse_atoms(data: Any, lang: Lang, fields: Mapping[str, Any]) -> Atoms:
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise ReplyError('expected an object with a "questions" list')
    kept: list[str] = []
    dropped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for raw in data["questions"]:
        q = clean_line(raw, QUESTION_MAX_CHARS)
        key = question_key(q)
        if len(key) < 3:
            reason = "empty"
        elif detect_lang(q) != lang:
            reason = "not in Chinese" if lang == "zh" else "not in English"
        elif (ref := vague_reference(q, lang)) is not None:
            reason = f"vague reference '{ref}'"
        elif key in seen:
            reason = "duplicate"
        else:
            seen.add(key)
            kept.append(q)
            continue
        dropped.append((q, reason))
    if not kept:
        why = "; ".join(sorted({r for _, r in dropped})) or "no questions"
        raise ReplyError(f"no usable question ({why}); name the subject of each question")
    summary = clean_line(data.get("summary"), SUMMARY_MAX_CHARS) or None
    return Atoms(tuple(kept[: int(fields["max_q"])]), summary, tuple(dropped))


@lru_cache(maxsize=8)
def atomize_prompt(max_questions: int, with_summary: bool) -> Prompt[Atoms]:
    """The atomizing prompt asking for up to ``max_questions`` questions (and a summary when ``with_summary``)."""
    properties: dict[str, Any] = {
        "questions": {
            "type": "array",
            "items": {"type": "string", "minLength": 4, "maxLength": QUESTION_MAX_CHARS},
            "minItems": 1,
            "maxItems": max_questions,
        }
    }
    if with_summary:
        properties = {"summary": {"type": "string", "maxLength": SUMMARY_MAX_CHARS}, **properties}
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    rule4 = _SUMMARY_RULE if with_summary else {"zh": "", "en": ""}
    langs: tuple[Lang, ...] = ("zh", "en")
    user = {lang: _RULES[lang] + rule4[lang] + _PASSAGE[lang] for lang in langs}
    return Prompt(
        name="atomize+summary" if with_summary else "atomize",
        system=_SYSTEM,
        user=user,
        schema=schema,
        parse=parse_atoms,
        max_tokens=60 + max_questions * 60 + (120 if with_summary else 0),
    )
