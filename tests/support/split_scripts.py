"""Scripted replies for the LLM-guided splitter: numbered windows in, end_line choices out; topic texts."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from pikelocal.llm.base import GenParams, Message

_LINE = re.compile(r"^\[(\d+)\] (.*)$", re.MULTILINE)
_RANGE = re.compile(r"(?:end_line range: |end_line 范围：)(\d+) (?:to|到) (\d+)")

Chooser = Callable[[list[str], int, int], int]  # (window lines, first allowed, last allowed) → end_line


def window_of(messages: Sequence[Message]) -> tuple[list[str], int, int]:
    """The numbered lines and the allowed end_line range of the prompt the splitter sent."""
    user = messages[1].content
    lines = [text for _, text in _LINE.findall(user)]
    first, last = map(int, _RANGE.search(user).groups())  # type: ignore[union-attr]
    return lines, first, last


def reply(end_line: int, summary: str = "A summary of the chunk.", forward: str = "So far so good.") -> str:
    return json.dumps({"end_line": end_line, "summary": summary, "forward_summary": forward}, ensure_ascii=False)


def script(choose: Chooser) -> Callable[[Sequence[Message], GenParams], str]:
    def answer(messages: Sequence[Message], params: GenParams) -> str:
        lines, first, last = window_of(messages)
        return reply(choose(lines, first, last), summary=f"About {lines[0]}")

    return answer


def at_topic_end(lines: list[str], first: int, last: int) -> int:
    """The first line closing a topic within the allowed range, else the last allowed line."""
    ends = [n for n, text in enumerate(lines, 1) if text.endswith("(end of topic)") and first <= n <= last]
    return ends[0] if ends else last


def topic_text(topics: int, start: int = 0) -> str:
    """Paragraphs of four lines (seven words each, 28 in all), the last line of each closing its topic."""
    out = []
    for t in range(start, start + topics):
        body = [f"Topic {t} line {i} says alpha beta." for i in range(3)]
        out.append("\n".join([*body, f"Topic {t} closes here (end of topic)"]) + "\n\n")
    return "".join(out)
