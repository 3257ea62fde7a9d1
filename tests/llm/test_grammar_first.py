"""Grammar-first constrained greedy: the same tokens as llama.cpp's grammar sampler chain, on a real model."""

from __future__ import annotations

import json

import pytest

from pikelocal.llm.base import Completion, GenParams, Message
from pikelocal.llm.llama_cpp import GrammarFirst, LlamaCppLLM, _schema_gbnf
from pikelocal.prompts.answer import cite_each_sentence_grammar
from pikelocal.prompts.atomize import atomize_prompt

SCHEMA = atomize_prompt(3).schema
CASES = [
    [Message("system", "You write JSON."), Message("user", "List three questions about bid bonds as JSON.")],
    [
        Message("system", "你是文档索引助手。"),
        Message("user", "投标保证金为五万元，履约保证金为合同价款的百分之十。写出问题，只输出 JSON。"),
    ],
]


# One fixed thread for both: another thread count may sum in another order and flip a near tie, which is not what
# these tests are about (and two threads beside a busy test run can stall).
@pytest.fixture(scope="module")
def fast(smollm2_path) -> LlamaCppLLM:  # type: ignore[no-untyped-def]
    llm = LlamaCppLLM(smollm2_path, n_ctx=2048, n_threads=1, grammar_first=True, adapt_threads=False)
    yield llm
    llm.close()


@pytest.fixture(scope="module")
def chain(smollm2_path) -> LlamaCppLLM:  # type: ignore[no-untyped-def]
    """The same model with the grammar in llama.cpp's sampler chain (the reference)."""
    llm = LlamaCppLLM(smollm2_path, n_ctx=2048, n_threads=1, grammar_first=False, adapt_threads=False)
    yield llm
    llm.close()


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_same_json_as_the_grammar_in_the_chain(fast, chain, case: int) -> None:  # type: ignore[no-untyped-def]
    params = GenParams(tag="t", max_tokens=80, json_schema=SCHEMA)
    assert fast.grammar_first and not chain.grammar_first
    got = fast.complete(CASES[case], params)
    reference = chain.complete(CASES[case], params)
    assert got.text == reference.text and got.completion_tokens == reference.completion_tokens
    if got.text.rstrip().endswith("}"):  # not cut at max_tokens: it is the schema's JSON
        assert isinstance(json.loads(got.text)["questions"], list)


def test_a_streamed_answer_under_the_citation_grammar_is_the_same(fast, chain) -> None:  # type: ignore[no-untyped-def]
    messages = [Message("system", "Answer from the sources."), Message("user", "[1] The bond is 5%.\nQ: bond?\nA:")]
    params = GenParams(tag="answer", max_tokens=40, grammar=cite_each_sentence_grammar(2))

    def run(llm: LlamaCppLLM) -> Completion:
        gen = llm.stream(messages, params)
        try:
            while True:
                next(gen)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]

    got, reference = run(fast), run(chain)
    assert got.text == reference.text and got.text.rstrip()[-1] in ".!?。！？"  # the grammar ends a sentence


def test_the_grammar_is_asked_about_one_token_unless_it_refuses(smollm2) -> None:  # type: ignore[no-untyped-def]
    constraint = GrammarFirst(smollm2.raw, _schema_gbnf(SCHEMA))
    try:
        vocab = smollm2.raw.n_vocab()
        import numpy as np

        logits = np.full(vocab, -5.0, dtype=np.float32)
        brace = smollm2.raw.tokenize(b"{", add_bos=False, special=False)[0]
        letter = smollm2.raw.tokenize(b"x", add_bos=False, special=False)[0]
        logits[brace] = 3.0
        out = constraint(None, logits.copy())
        assert int(np.argmax(out)) == brace and np.isinf(out[letter]) and constraint.full_checks == 0
        # the model's favourite is refused ("x" cannot follow "{" in this schema): the whole vocabulary is checked
        logits[letter] = 9.0
        out = constraint(None, logits.copy())
        assert int(np.argmax(out)) != letter and constraint.full_checks == 1
    finally:
        constraint.close()


def test_a_failure_inside_the_processor_is_an_error_not_a_silent_reply(fast, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The processor runs as a ctypes callback, where an exception would vanish; the backend raises it instead."""
    from pikelocal.domain.errors import BackendError

    def dead_end(self, logits):  # type: ignore[no-untyped-def]
        raise RuntimeError("the grammar allows no token here")

    monkeypatch.setattr(GrammarFirst, "_allows", lambda self, token, logit: False)
    monkeypatch.setattr(GrammarFirst, "_best_allowed", dead_end)
    with pytest.raises(BackendError, match="allows no token"):
        fast.complete(CASES[0], GenParams(tag="t", max_tokens=8, json_schema=SCHEMA))
