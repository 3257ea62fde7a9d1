"""Answer generation: stream the model's answer over numbered sources, checking citations as the text arrives."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from pikelocal.llm.base import LLM, Completion, GenParams, Message, pass_through
from pikelocal.prompts.answer import NO_SOURCES, AnswerStyle, answer_messages, answer_params, says_not_stated
from pikelocal.prompts.lang import Lang
from pikelocal.query.attribute import add_missing_citations
from pikelocal.query.citations import CitationFilter
from pikelocal.query.expand import heading
from pikelocal.query.records import Answer, AnswerMode, CallCost, Source


@dataclass
class CallLog:
    """Every LLM call made for one question (the trace's cost columns)."""

    calls: list[CallCost] = field(default_factory=list)

    def add(self, tag: str, c: Completion) -> None:
        self.calls.append(CallCost(tag, c.prompt_tokens, c.completion_tokens, c.seconds, c.cached))


class RecordingLLM:
    """An :class:`LLM` that logs each completion into a :class:`CallLog` and passes everything else through."""

    def __init__(self, inner: LLM, log: CallLog) -> None:
        self.inner = inner
        self.log = log
        self.model_id = inner.model_id
        self.context_tokens = inner.context_tokens
        self.max_parallel = inner.max_parallel

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        c = self.inner.complete(messages, params)
        self.log.add(params.tag, c)
        return c

    def stream(self, messages: Sequence[Message], params: GenParams) -> Generator[str, None, Completion]:
        start = time.perf_counter()
        parts: list[str] = []
        result = yield from pass_through(self.inner.stream(messages, params), parts)
        if not isinstance(result, Completion):
            result = Completion("".join(parts), self.model_id, 0, 0, time.perf_counter() - start)
        self.log.add(params.tag, result)
        return result

    def close(self) -> None:
        self.inner.close()


@dataclass(frozen=True)
class AnswerRequest:
    question: str
    lang: Lang
    mode: AnswerMode
    style: AnswerStyle = "full"
    instruction: str = ""  # a benchmark's own instruction, added to the rules
    max_tokens: int = 512


def generate_answer(
    llm: LLM, request: AnswerRequest, sources: Sequence[Source], on_delta: Callable[[str], None]
) -> Answer:
    """Stream the answer through ``on_delta`` (invalid [n] already removed); no sources → "not stated" at once."""
    if not sources:
        text = NO_SOURCES[request.lang]
        on_delta(text)
        return Answer(request.question, request.mode, request.lang, text, (), (), 0, True)
    blocks = [(s.number, heading(s), s.text) for s in sources]
    messages = answer_messages(
        request.question, request.lang, blocks, style=request.style, instruction=request.instruction
    )
    checker = CitationFilter(len(sources))
    shown: list[str] = []
    for delta in llm.stream(messages, answer_params(request.max_tokens)):
        safe = checker.feed(delta)
        if safe:
            shown.append(safe)
            on_delta(safe)
    rest = checker.finish()
    if rest:
        shown.append(rest)
        on_delta(rest)
    text = "".join(shown).strip()
    unsupported = says_not_stated(text) and not checker.cited
    matched: tuple[int, ...] = ()
    if not checker.cited and not unsupported:
        text, matched = add_missing_citations(text, sources)
    cited = tuple(checker.cited) or matched
    return Answer(
        request.question, request.mode, request.lang, text, tuple(sources), cited, checker.removed, unsupported,
        matched,
    )  # fmt: skip
