"""Answer generation: stream the model's answer over numbered sources, checking citations as the text arrives."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace

from pikelocal.domain.answers import Answer, CallCost, Source
from pikelocal.domain.kinds import AnswerMode, AnswerStyle
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM, Completion, GenParams, Message, pass_through
from pikelocal.prompts.answer import answer_messages, answer_params, not_stated, says_not_stated
from pikelocal.query.answer.quoted import quoted_answer
from pikelocal.query.verify.attribute import add_missing_citations
from pikelocal.query.verify.check import ClaimStream
from pikelocal.query.verify.citations import CitationFilter
from pikelocal.query.verify.support import Locator
from pikelocal.text.lang import Lang
from pikelocal.text.script import Script, convert


@dataclass
class CallLog:
    """Every LLM call made for one question (the trace's cost columns)."""

    calls: list[CallCost] = field(default_factory=list)

    def add(self, tag: str, c: Completion) -> None:
        self.calls.append(
            CallCost(tag, c.prompt_tokens, c.completion_tokens, c.seconds, c.cached, evaluated=c.evaluated)
        )


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
    script: Script = "hans"  # the question's script (answers are shown in it)
    check: bool = True  # check every claim against the sources (False: the model's text as it came)
    cite_grammar: bool = False  # a grammar makes the model end every sentence with [n]
    quote: bool = False  # quote, then answer (query/answer/quoted.py); with the default prompt only
    # the documents the KB resolves the law the question cites to (store.refs): where an article asked for by number
    # is read (query/answer/provision.py); empty: matched by the sources' names
    law_docs: tuple[int, ...] = ()
    # what the question is about in other words (a review item's terms): the quote check reads it with the question
    topic: tuple[str, ...] = ()


@dataclass(frozen=True)
class Checking:
    """What claim checking may use besides the sources: the KB's page lines, and the encoder for paraphrases."""

    locate: Locator | None = None
    encoder: Encoder | None = None


def generate_answer(
    llm: LLM,
    request: AnswerRequest,
    sources: Sequence[Source],
    on_delta: Callable[[str], None],
    checking: Checking | None = None,
    *,
    messages: Sequence[Message] | None = None,
) -> Answer:
    """Stream the answer through ``on_delta``; no sources → "not stated" at once.

    ``messages`` is the prompt when the caller laid it out itself (decompose's shared prefix); by default the
    answer prompt over ``sources``.

    With ``request.check`` the deltas are the checked claims (``query.verify.check``); without, the model's text with
    invalid [n] removed and missing citations added by matching.
    """
    if not sources:
        text = not_stated(request.script)
        on_delta(text)
        return Answer(request.question, request.mode, request.lang, text, (), (), 0, True, script=request.script)
    if request.quote and messages is None:
        checking = checking or Checking()
        answer = quoted_answer(
            llm, request.question, request.lang, request.script, sources, on_delta,
            max_tokens=request.max_tokens, instruction=request.instruction, locator=checking.locate,
            check=request.check, law_docs=request.law_docs, encoder=checking.encoder, topic=request.topic,
        )  # fmt: skip
        return replace(answer, mode=request.mode)
    if messages is None:
        blocks = [(s.number, s.heading(), s.text) for s in sources]
        messages = answer_messages(
            request.question,
            request.lang,
            blocks,
            style=request.style,
            instruction=request.instruction,
            script=request.script,
        )
    if request.check:
        return _checked_answer(llm, request, sources, messages, on_delta, checking or Checking())
    return _unchecked_answer(llm, request, sources, messages, on_delta)


def _unchecked_answer(
    llm: LLM,
    request: AnswerRequest,
    sources: Sequence[Source],
    messages: Sequence[Message],
    on_delta: Callable[[str], None],
) -> Answer:
    """The model's text as it came, with the [n] that name no source removed and, where it cited nothing, the
    citations found by matching its sentences to the sources."""
    checker = CitationFilter(len(sources))
    shown: list[str] = []
    params = answer_params(request.max_tokens, len(sources), cite_grammar=request.cite_grammar)
    for delta in llm.stream(messages, params):
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
    text = convert(text, request.script, keep=[s.text for s in sources])
    return Answer(
        request.question, request.mode, request.lang, text, tuple(sources), cited, checker.removed, unsupported,
        matched, script=request.script,
    )  # fmt: skip


def _checked_answer(
    llm: LLM,
    request: AnswerRequest,
    sources: Sequence[Source],
    messages: Sequence[Message],
    on_delta: Callable[[str], None],
    checking: Checking,
) -> Answer:
    stream = ClaimStream(request.question, request.script, sources, checking.locate, checking.encoder)
    cleaner = CitationFilter(len(sources))  # counts the [n] that name no source
    params = answer_params(request.max_tokens, len(sources), cite_grammar=request.cite_grammar)
    started = False
    for delta in llm.stream(messages, params):
        shown = stream.feed(cleaner.feed(delta))
        if shown or not started:  # an empty first delta says the model is writing (the claim is held back)
            on_delta(shown)
            started = True
    if shown := stream.feed(cleaner.finish()) + stream.finish():
        on_delta(shown)
    supported = stream.supported
    cited = tuple(dict.fromkeys(c.evidence.source for c in supported if c.evidence is not None))
    return Answer(
        question=request.question,
        mode=request.mode,
        lang=request.lang,
        text=stream.text,
        sources=tuple(sources),
        cited=cited,
        removed_citations=cleaner.removed,
        unsupported=not supported,
        claims=tuple(stream.claims),
        draft=stream.draft.strip(),
        script=request.script,
        check_s=stream.seconds,
    )
