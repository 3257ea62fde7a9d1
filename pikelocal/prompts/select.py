"""The selection prompt: the system has read the figures (``store.statements``), the model only picks one.

A question asking for an amount, a date, a count, a duration or a percentage is shown at most eight numbered
one-line statements of its kind (what each value is of, the value as printed, a few words of its sentence) and "0:
none of these"; the model answers with one number under a grammar, so its reply is one or two tokens. The system then
answers with the chosen statement's value, cited at its page and lines (``query/answer/select.py``).

The fixed rules come first, so the model's KV cache of that prefix is reused from one question to the next.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from pikelocal.llm.base import GenParams, Message
from pikelocal.text.script import Script

SELECT_TAG = "answer-select"
MAX_OPTIONS = 8

_RULES: Mapping[Script, str] = {
    "hans": (
        "下面是从文件中摘出的几条语句，每条写明一个数值是什么的数值。"
        "选出回答问题的那一条，只写它的编号；如果没有一条回答这个问题，写 0。"
    ),
    "hant": (
        "下面是從文件中摘出的幾條語句，每條寫明一個數值是什麼的數值。"
        "選出回答問題的那一條，只寫它的編號；如果沒有一條回答這個問題，寫 0。"
    ),
    "en": (
        "Below are statements taken from the documents, each saying what one value is a value of. Pick the one that"
        " answers the question and write only its number; if none answers it, write 0."
    ),
}
_LABELS: Mapping[Script, tuple[str, str, str]] = {
    "hans": ("问题", "以上都不是", "编号"),
    "hant": ("問題", "以上都不是", "編號"),
    "en": ("Question", "none of these", "Number"),
}
_DIGIT = re.compile(r"\d")


def select_messages(question: str, script: Script, lines: Sequence[str]) -> list[Message]:
    """The prompt: the rules, the question, the numbered statements and "0: none of these"."""
    if not 0 < len(lines) <= MAX_OPTIONS:
        raise ValueError(f"between 1 and {MAX_OPTIONS} statements, got {len(lines)}")
    asked, none, number = _LABELS[script]
    options = "\n".join(f"{n}. {line}" for n, line in enumerate(lines, start=1))
    body = f"{_RULES[script]}\n\n{asked}：{question}\n\n{options}\n0. {none}\n\n{number}："
    return [Message("user", body)]


def select_params(options: int) -> GenParams:
    """One digit from 0 to ``options`` (a grammar holds the reply to it)."""
    digits = "".join(str(n) for n in range(options + 1))
    return GenParams(tag=SELECT_TAG, max_tokens=3, temperature=0.0, grammar=f"root ::= [{digits}]")


def parse_choice(reply: str, options: int) -> int | None:
    """The number the model picked (0: none of these), or None when the reply holds none in range."""
    m = _DIGIT.search(reply)
    if m is None:
        return None
    n = int(m.group(0))
    return n if 0 <= n <= options else None
