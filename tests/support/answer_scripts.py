"""Scripted answers for the fake LLM, as a careful model would give them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pikelocal.llm.base import GenParams, Message


def cite_source_with(words: str, sentence: str) -> object:
    """An answer script citing the number of the source that holds ``words`` (as a careful model would)."""

    def answer(messages: Sequence[Message], _params: GenParams) -> str:
        prompt = messages[-1].content
        starts = list(re.finditer(r"^\[(\d+)\] ", prompt, flags=re.M))
        for m, after in zip(starts, [*starts[1:], None], strict=True):
            if words in prompt[m.start() : after.start() if after else len(prompt)]:
                return f"{sentence} [{m.group(1)}]."
        return "The documents do not state it."

    return answer
