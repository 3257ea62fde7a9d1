"""The quote-first answering prompt: copy the sentence that answers from the numbered sources, then the shortest
answer.

A small reader that is asked to answer often says "not stated" about a fact that stands in front of it; asked to
copy the sentence that answers first, it finds it. The system then finds each quote in the sources
(``query/verify/quotes.py``), cites where it stands and checks the answer against it (``query/answer/quote_check.py``).

The reply is free text in two labelled parts, held to that form by a grammar (one to three quote lines):

    原文：(三)、廠商參與簡報相關成員不得超過【 4 】人，並應包括本案計畫主持人。
    答案：4人

The prompt gives the model no "no quote" way out: asked for "the sentence most about the question, holding its
answer", it quotes one; with "write 原文：无 when none answers" it wrote 原文：無 and then the right answer, often
(docs/BENCHMARKS.md, "Quote, then answer"). A reply may still say 无 (the parser drops such a quote).

The fixed rules come before the sources, so the model's KV cache of that prefix is reused from one question to the
next.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pikelocal.llm.base import GenParams, Message
from pikelocal.prompts.answer import answer_system
from pikelocal.text.lang import Lang
from pikelocal.text.question_kind import QuestionKind
from pikelocal.text.script import Script, to_traditional

QUOTE_TAG = "answer-quote"

_RULES: Mapping[Script, str] = {
    "hans": (
        "要求：\n"
        "1. 先从资料正文中找出与问题最相关、含有答案的那一句，"
        "一字不改地抄写在“原文：”后面（只抄正文，不抄编号和出处）。\n"
        "2. 再在“答案：”后面写出最简短的答案（一个数字、日期、名称或短语），用简体中文。\n"
        "3. 如果资料中没有答案，在“答案：”后面写“文档中没有说明”。\n"
    ),
    "hant": (
        "要求：\n"
        "1. 先從資料正文中找出與問題最相關、含有答案的那一句，"
        "一字不改地抄寫在“原文：”後面（只抄正文，不抄編號和出處）。\n"
        "2. 再在“答案：”後面寫出最簡短的答案（一個數字、日期、名稱或短語），用繁體中文。\n"
        "3. 如果資料中沒有答案，在“答案：”後面寫“文件中沒有說明”。\n"
    ),
    "en": (
        "Rules:\n"
        "1. First copy, word for word, the sentence of the sources' text most about the question, the one holding"
        ' its answer, after "Quote:"'
        " (the text only: not its number or where it is from).\n"
        '2. Then give the shortest answer (a name, date, number or short phrase) after "Answer:".\n'
        '3. If the sources do not hold the answer, write "The documents do not state this." after "Answer:".\n'
    ),
}
# (sources, question, "where the source is from")
_LABELS: Mapping[Script, tuple[str, str, str]] = {
    "hans": ("资料", "问题", "出处"),
    "hant": ("資料", "問題", "出處"),
    "en": ("Sources", "Question", "From"),
}

# The reply's labels as a small model writes them (with Markdown bold, full- or half-width colons).
_QUOTE_LABEL = re.compile(r"^[\s*#>-]*(?:原文|原句|摘录|摘錄|引文|依据|依據|quote|evidence)[\s*]*[:：]", re.I | re.M)
_ANSWER_LABEL = re.compile(r"^[\s*#>-]*(?:答案|回答|答复|答覆|answer)[\s*]*[:：]", re.I | re.M)
_NUMBER = re.compile(r"^\s*[\[【(（]\s*(\d{1,3})\s*[\]】)）]\s*")
_NONE = re.compile(r"^(?:无|無|没有|沒有|none|n/?a|nil)[。.]?$", re.I)
_WRAPPERS = "“”「」『』\"'‘’`*"


@dataclass(frozen=True)
class Quote:
    """One quote of a reply: the source number the model wrote before it (None: none) and its text."""

    number: int | None
    text: str


@dataclass(frozen=True)
class QuotedReply:
    """A quote-first reply: its quotes (empty when the model quoted none) and its short answer."""

    quotes: tuple[Quote, ...]
    answer: str


# One more rule by the question's kind (text/question_kind.py); a factoid needs none.
_KIND_RULES: Mapping[tuple[QuestionKind, bool], str] = {
    ("yesno", False): "答案先写“是”或“否”（题目问对错时写“正确”或“错误”）。",
    ("yesno", True): 'Begin the answer with "Yes" or "No" ("True" or "False" when the question asks which).',
    ("choice", False): "答案写出正确选项的字母。",
    ("choice", True): "Answer with the letter(s) of the correct option(s).",
    ("list", False): "问题要求列举时，每一项抄一句原文（最多三句），答案用“、”分隔各项。",
    ("list", True): "For a list, copy one sentence for each item (three at most) and separate the items with “;”.",
}


def quote_messages(
    question: str,
    lang: Lang,
    script: Script,
    sources: Sequence[tuple[int, str, str]],
    *,
    instruction: str = "",
    kind: QuestionKind = "factoid",
) -> list[Message]:
    """``sources`` are (number, heading, text); ``instruction`` (a benchmark's own) is added to the rules, and so is
    the rule for the question's ``kind``."""
    kind_rule = _KIND_RULES.get((kind, script == "en"), "")
    extra = [r for r in (to_traditional(kind_rule) if script == "hant" else kind_rule, instruction.strip()) if r]
    rules = _RULES[script] + "".join(f"{n}. {r}\n" for n, r in enumerate(extra, start=4))
    src_label, q_label, from_label = _LABELS[script]
    # the heading labelled as where the text is from: after a bare "[n] " the model quoted the heading
    blocks = "\n\n".join(f"[{n}] {from_label}: {heading}\n{text}" for n, heading, text in sources)
    user = f"{rules}\n{src_label}:\n{blocks}\n\n{q_label}: {question}"
    return [Message("system", answer_system(lang)), Message("user", user)]


def quote_params(max_tokens: int, script: Script) -> GenParams:
    """A GBNF grammar holds the reply to its form: one to ``MAX_QUOTES`` quote lines, then one answer line (a small
    model left free often stops after its quote, or writes a blank line and an essay)."""
    return GenParams(tag=QUOTE_TAG, max_tokens=max_tokens, grammar=quote_grammar(script))


MAX_QUOTES = 3


def quote_grammar(script: Script) -> str:
    quote_label, answer_label = ("Quote: ", "Answer: ") if script == "en" else ("原文：", "答案：")
    optional = " ".join(["quote?"] * (MAX_QUOTES - 1))
    return "\n".join(
        [
            f"root ::= quote {optional} answer",
            f'quote ::= "{quote_label}" line "\\n"',
            f'answer ::= "{answer_label}" line',
            "line ::= [^\\n]+",
        ]
    )


def parse_quoted(reply: str) -> QuotedReply:
    """The quotes and the answer of a reply. Without an "answer" label, the text after the quotes' first line is
    the answer; without any label, the whole reply is the answer (and there is no quote)."""
    text = reply.strip()
    answer_at = _ANSWER_LABEL.search(text)
    quote_at = _QUOTE_LABEL.search(text)
    if answer_at is None and quote_at is None:
        return QuotedReply((), _clean(text))
    if answer_at is None:
        assert quote_at is not None
        body = text[quote_at.end() :].strip()
        first, _, rest = body.partition("\n")
        return QuotedReply(_quotes(first), _clean(rest))
    answer = _clean(text[answer_at.end() :])
    if quote_at is not None and quote_at.start() < answer_at.start():
        quoted = text[quote_at.end() : answer_at.start()]
    elif quote_at is not None:  # the answer first, then its quote
        quoted = text[quote_at.end() :]
        answer = _clean(text[answer_at.end() : quote_at.start()])
    else:
        quoted = ""
    return QuotedReply(_quotes(quoted), answer)


def _quotes(block: str) -> tuple[Quote, ...]:
    """Each line of the quote block that is not "none"; a line starting with [n] names its source."""
    out: list[Quote] = []
    for line in _QUOTE_LABEL.sub("", block).splitlines():
        line = line.strip()
        number: int | None = None
        if m := _NUMBER.match(line):
            number, line = int(m.group(1)), line[m.end() :]
        line = _NUMBER.sub("", line.strip()).strip(_WRAPPERS).strip()  # a second marker: "[2]【2】"
        if line and not says_none(line):
            out.append(Quote(number, line))
    return tuple(out)


def says_none(text: str) -> bool:
    """The answer or quote is the model's "none" (无, 没有, none, n/a)."""
    return _NONE.match(text.strip()) is not None


def _clean(answer: str) -> str:
    """The answer's first paragraph, without wrapping quotes or Markdown emphasis."""
    first = answer.strip().split("\n\n", 1)[0].strip()
    return first.strip(_WRAPPERS).strip()
