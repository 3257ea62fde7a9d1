"""The answering prompt: numbered sources, cite them as [n], say plainly when the documents do not state it.

Free text (streamed), not JSON. The fixed instructions come before the sources so the model's KV cache of the
prefix is reused from one question to the next.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pikelocal.domain.kinds import AnswerStyle
from pikelocal.llm.base import GenParams, Message
from pikelocal.text.lang import Lang
from pikelocal.text.script import Script, to_simplified

ANSWER_TAG = "answer"

# What the answer says when the sources do not hold it; the model is told to begin with these words.
NOT_STATED: Mapping[Lang, str] = {"zh": "文档中没有说明", "en": "The documents do not state"}
# The same words in each script, for answers that checking found no support for.
NOT_STATED_BY_SCRIPT: Mapping[Script, str] = {
    "hans": "文档中没有说明",
    "hant": "文件中沒有說明",
    "en": "The documents do not state",
}
_NOT_STATED_RE = re.compile(
    r"(?:文档|资料|文件)(?:中|里)?(?:并)?(?:没有|未|均未|没)(?:说明|提及|提到|记载|规定|涉及|包含|给出|明确)"
    r"|(?i:\b(?:documents?|sources?) (?:do|does) not (?:state|say|mention|contain|specify|include)\b)"
)

_SYSTEM: Mapping[Lang, str] = {
    "zh": "你是严谨的文档问答助手：只根据给出的资料回答，不使用资料以外的知识，不猜测。",
    "en": "You answer questions strictly from the sources given: no outside knowledge, no guessing.",
}
_RULES: Mapping[Lang, str] = {
    "zh": (
        "要求：\n"
        "1. 只根据资料回答，用中文。\n"
        "2. 每个事实后面用方括号标出资料编号，只能引用下面列出的编号。格式示例：某事实 [1]。另一事实 [2][3]。\n"
        "3. 如果资料中没有答案，只回答“文档中没有说明……”并写出缺少什么，不要猜测。\n"
    ),
    "en": (
        "Rules:\n"
        "1. Answer only from the sources, in English.\n"
        "2. After each fact cite its source number in brackets, citing only the numbers listed. Format example:"
        " One fact [1]. Another fact [2][3].\n"
        '3. If the sources do not contain the answer, reply only "The documents do not state …" naming what is '
        "missing; do not guess.\n"
    ),
}
# Rules 1 and 3 for a question in traditional Chinese: answer in traditional characters, and the phrase for
# "not stated" in them (OpenCC converts what still drifts).
_RULES_HANT = (
    _RULES["zh"].replace("用中文。", "用繁体中文（繁體字）回答。").replace("“文档中没有说明……”", "“文件中沒有說明……”")
)
_SHORT: Mapping[Lang, str] = {
    "zh": "4. 先给出最简短的答案（一个名称、日期、数字或短语），再标出处，不要解释。\n",
    "en": "4. Give the shortest possible answer (a name, date, number or short phrase), then its citation; "
    "no explanation.\n",
}
_LABELS: Mapping[Lang, tuple[str, str, str]] = {"zh": ("资料", "问题", "回答"), "en": ("Sources", "Question", "Answer")}


def answer_messages(
    question: str,
    lang: Lang,
    sources: Sequence[tuple[int, str, str]],
    *,
    style: AnswerStyle = "full",
    instruction: str = "",
    script: Script | None = None,
) -> list[Message]:
    """``sources`` are (number, heading, text). ``instruction`` (a benchmark's own) is added to the rules.

    ``script`` "hant" asks for traditional characters (the question's own script).
    """
    rules = answer_rules(lang, style=style, instruction=instruction, script=script)
    src_label, q_label, a_label = _LABELS[lang]
    blocks = "\n\n".join(f"[{n}] {heading}\n{text}" for n, heading, text in sources)
    user = f"{rules}\n{src_label}:\n{blocks}\n\n{q_label}: {question}\n{a_label}:"
    return [Message("system", _SYSTEM[lang]), Message("user", user)]


def answer_system(lang: Lang) -> str:
    return _SYSTEM[lang]


def answer_rules(
    lang: Lang, *, style: AnswerStyle = "full", instruction: str = "", script: Script | None = None
) -> str:
    """The numbered rules of the answer (citations, "not stated", the script, the short style, a benchmark's own)."""
    rules = (_RULES_HANT if script == "hant" and lang == "zh" else _RULES[lang]) + (
        _SHORT[lang] if style == "short" else ""
    )
    if instruction:
        rules += instruction.strip() + "\n"
    return rules


def answer_task(lang: Lang) -> str:
    """What ends an answer prompt: ``回答：`` / ``Answer:``."""
    return f"{_LABELS[lang][2]}:"


def answer_params(max_tokens: int, n_sources: int = 0, *, cite_grammar: bool = False) -> GenParams:
    """``cite_grammar``: every sentence must end with a [n] naming one of the ``n_sources`` (GBNF, streamed)."""
    grammar = cite_each_sentence_grammar(n_sources) if cite_grammar and n_sources else None
    return GenParams(tag=ANSWER_TAG, max_tokens=max_tokens, grammar=grammar)


def cite_each_sentence_grammar(n_sources: int) -> str:
    """GBNF: sentences each ending in `` [n]`` (n a source number) and then its full stop; the last one may go
    without (a "not stated" sentence has nothing to cite, and without that way out the model repeats itself).

    A "." inside a number (1.5, $1,442,404.50) does not end a sentence; brackets only appear in the markers.
    """
    numbers = " | ".join(f'"{n}"' for n in range(1, n_sources + 1))
    return "\n".join(
        [
            "root ::= sentence* text cite? stop",
            "sentence ::= text cite stop space",
            'text ::= ([^\\[\\]【】。！？!?\\n.] | "." [0-9])+',
            f'cite ::= " [" ({numbers}) "]"',
            'stop ::= "。" | "！" | "？" | "." | "!" | "?"',
            'space ::= " "? ("\\n")?',
        ]
    )


def says_not_stated(text: str) -> bool:
    """True when the answer declares the documents silent (in either language)."""
    return _NOT_STATED_RE.search(to_simplified(text)) is not None


# What a "not stated" answer says it lacks when nobody named it: the question itself is never cut into a phrase
# ("文件中沒有說明第一期專案報告書應於前提送。" was the question with its question words deleted).
_THIS: Mapping[Script, str] = {"hans": "这一点", "hant": "這一點", "en": "this"}


def not_stated(script: Script, missing: str = "") -> str:
    """ "文档中没有说明押标金金额。" / "The documents do not state the notice period."; without ``missing``
    "文档中没有说明这一点。" / "文件中沒有說明這一點。" / "The documents do not state this." """
    head = NOT_STATED_BY_SCRIPT[script]
    what = missing.strip().rstrip("。？?.") or _THIS[script]
    return f"{head} {what}." if script == "en" else f"{head}{what}。"
