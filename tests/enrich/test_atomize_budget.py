"""The atomizing reply's token cap holds the longest reply its grammar allows, with the default model's tokenizer.

Through llama-server on a GPU, 23 of 216 chunks of the Chinese tender failed with "invalid JSON: Unterminated
string … (the reply was cut off at the token limit?)": four questions of up to QUESTION_MAX_CHARS Chinese
characters did not fit the old cap of 220 tokens.
"""

from __future__ import annotations

import json
import re

import pytest

from pikelocal.prompts.atomize import QUESTION_MAX_CHARS, atomize_prompt
from tests.support.paths import REPO, installed_model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tokenizer():  # type: ignore[no-untyped-def]
    from llama_cpp import Llama

    path = installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    return Llama(str(path), vocab_only=True, verbose=False)


def longest_reply(text: str, questions: int) -> str:
    """``questions`` questions of QUESTION_MAX_CHARS characters each, cut from real tender prose."""
    prose = re.sub(r"[\s\"\\|#*：:（）()、，。；;,.\-0-9A-Za-z]", "", text)
    prose = prose * (1 + questions * QUESTION_MAX_CHARS // len(prose))  # the sample is short: go round it
    chunks = [prose[i * QUESTION_MAX_CHARS : (i + 1) * QUESTION_MAX_CHARS] for i in range(questions)]
    assert all(len(c) == QUESTION_MAX_CHARS for c in chunks)
    return json.dumps({"questions": chunks}, ensure_ascii=False)


@pytest.mark.parametrize("questions", [1, 4, 6])
def test_the_cap_holds_the_longest_chinese_reply_the_grammar_allows(tokenizer, questions: int) -> None:  # type: ignore[no-untyped-def]
    text = (REPO / "pikelocal" / "samples" / "道路改造工程招标文件（示例）.md").read_text(encoding="utf-8")
    reply = longest_reply(text, questions)
    tokens = len(tokenizer.tokenize(reply.encode("utf-8"), add_bos=False, special=False))
    cap = atomize_prompt(questions).params().max_tokens
    assert tokens <= cap, f"{tokens} tokens for the longest reply, cap {cap}"
