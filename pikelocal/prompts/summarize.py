"""A document's summary (and a title when it has none), from its beginning; it goes into every chunk's header."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.prompts.lang import Lang, detect_lang

TITLE_MAX_CHARS = 80
DOC_SUMMARY_MAX_CHARS = 300
# How much of the document the model reads, in characters (about 1,500 tokens of the default model).
EXCERPT_CHARS: Mapping[Lang, int] = {"zh": 2000, "en": 6000}


@dataclass(frozen=True)
class DocumentSummary:
    title: str
    summary: str


def parse_summary(data: Any, lang: Lang, fields: Mapping[str, Any]) -> DocumentSummary:
    if not isinstance(data, dict):
        raise ReplyError('expected an object with "title" and "summary"')
    title = clean_line(data.get("title"), TITLE_MAX_CHARS)
    summary = clean_line(data.get("summary"), DOC_SUMMARY_MAX_CHARS)
    if len(summary) < 8:
        raise ReplyError("the summary is empty or too short")
    if lang == "zh" and detect_lang(summary) != "zh":
        raise ReplyError("the summary must be in Chinese")
    return DocumentSummary(title, summary)


SUMMARIZE_DOCUMENT: Prompt[DocumentSummary] = Prompt(
    name="summarize_document",
    system={
        "zh": "你是文档编目助手：读文档开头，写出标题和摘要。",
        "en": "You catalogue documents: read the beginning of a document and give its title and a summary.",
    },
    user={
        "zh": (
            "要求：title 是文档的标题（没有就拟一个，不超过 30 字）；summary 用中文两三句话说明这是什么文档、"
            "涉及谁和什么事项（不超过 120 字）。只输出 JSON。\n\n"
            "文件名：{file_name}\n已知标题：{title}\n文档开头：\n{text}"
        ),
        "en": (
            "Rules: title is the document's title (invent a short one if it has none); summary says in two or three"
            " sentences what kind of document this is, who and what it concerns (at most 60 words)."
            " Output only JSON.\n\nFile name: {file_name}\nKnown title: {title}\nBeginning of the document:\n{text}"
        ),
    },
    schema={
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": TITLE_MAX_CHARS},
            "summary": {"type": "string", "minLength": 8, "maxLength": DOC_SUMMARY_MAX_CHARS},
        },
        "required": ["title", "summary"],
    },
    parse=parse_summary,
    max_tokens=400,
)
