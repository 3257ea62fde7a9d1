"""PIKE-RAG LLM-guided splitting: where the first chunk of a numbered window ends, its summary, a running summary.

The model sees the window's lines numbered ``[1] …``, ``[2] …`` and names the last line of the first chunk.
The allowed lines (set by the caller from the chunk size limits, heading lines left out) are in the schema, as
an ``enum`` the in-process grammar enforces when there are not too many, and checked again by the parser, so a
reply naming another line is a :class:`ReplyError` and the model is asked once more with the reason. A summary
that only repeats the one before (small models copy) is dropped, not refused: the boundary is still good.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

from pikelocal.prompts.atomize import question_key
from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.text.lang import Lang, detect_lang

CHUNK_SUMMARY_MAX_CHARS = 150
FORWARD_SUMMARY_MAX_CHARS = 300
# Up to this many allowed lines the schema lists them as an enum (llama-cpp-python's grammar ignores
# minimum/maximum but honours enum); a longer list would only slow the grammar down: the parser checks.
ENUM_MAX_LINES = 200
_SENTENCE = re.compile(r"(?<=[。！？；!?;])|(?<=[.])(?=\s)")
NO_PREVIOUS: Mapping[Lang, str] = {"zh": "（无，这是文档开头）", "en": "(none: this is the start of the document)"}

_SYSTEM: Mapping[Lang, str] = {
    "zh": "你是文档切分助手：把文档切成意思完整的段落，并概括每段内容。",
    "en": "You split documents into self-contained passages and summarise each one.",
}
_USER: Mapping[Lang, str] = {
    "zh": (
        "下面是文档中按行编号的一段文字。找出其中第一个意思完整的部分（一节、一条条款或一个话题）在哪一行结束。\n"
        "要求：\n"
        "1. end_line：第一部分最后一行的编号，必须在给出的范围内；在下一个标题之前或话题转换处结束，"
        "不要拆开一个条款或段落，不能以标题行结束。\n"
        "2. summary：用中文一句话概括第 1 行到 end_line 行的内容（不超过 60 字）。\n"
        "3. forward_summary：结合前文概要，用中文一两句话概括从文档开头到 end_line 行的内容（不超过 100 字）。\n"
        "只输出 JSON。\n\n"
        "文档：{title}\n前文概要：{previous}\nend_line 范围：{first_line} 到 {last_line}\n\n文字：\n{lines}"
    ),
    "en": (
        "Below is a passage of a document, its lines numbered. Find the line where the first self-contained part"
        " (a section, a clause or one topic) ends.\n"
        "Rules:\n"
        "1. end_line: the number of the last line of that first part, within the given range; end before the next"
        " heading or where the topic changes, never inside a clause or paragraph, never on a heading.\n"
        "2. summary: one sentence on what lines 1 to end_line say (at most 40 words).\n"
        "3. forward_summary: with the summary so far, one or two sentences on what the document says from its start"
        " to end_line (at most 60 words).\n"
        "Output only JSON.\n\n"
        "Document: {title}\nSo far: {previous}\nend_line range: {first_line} to {last_line}\n\nText:\n{lines}"
    ),
}


@dataclass(frozen=True)
class SplitReply:
    end_line: int  # 1-based, window-relative: the first chunk is lines 1..end_line
    summary: str | None  # None when it only repeated the previous summary
    forward_summary: str  # '' when the model gave none (the caller keeps the previous one)


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def dedupe_sentences(text: str) -> str:
    """``text`` without sentences it already said (a small model may loop until the length limit)."""
    seen: set[str] = set()
    kept: list[str] = []
    for sentence in _SENTENCE.split(text):
        key = question_key(sentence)
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(sentence)
    return "".join(kept).strip()


def parse_split(data: Any, lang: Lang, fields: Mapping[str, Any], *, allowed: frozenset[int]) -> SplitReply:
    if not isinstance(data, dict):
        raise ReplyError('expected an object with "end_line", "summary" and "forward_summary"')
    end_line = _as_int(data.get("end_line"))
    if end_line is None:
        raise ReplyError("end_line must be a line number")
    if end_line not in allowed:
        first, last = min(allowed), max(allowed)
        if first <= end_line <= last:
            raise ReplyError(f"line {end_line} is a heading: end the part before it or after its text")
        raise ReplyError(f"end_line {end_line} is outside the allowed range {first} to {last}")
    summary = dedupe_sentences(clean_line(data.get("summary"), CHUNK_SUMMARY_MAX_CHARS))
    if len(summary) < 2:
        raise ReplyError("the summary is empty")
    if lang == "zh" and detect_lang(summary) != "zh":
        raise ReplyError("the summary must be in Chinese")
    forward = dedupe_sentences(clean_line(data.get("forward_summary"), FORWARD_SUMMARY_MAX_CHARS))
    copied = {question_key(str(fields.get(name) or "")) for name in ("previous", "previous_summary")}
    return SplitReply(end_line, None if question_key(summary) in copied else summary, forward)


@lru_cache(maxsize=256)
def split_prompt(allowed: tuple[int, ...]) -> Prompt[SplitReply]:
    """The split prompt for a window whose first chunk may end at the ``allowed`` lines (ascending).

    The schema (part of the cache key) depends on them only, so a window's prompt is fixed by its text, the
    allowed lines and the previous reply: a rerun asks nothing twice. Fill ``first_line`` and ``last_line`` with
    the first and last allowed line.
    """
    if not allowed or allowed[0] < 1 or list(allowed) != sorted(set(allowed)):
        raise ValueError(f"need ascending line numbers from 1 on, got {allowed}")
    end_line: dict[str, Any] = {"type": "integer", "minimum": allowed[0], "maximum": allowed[-1]}
    if len(allowed) <= ENUM_MAX_LINES:
        end_line["enum"] = list(allowed)
    schema = {
        "type": "object",
        "properties": {
            "end_line": end_line,
            "summary": {"type": "string", "minLength": 2, "maxLength": CHUNK_SUMMARY_MAX_CHARS},
            "forward_summary": {"type": "string", "maxLength": FORWARD_SUMMARY_MAX_CHARS},
        },
        "required": ["end_line", "summary", "forward_summary"],
    }
    parse = partial(parse_split, allowed=frozenset(allowed))
    return Prompt(name="split", system=_SYSTEM, user=_USER, schema=schema, parse=parse, max_tokens=512)
