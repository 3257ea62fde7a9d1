"""PIKE-RAG knowledge atomizing: the questions a chunk can answer.

The parser keeps a question only when it is in the chunk's language and names its subject (no bare 它 / 该项目
/ "it"); duplicates are dropped. A reply with no usable question is a :class:`ReplyError`, so the model is
asked once more with the reason.

Every token of this call is paid once per chunk, so the prompt is laid out for the KV cache: the instructions
(the same for every chunk) first, then what is the same for every chunk of one document (its title and summary),
and only then the chunk's own section and text. The reply is questions only: a chunk summary would cost ~40
generated tokens per chunk and nothing reads it (the document summary already goes into every chunk's header).
Measured in docs/benchmarks/machines-and-setup.md ("Every LLM token must pay").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pikelocal.prompts.base import Prompt, ReplyError, clean_line
from pikelocal.text.entity_names import occurs, unit_string
from pikelocal.text.lang import Lang, detect_lang

QUESTION_MAX_CHARS = 120
CONTEXT_MAX_CHARS = 160  # contextual retrieval: one or two sentences that situate the chunk (about 60-100 tokens)
# The entity graph (enrich.entities): HippoRAG-style open information extraction in the same call, bounded.
ENTITY_MAX_CHARS = 40
MAX_ENTITIES = 8
MAX_TRIPLES = 5

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
        r"|clause|subject)\b)"
    ),
}

_SYSTEM: Mapping[Lang, str] = {
    "zh": "你是文档索引助手：阅读一段文档，写出这段文字能回答的问题。",
    "en": "You index documents: read a passage and write the questions it answers.",
}
# The same for every chunk: instructions. Then the same for every chunk of a document: title and summary.
_RULES: Mapping[Lang, str] = {
    "zh": (
        "要求：\n"
        "1. 用中文提问；每个问题只问这段文字给出的一个事实，不超过 30 字。\n"
        "2. 问题要独立完整：写出主体的名称（项目、公司、法律、条款号），不用“它”“该项目”“本合同”“上述”等指代。\n"
        "3. 最多 {max_q} 个问题，互不重复。只输出 JSON。\n\n"
        "文档：{title}\n{context}每个问题都写明主体，如“{title}”。\n\n"
    ),
    "en": (
        "Rules:\n"
        "1. Ask in English; each question asks one fact the passage gives, in at most 15 words.\n"
        "2. Each question stands alone: name the subject (project, company, law, clause number); never write"
        ' "it", "this agreement", "the project" or "the above".\n'
        "3. At most {max_q} questions, no duplicates. Output only JSON.\n\n"
        'Document: {title}\n{context}Name the subject in every question, e.g. "{title}".\n\n'
    ),
}
# Contextual retrieval (enrich.context): the same call first writes what situates the passage in its document.
_SITUATE: Mapping[Lang, str] = {
    "zh": (
        "先在 context 里用一两句话（不超过 60 字）说明这段文字在文档中的位置和作用：属于文档的哪一部分、讲的是"
        "什么事项，写出主体名称，便于检索时找到它；再写问题。\n"
    ),
    "en": (
        "First, in context, write one or two sentences (at most 30 words) that situate the passage within the"
        " document: which part it belongs to and what matter it covers, naming the subject, to help find it in a"
        " search; then the questions.\n"
    ),
}
# The entity graph (enrich.entities): after the questions, the passage's names and the facts that link them.
_ENTITIES: Mapping[Lang, str] = {
    "zh": (
        "再在 entities 里照原文列出这段文字本身出现的专有名称（机构、人名、地名、项目、法律、文件；"
        f"不要列标题或摘要里的），最多 {MAX_ENTITIES} 个；在 triples 里用 [主体, 关系, 客体] 写出这段文字陈述的事实，"
        f"最多 {MAX_TRIPLES} 条，主体和客体用 entities 里的名称。\n"
    ),
    "en": (
        f"Then list in entities the proper names the passage itself mentions (organisations, people, places,"
        f" projects, laws, documents; not those of the title or summary), at most {MAX_ENTITIES}, as written; and"
        f" in triples the facts it states as [subject, relation, object], at most {MAX_TRIPLES}, subject and object"
        " being names from entities.\n"
    ),
}
_PASSAGE: Mapping[Lang, str] = {
    "zh": "位置：{section}\n文字：\n{text}",
    "en": "Section: {section}\nPassage:\n{text}",
}


@dataclass(frozen=True)
class Atoms:
    questions: tuple[str, ...]
    dropped: tuple[tuple[str, str], ...]  # (question, why) for questions the parser refused
    context: str = ""  # contextual retrieval: what situates the chunk (when the prompt asked for it)
    entities: tuple[str, ...] = ()  # the entity graph: names the chunk mentions (when the prompt asked for them)
    triples: tuple[tuple[str, str, str], ...] = ()  # (subject, relation, object), subject and object in entities


def question_key(text: str) -> str:
    """What two questions must share to count as duplicates: letters and digits, case and width folded."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def vague_reference(question: str, lang: Lang) -> str | None:
    """The bare reference a question leans on (它, 该项目, it …), or None when it names its subject."""
    m = _VAGUE[lang].search(question)
    return m.group(0) if m else None


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
    context = ""
    if fields.get("situate"):
        context = clean_line(data.get("context"), CONTEXT_MAX_CHARS)
        if len(question_key(context)) < 4:
            raise ReplyError('"context" must situate the passage in its document in a sentence or two')
    entities: tuple[str, ...] = ()
    triples: tuple[tuple[str, str, str], ...] = ()
    if fields.get("entities"):
        entities, triples = parse_entities(data, fields.get("text"))
    return Atoms(tuple(kept[: int(fields["max_q"])]), tuple(dropped), context, entities, triples)


