"""The selection reader: a question asking for a figure is answered by choosing among the KB's statements.

The system read every figure of the documents at ingest (``store.statements``: each value with what it is a value
of, its sentence, page and lines). For a question that asks for an amount, a date, a count, a duration or a
percentage (the question's words, ``text/question_kind.asked_value``, or a review item's kind), the statements of
that kind nearest the question (BM25 with the concept groups' other names, and the encoder, fused; those whose subject
holds the question's own words first, the rest dropped) are shown as at most eight lettered one-line options and
"none of these" (``prompts/select.py``); the model answers with one letter. The answer is the chosen statement's value
as the document prints it, cited at its page and lines.

The model's choice is checked as a quote is: a statement whose words name none of the question's concepts (the
budget offered for a bid bond) is no answer (kept in the returned answer's claim as ``domain.answers.TO_CHECK``);
then, as after "none of these", the caller reads the question again by quote-then-answer (``query/answer/modes.py``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence

from pikelocal.domain.answers import TO_CHECK, Answer, ClaimCheck, Evidence, Source
from pikelocal.domain.review import ValueKind
from pikelocal.domain.statements import Statement
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM
from pikelocal.prompts.answer import not_stated
from pikelocal.prompts.select import MAX_OPTIONS, parse_choice, select_messages, select_params
from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion
from pikelocal.query.verify.about import topical_query
from pikelocal.query.verify.support import Question, shares_a_concept
from pikelocal.store.store import Store
from pikelocal.text import concepts
from pikelocal.text.script import Script, convert

CANDIDATES = 40  # statements each ranking reads before the kind filter
HEAD_CHARS = 24  # of a statement's subject on its option line
AROUND_CHARS = 16  # of its sentence on either side of the value
# Of the best option's subject score, what an option needs to be shown (0.5 kept 簡報 beside 答詢: 廠商 counts twice).
NARROW_SHARE = 0.75
_SPACES = re.compile(r"\s+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[a-z]+")
_CLAUSE_END = re.compile(r"[，,；;。！？!?]")


def statement_options(
    store: Store,
    encoder: Encoder,
    question: str,
    kind: ValueKind,
    topic: Sequence[str] = (),
    doc_ids: Sequence[int] | None = None,
) -> list[Statement]:
    """The statements of ``kind`` nearest the question, at most ``MAX_OPTIONS``, best first: BM25 over their
    subjects and sentences (the question, a review item's terms and the other names of their concepts) and the
    encoder's nearest, fused by rank. A figure stated twice in the same words is shown once; a score's line (80分以上)
    is no weight."""
    words = [question, *topic, *concepts.active().expansion(question)]
    fts = store.statements.search_fts(" ".join(words), CANDIDATES, doc_ids=doc_ids)
    vector = encoder.encode([topical_query(question, topic)], role="query")[0]
    dense = store.statements.knn(vector, CANDIDATES, doc_ids=doc_ids)
    by_id = {h.statement.id: h.statement for h in [*fts, *dense] if h.statement.id is not None}
    fused = reciprocal_rank_fusion(
        {"bm25": [h.statement.id for h in fts if h.statement.id is not None],
         "dense": [h.statement.id for h in dense if h.statement.id is not None]}
    )  # fmt: skip
    out: list[Statement] = []
    seen: set[tuple[str, str]] = set()
    for sid, _score in fused:
        s = by_id[sid]
        key = (_squash(s.subject or s.heading), s.value.normal)
        if s.value.kind != kind or s.threshold or key in seen:
            continue
        seen.add(key)
        out.append(s)
        if len(out) == MAX_OPTIONS:
            break
    return by_subject(question, out)


def by_subject(question: str, options: Sequence[Statement]) -> list[Statement]:
    """``options`` whose subject shares the question's distinguishing words, best first; the others dropped when
    some option's subject holds those words well (below ``NARROW_SHARE`` of the best option's score).

    A term counts by how few options hold it (1/n of the options holding it): the words all options share (时间 in
    简报时间 and 答询时间) tell them apart from nothing; the word only one holds (答询) tells which the question asks
    about. Words are counted twice over, as written (bigrams) and by concept (text/concepts.py), so 答詢 counts
    whichever vocabulary the question uses. Shown 答詢時間…10分鐘 and 簡報時間…15分鐘 side by side, the 1.5B model
    picks the presentation's line whatever the question asks (BENCHMARKS "Figures the system reads, the model only
    picks"), so the system reads the subjects and the model is left to say which of the best it is, or none."""
    asked = _terms(question)
    held = [_terms(s.subject or s.heading) for s in options]
    counts: dict[str, int] = {}
    for terms in held:
        for t in terms:
            counts[t] = counts.get(t, 0) + 1
    scores = [sum(1 / counts[t] for t in asked & terms) for terms in held]
    order = sorted(range(len(options)), key=lambda i: -scores[i])
    best = scores[order[0]] if order else 0.0
    return [options[i] for i in order if scores[i] >= NARROW_SHARE * best]


