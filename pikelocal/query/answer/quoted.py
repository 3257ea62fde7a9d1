"""Quote, then answer: the model copies the sentence that answers, then writes the shortest answer; the
system finds the quote in the sources, cites where it stands, and keeps the answer only where the quote bears it
(``query/answer/quote_check.py``).

The reply is parsed into quotes and an answer (``prompts/quote.py``, held to its form by a grammar); the question's
kind (``prompts/question_kind.py``) adds one rule to the prompt and sets how the answer is checked. The citation is
the quote's own page and lines (``Locator``), whatever number the model wrote. No LLM call besides the answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from pikelocal.domain.answers import Answer, ClaimCheck, Source
from pikelocal.domain.kinds import Verdict
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM, Message
from pikelocal.prompts.answer import not_stated, says_not_stated
from pikelocal.prompts.quote import QuotedReply, parse_quoted, quote_messages, quote_params
from pikelocal.query.answer.provision import ArticleSpan, article_span, asked_article
from pikelocal.query.answer.quote_check import QuotedVerdict, check_reply
from pikelocal.query.verify.about import Meaning
from pikelocal.query.verify.support import Locator, evidence, span_unit
from pikelocal.text.question_kind import QuestionKind, question_kind
from pikelocal.text.script import Script, convert


def quoted_answer(
    llm: LLM,
    question: str,
    lang: str,
    script: Script,
    sources: Sequence[Source],
    on_delta: Callable[[str], None],
    *,
    max_tokens: int,
    instruction: str = "",
    locator: Locator | None = None,
    check: bool = True,
    law_docs: Sequence[int] = (),
    encoder: Encoder | None = None,
    topic: Sequence[str] = (),
) -> Answer:
    """Ask for quote and answer over ``sources``, check them, show the result through ``on_delta``; the answer's
    ``mode`` is the caller's to fill in. A question asking what an article says is answered with the article, when
    the sources hold it, without the model (``query/answer/provision.py``; ``law_docs``: the documents the KB resolves
    the cited law to). With ``encoder``, a quote whose words differ from the question's may still be about it
    (``query/verify/about.py``; ``topic``: a review item's terms, what the question is about in other words)."""
    ref = asked_article(question)
    span = article_span(ref, sources, english=lang == "en", law_docs=law_docs) if ref is not None else None
    if span is not None:
        return _article_answer(question, lang, script, sources, span, on_delta, locator)
    kind = question_kind(question, instruction)
    draft = _draft(llm, question, lang, script, sources, on_delta, max_tokens=max_tokens, instruction=instruction,
                   kind=kind)  # fmt: skip
    start = time.perf_counter()
    reply = parse_quoted(draft)
    meaning = Meaning(encoder, question, tuple(topic)) if encoder is not None else None
    verdict = check_reply(reply, question, sources, locator, kind, meaning)
    said = verdict.answer or reply.answer  # the system's choice or true/false where it decided (quote_check.decide)
    unchecked = not check and bool(said) and not says_not_stated(said)
    shown, cited = _shown(said, verdict, script, sources, unchecked=unchecked)
    on_delta(shown)
    answer = Answer(
        question=question,
        mode="naive",
        lang=lang,
        text=shown,
        sources=tuple(sources),
        cited=cited,
        removed_citations=0,
        unsupported=not verdict.checks and not unchecked,
        claims=verdict.checks or (*_to_check(verdict), _rejected(reply, verdict.reason)),
        draft=reply.answer,  # the model's answer before checking (its quotes are in the claims)
        script=script,
        check_s=time.perf_counter() - start,
    )
    return answer


def _draft(
    llm: LLM,
    question: str,
    lang: str,
    script: Script,
    sources: Sequence[Source],
    on_delta: Callable[[str], None],
    *,
    max_tokens: int,
    instruction: str,
    kind: QuestionKind,
) -> str:
    """The model's reply (quotes, then the answer) as it came; ``on_delta`` hears only that it is writing."""
    blocks = [(s.number, s.heading(), s.text) for s in sources]
    messages: list[Message] = quote_messages(question, "en" if lang == "en" else "zh", script, blocks,
                                             instruction=instruction, kind=kind)  # fmt: skip
    parts: list[str] = []
    for delta in llm.stream(messages, quote_params(max_tokens, script)):
        if not parts:
            on_delta("")  # the model is writing (the answer is shown once checked)
        parts.append(delta)
    return "".join(parts)


def _shown(
    said: str, verdict: QuotedVerdict, script: Script, sources: Sequence[Source], *, unchecked: bool
) -> tuple[str, tuple[int, ...]]:
    """The answer shown and the sources it cites: the checked answer with its quotes' sources, the model's answer as
    it came where checking is off, else "not stated"."""
    keep = [s.text for s in sources]
    if verdict.checks:
        cited = tuple(dict.fromkeys(c.evidence.source for c in verdict.checks if c.evidence is not None))
        return convert(said, script, keep=keep) + "".join(f" [{n}]" for n in cited), cited
    if unchecked:  # checking off (a benchmark's option letters): the model's answer as it came
        return convert(said, script, keep=keep), ()
    return not_stated(script), ()


def _article_answer(
    question: str,
    lang: str,
    script: Script,
    sources: Sequence[Source],
    span: ArticleSpan,
    on_delta: Callable[[str], None],
    locator: Locator | None,
) -> Answer:
    text = span.text.rstrip("… \n")  # a compressed source marks what it left out with …
    unit = span_unit(span.source, span.start, span.start + len(text), table_row=False)
    check = ClaimCheck(text, "supported", "", evidence=evidence(unit, locator), method="article")
    shown = convert(text, script, keep=[s.text for s in sources]) + f" [{span.source.number}]"
    on_delta(shown)
    return Answer(
        question=question,
        mode="naive",
        lang=lang,
        text=shown,
        sources=tuple(sources),
        cited=(span.source.number,),
        removed_citations=0,
        unsupported=False,
        claims=(check,),
        draft="",
        script=script,
    )


def _to_check(verdict: QuotedVerdict) -> tuple[ClaimCheck, ...]:
    return (verdict.to_check,) if verdict.to_check is not None else ()


def _rejected(reply: QuotedReply, reason: str) -> ClaimCheck:
    """The reply as one claim that checking did not keep; the reason names the quotes it came with."""
    verdict: Verdict = "not_stated" if says_not_stated(reply.answer) or not reply.answer else "unsupported"
    quoted = " / ".join(f"「{q.text}」" for q in reply.quotes)
    return ClaimCheck(reply.answer, verdict, f"{reason}: {quoted}" if quoted else reason, method="quote")
