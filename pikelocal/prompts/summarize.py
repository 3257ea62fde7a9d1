"""A document's summary (and a title when it has none), from its beginning; it goes into every chunk's header.
And the summary of a node of a summary tree, from its parts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.text.lang import Lang, detect_lang

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


NODE_SUMMARY_MAX_CHARS = 400
# How much of a node's children the model reads, in characters (about 1,500 tokens of the default model).
NODE_INPUT_CHARS: Mapping[Lang, int] = {"zh": 2000, "en": 5000}


def parse_node_summary(data: Any, lang: Lang, fields: Mapping[str, Any]) -> str:
    if not isinstance(data, dict):
        raise ReplyError('expected an object with "summary"')
    summary = clean_line(data.get("summary"), NODE_SUMMARY_MAX_CHARS)
    if len(summary) < 8:
        raise ReplyError("the summary is empty or too short")
    if lang == "zh" and detect_lang(summary) != "zh":
        raise ReplyError("the summary must be in Chinese")
    return summary


# A node of a summary tree (ingest/enrich/trees.py): a section from its subsections' summaries and its own chunks, or a
# cluster of chunks or of summaries. It is what a "summarise / what are all the …" question is answered from, so it
# keeps the parts' names, parties, figures and dates rather than describing the text.
SUMMARIZE_NODE: Prompt[str] = Prompt(
    name="summarize_node",
    system={
        "zh": "你是文档编目助手：把几段内容归纳成一段摘要。",
        "en": "You catalogue documents: you condense several passages into one summary.",
    },
    user={
        "zh": (
            "要求：summary 用中文写一段（不超过 150 字），概括下列各部分共同讲了什么：逐一点出其中的主要事项、"
            "义务、金额、期限和当事方；不要评论，不要套话。只输出 JSON。\n\n"
            "文档：{title}\n位置：{label}\n各部分：\n{text}"
        ),
        "en": (
            "Rules: summary is one paragraph (at most 80 words) saying what the parts below cover together: name their"
            " main matters, obligations, amounts, deadlines and parties; no comment, no filler. Output only JSON."
            "\n\nDocument: {title}\nWhere: {label}\nParts:\n{text}"
        ),
    },
    schema={
        "type": "object",
        "properties": {"summary": {"type": "string", "minLength": 8, "maxLength": NODE_SUMMARY_MAX_CHARS}},
        "required": ["summary"],
    },
    parse=parse_node_summary,
    max_tokens=320,
)