# A name holds no clause punctuation: a reply string with it is a clause or a list the model copied (seen on the
# tender's notice: "湖北省水利厅、湖北省发展和改革委员会（…）以鄂水利函…" as a triple's object), never one name.
_CLAUSE_MARKS = re.compile(r"[，。；！？、;]")


def _name_key(name: str) -> str:
    return "".join(unicodedata.normalize("NFKC", name).casefold().split())


def parse_entities(
    data: Mapping[str, Any], passage: str | None = None
) -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """The reply's entity names (cleaned, one per name, at most ``MAX_ENTITIES``) and triples (three non-empty
    parts; a subject or object missing from the names is added to them, as HippoRAG keeps every triple's ends as
    nodes). A string with clause punctuation (，。；、…) is a clause or a list, not a name, and is left out. With
    ``passage``, only names that occur in it by whole words (``entity_names.occurs``: case, width, spacing and
    quote marks aside; 'ra' is not in "paternal") are kept, and only triples
    between such names: the 1.5B model also lists the title's and summary's names, which would tie every chunk of a
    document to them (seen on the tender). What is malformed is left out, never a reason to ask again: the
    questions are the call's main yield."""
    names: dict[str, str] = {}
    within = unit_string(passage) if passage is not None else None

    def add(raw: object) -> str | None:
        name = clean_line(raw, ENTITY_MAX_CHARS)
        key = _name_key(name)
        if not key or _CLAUSE_MARKS.search(name) or (within is not None and not occurs(name, within)):
            return None
        names.setdefault(key, name)
        return names[key]

    for raw in list(data.get("entities") or [])[:MAX_ENTITIES]:
        add(raw)
    triples: list[tuple[str, str, str]] = []
    for raw in list(data.get("triples") or [])[:MAX_TRIPLES]:
        if not isinstance(raw, list) or len(raw) != 3:
            continue
        relation = clean_line(raw[1], ENTITY_MAX_CHARS)
        subject, obj = add(raw[0]), add(raw[2])
        if subject and obj and relation and _name_key(subject) != _name_key(obj):
            triples.append((subject, relation, obj))
    return tuple(names.values()), tuple(dict.fromkeys(triples))


@lru_cache(maxsize=8)
def atomize_prompt(max_questions: int, situate: bool = False, entities: bool = False) -> Prompt[Atoms]:
    """The atomizing prompt asking for up to ``max_questions`` questions; with ``situate``, first a context that
    situates the chunk in its document (contextual retrieval, in the same call: the passage is read once); with
    ``entities``, after the questions the chunk's entity names and triples (the entity graph, same call).
    Its jobs must then carry ``situate=True`` / ``entities=True`` in their fields."""
    questions = {
        "type": "array",
        "items": {"type": "string", "minLength": 4, "maxLength": QUESTION_MAX_CHARS},
        "minItems": 1,
        "maxItems": max_questions,
    }
    properties: dict[str, Any] = {"questions": questions}
    if situate:  # the context first: the model situates the passage, then asks about it
        properties = {"context": {"type": "string", "minLength": 8, "maxLength": CONTEXT_MAX_CHARS}, **properties}
    if entities:
        name = {"type": "string", "minLength": 1, "maxLength": ENTITY_MAX_CHARS}
        properties["entities"] = {"type": "array", "items": name, "maxItems": MAX_ENTITIES}
        triple = {"type": "array", "items": name, "minItems": 3, "maxItems": 3}
        properties["triples"] = {"type": "array", "items": triple, "maxItems": MAX_TRIPLES}
    schema = {"type": "object", "properties": properties, "required": list(properties)}
    langs: tuple[Lang, ...] = ("zh", "en")
    situating = _SITUATE if situate else {lang: "" for lang in langs}
    extracting = _ENTITIES if entities else {lang: "" for lang in langs}
    return Prompt(
        name="atomize" + ("_situate" if situate else "") + ("_entities" if entities else ""),
        system=_SYSTEM,
        user={lang: _RULES[lang] + situating[lang] + extracting[lang] + _PASSAGE[lang] for lang in langs},
        schema=schema,
        parse=parse_atoms,
        # room for the longest reply the grammar allows (a Chinese question of QUESTION_MAX_CHARS characters is
        # up to about as many tokens): a tighter cap cut replies off mid-string, and the chunk failed
        max_tokens=24
        + max_questions * (QUESTION_MAX_CHARS + 8)
        + ((CONTEXT_MAX_CHARS + 16) if situate else 0)
        + ((MAX_ENTITIES + 3 * MAX_TRIPLES) * (ENTITY_MAX_CHARS + 6) + 24 if entities else 0),
    )
