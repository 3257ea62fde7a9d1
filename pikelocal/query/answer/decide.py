"""The system's answer to a choice or a true/false (yes/no) question, where it can tell.

A small reader answers "True" to most statements and picks one option where several are right. So the kinds of
question that ``text/question_kind.py`` tells apart are decided here on the sources, with the model's answer as
the fallback:

- multiple choice: each option scored against the sources' sentences, the best supported chosen, the one not
  stated for a "which was NOT …" question, "All of the above" where all it stands for is stated
  (``query/answer/options_check.py``);
- true/false and yes/no, when the model quoted: its "true" becomes "false" where the sentence that states the
  statement says it with the opposite polarity (不得, 不, 除…外, not, no, unless, except) or has another name or
  number in its place; its "false" becomes "true" where one sentence says all of it with the same polarity and the
  model's quote was "not stated" (``query/answer/polarity.py``). A "false" reached on a sentence the model quoted is its
  reading and stands; so does any answer without a quote (the check's own polarity rule reads those).

Measured on AusLaw's true/false and multiple choice (docs/BENCHMARKS.md). Pure: no model, a few string comparisons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Source
from pikelocal.prompts.answer import says_not_stated
from pikelocal.prompts.quote import QuotedReply
from pikelocal.query.answer.options_check import choose, parse_choices, score_options
from pikelocal.query.answer.polarity import Passage, Passages, read_statement, statement_of
from pikelocal.text.question_kind import QuestionKind


@dataclass(frozen=True)
class Decision:
    """A choice or true/false answer as the system decides it: the answer, how ("model" where the model's stands),
    and the sentences it rests on."""

    answer: str
    method: str = "model"
    evidence: tuple[Passage, ...] = ()


# A choice answer's letters: "B", "A, C", "A and C", "(B)", "Option B", "B)"; and a true/false answer's word.
_LETTERS = re.compile(r"^\W*(?:(?:option|answer|选项|選項)\s*)?([A-H](?:\s*(?:,|，|、|and|&|和)\s*[A-H])*)\b", re.I)
_TRUE_FALSE = {"true": "false", "false": "true", "yes": "no", "no": "yes", "correct": "incorrect",
               "incorrect": "correct", "是": "否", "否": "是", "正确": "错误", "错误": "正确", "正確": "錯誤",
               "錯誤": "正確", "对": "错", "错": "对", "對": "錯", "錯": "對"}  # fmt: skip
_TF_WORD = re.compile(r"^\W*(true|false|yes|no|correct|incorrect|正确|错误|正確|錯誤|[是否对错對錯])(?![A-Za-z])", re.I)


def decide(reply: QuotedReply, question: str, sources: Sequence[Source], kind: QuestionKind) -> Decision:
    """The system's answer to a choice or a true/false (yes/no) question where it can tell, else the model's.

    Choice: ``options_check.choose`` over the options' scores and the model's letters. True/false and yes/no, when
    the model quoted: its "true" becomes "false" where the sentence that states the statement says it with the
    opposite polarity (or another name or number in its place), and its "false" becomes "true" where one sentence
    says all of it with the same and the model's quote was "not stated" (``polarity.read_statement``)."""
    answer = reply.answer.strip()
    if kind == "choice" and (choices := parse_choices(question)) is not None:
        m = _LETTERS.match(answer)
        picked = frozenset(re.findall(r"[A-H]", m.group(1).upper())) if m else frozenset()
        choice = choose(choices, score_options(choices, sources), picked)
        if choice.method == "model" or not choice.letters:
            return Decision(answer)
        return Decision(", ".join(choice.letters), f"options: {choice.method}", choice.evidence)
    # a yes/no answer with no quote at all is left to the check's own polarity rule (query/answer/quote_check.py)
    if kind == "yesno" and reply.quotes and (word := _TF_WORD.match(answer)) is not None:
        said = word.group(1)
        says_yes = said.lower() in ("true", "yes", "correct", "是", "正确", "正確", "对", "對")
        reading = read_statement(statement_of(question), Passages.of(sources))
        # "false" is overruled only where the model found nothing: its quote says the sources do not state it
        unread = all(says_not_stated(q.text) for q in reply.quotes)
        flip = reading.verdict == "contradicts" if says_yes else reading.verdict == "agrees" and unread
        if flip and reading.passage is not None:
            other = _TRUE_FALSE[said.lower()] if said.lower() in _TRUE_FALSE else _TRUE_FALSE[said]
            other = other.capitalize() if said[:1].isupper() else other
            return Decision(other, f"polarity: {reading.verdict}", (reading.passage,))
    return Decision(answer)
