"""The selection prompt: the system has read the figures (``store.statements``), the model only picks one.

A question asking for an amount, a date, a count, a duration or a percentage is shown at most eight lettered
one-line statements of its kind (what each value is of, the value as printed, a few words of its sentence) and,
last, "none of these"; the model answers with one letter under a grammar, so its reply is one token. (Asked for a
number with "0: none of these", the 1.5B model wrote 0 to every question; lettered like a multiple choice, it
picks.) The system then
answers with the chosen statement's value, cited at its page and lines (``query/answer/select.py``).

The fixed rules come first, so the model's KV cache of that prefix is reused from one question to the next.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pikelocal.llm.base import GenParams, Message
from pikelocal.text.script import Script

SELECT_TAG = "answer-select"
_LETTER = re.compile(r"[A-I]")
MAX_OPTIONS = 8

_RULES: Mapping[Script, str] = {
    "hans": "下列哪一项回答了这个问题？每一项写明一个数值是什么的数值。",
    "hant": "下列哪一項回答了這個問題？每一項寫明一個數值是什麼的數值。",
    "en": "Which of these answers the question? Each says what one value is a value of.",
}
_LABELS: Mapping[Script, tuple[str, str, str]] = {
    "hans": ("问题", "以上皆非", "只写一个字母。答案："),
    "hant": ("問題", "以上皆非", "只寫一個字母。答案："),
    "en": ("Question", "none of these", "Write one letter only. Answer:"),
}
LETTERS = "ABCDEFGHI"


def select_messages(question: str, script: Script, lines: Sequence[str]) -> list[Message]:
    """The prompt: the question, the lettered statements and, after them, "none of these"."""
    if not 0 < len(lines) <= MAX_OPTIONS:
        raise ValueError(f"between 1 and {MAX_OPTIONS} statements, got {len(lines)}")
    asked, none, answer = _LABELS[script]
    options = "\n".join(f"{LETTERS[n]}. {line}" for n, line in enumerate(lines))
    body = f"{asked}：{question}\n\n{_RULES[script]}\n{options}\n{LETTERS[len(lines)]}. {none}\n\n{answer}"
    return [Message("user", body)]


def select_params(options: int) -> GenParams:
    """One letter, A to the one after the ``options`` statements ("none of these"), held to it by a grammar."""
    return GenParams(tag=SELECT_TAG, max_tokens=2, temperature=0.0, grammar=f"root ::= [A-{LETTERS[options]}]")


def parse_choice(reply: str, options: int) -> int | None:
    """The statement the model picked, 1-based (0: none of these), or None when the reply names no letter in
    range."""
    m = _LETTER.search(reply.upper())
    if m is None:
        return None
    n = LETTERS.index(m.group(0))
    if n > options:
        return None
    return 0 if n == options else n + 1