def _terms(text: str) -> frozenset[str]:
    """A text's CJK bigrams and English words as written, and its concepts (as §id)."""
    folded = concepts.fold(text)
    out = {run[i : i + 2] for run in _CJK_RUN.findall(folded) for i in range(len(run) - 1)}
    out |= {w for w in _WORD.findall(folded) if len(w) > 2}
    return frozenset(out | {concepts.concept_term(c) for c in concepts.active().concepts_in(text)})


def option_line(s: Statement) -> str:
    """One statement as an option: what the value is of, the value as printed, and the rest of its clause.

    Only its own clause (cut at commas and semicolons): the words around the value across a comma name the figure
    beside it (簡報時間…15分鐘，答詢時間…10分鐘), and a small reader shown both picks by the wrong one."""
    head = _clip(_squash_spaces(s.subject or s.heading), HEAD_CHARS)
    value = _squash_spaces(s.value.text)
    sentence = _squash_spaces(s.sentence)
    at = sentence.find(value)
    if at < 0:
        around = _clip(sentence, 2 * AROUND_CHARS)
    else:
        start = max(0, at - AROUND_CHARS, *(m.end() for m in _CLAUSE_END.finditer(sentence, 0, at)))
        after = _CLAUSE_END.search(sentence, at + len(value))
        end = min(len(sentence), at + len(value) + AROUND_CHARS, after.start() if after else len(sentence))
        around = ("…" if start and not _CLAUSE_END.match(sentence, start - 1) else "") + sentence[start:end]
        around += "…" if end < len(sentence) and not _CLAUSE_END.match(sentence, end) else ""
    if head and _squash(around).startswith(_squash(head)) and _squash(around).endswith(_squash(value)):
        return f"{head}：{value}"  # the clause says no more than the subject and the value
    return f"{head}：{value}（{around}）" if head else f"{value}（{around}）"


def selected_answer(
    llm: LLM,
    question: str,
    lang: str,
    script: Script,
    options: Sequence[Statement],
    paths: Callable[[int], tuple[str, str]],
    on_delta: Callable[[str], None],
) -> Answer:
    """Ask the model to pick one of ``options`` (non-empty) and answer with it; ``paths(doc_id)`` gives a
    document's stored path and title for the citations. Only a found answer is streamed (``on_delta``): an
    unsupported one (none chosen, or a pick to check) is the caller's to show or to read again another way."""
    sources = tuple(_source(n, s, *paths(s.doc_id)) for n, s in enumerate(options, start=1))
    on_delta("")  # the model is choosing (the answer is shown once checked)
    reply = llm.complete(
        select_messages(question, script, [option_line(s) for s in options]), select_params(len(options))
    )
    started = time.perf_counter()
    choice = parse_choice(reply.text, len(options))
    if not choice:
        why = "the model chose none of the statements" if choice == 0 else f"no choice in the reply {reply.text!r}"
        shown = not_stated(script)
        claim = ClaimCheck("", "not_stated", why, method="select")
        return Answer(question, "naive", lang, shown, sources, (), 0, True, claims=(claim,), draft=str(choice),
                      script=script, check_s=time.perf_counter() - started)  # fmt: skip
    chosen, source = options[choice - 1], sources[choice - 1]
    value = chosen.value.text
    evidence = Evidence(choice, _squash_spaces(chosen.sentence), chosen.page, chosen.page, chosen.line_start,
                        chosen.line_end, source.path)  # fmt: skip
    about = shares_a_concept(Question.of(question), f"{chosen.heading}\n{chosen.subject}\n{chosen.sentence}")
    if not about:  # the statement names none of the question's concepts: for a reviewer to check, not an answer
        shown = not_stated(script)
        why = "to check: the chosen statement names none of the question's concepts"
        claim = ClaimCheck(value, "unsupported", why, evidence=evidence, method=TO_CHECK)
        return Answer(question, "naive", lang, shown, sources, (), 0, True, claims=(claim,), draft=value,
                      script=script, check_s=time.perf_counter() - started)  # fmt: skip
    shown = convert(value, script, keep=[chosen.sentence]) + f" [{choice}]"
    on_delta(shown)
    claim = ClaimCheck(value, "supported", "", evidence=evidence, method="select")
    return Answer(question, "naive", lang, shown, sources, (choice,), 0, False, claims=(claim,), draft=value,
                  script=script, check_s=time.perf_counter() - started)  # fmt: skip


def _source(number: int, s: Statement, path: str, title: str) -> Source:
    return Source(number=number, doc_id=s.doc_id, path=path, title=title, chunk_ids=(), page_start=s.page,
                  page_end=s.page, line_start=s.line_start, line_end=s.line_end,
                  section=(s.heading,) if s.heading else (), text=s.sentence)  # fmt: skip


def _squash(text: str) -> str:
    return "".join(text.split()).lower()


def _squash_spaces(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
