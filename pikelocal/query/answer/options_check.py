"""Multiple choice, each option checked against the sources.

The question's options ("A) …  B) …", "A. …", "（A）…", "A、…") are read off the question. Each option is scored
against the sources' sentences (``query/answer/polarity.py``): the best sentence for an option holds most of its
*distinctive* terms (those not shared by every option, weighted by how rare they are among the sentences), in
their order (consecutive pairs of the option's terms consecutive in the sentence), and the question's own terms
(the relation asked about: "who *recommended* that …" picks the sentence where the name recommends). An option is
*stated* when one sentence holds all its distinctive terms, at least half of its pairs in order, and none of its
terms with the opposite polarity ("a rule of equity, not law" against "a rule of law, not equity").

The system then decides, or leaves the choice to the model:

1. A question asking which option is *not* stated ("NOT discussed", "not mentioned", "except", 不属于, 未提及):
   the one option clearly least supported.
2. An option that stands for others ("All of the above", "Both (A) and (B)", 以上都是): chosen when every option
   it stands for is stated, or the model chose them all.
3. A question asking which statements are true or correct, several options stated while another is not, and the
   model chose among them: all of them.
4. One option ahead of every other by ``MARGIN``: that one.
5. Otherwise the model's letters.

Pure: no model, a few string comparisons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Source
from pikelocal.query.answer.polarity import Passage, Passages, disagreements, statement_of, terms
from pikelocal.text.question_kind import asks_not_stated, asks_which_statements

MARGIN = 0.5  # score lead (of 3) over every other option that lets the system choose against the model
STATED_ORDER = 0.5  # share of an option's consecutive term pairs that must stand in order in one sentence
LEAST_GAP = 0.5  # how far below every other option the one "not stated" must score

# an option's letter at the start of the text or after a space, a quote, a question mark or a Chinese stem's "（ ）"
_MARK = re.compile(r"(?:^|(?<=[\s\"“”?？:：）。，；]))[（(]?([A-H])\s?[)）.．、:：]\s*")
_AGGREGATE_ALL = re.compile(
    r"^(?:all\s+of\s+the\s+above|all\s+the\s+above|all\s+of\s+these|以上(?:都|均|皆|全部)(?:是|对|對|正确|正確)?"
    r"|以上(?:选项|選項)(?:都|均|皆)(?:是|对|對|正确|正確))\b",
    re.I,
)
_AGGREGATE_SOME = re.compile(r"^(?:both\s+)?[（(]?([A-H])[)）]?\s*(?:and|&|和|与|與)\s*[（(]?([A-H])[)）]?\b", re.I)


@dataclass(frozen=True)
class Option:
    """One option: its letter, its text, and the letters it stands for when it is "All of the above" or "Both (A)
    and (B)" (empty otherwise)."""

    letter: str
    text: str
    covers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Choices:
    """A multiple-choice question read into its stem and options."""

    stem: str
    options: tuple[Option, ...]

    @property
    def negative(self) -> bool:
        """The question asks for the option that is not stated ("which … was NOT discussed")."""
        return asks_not_stated(self.stem)

    @property
    def plain(self) -> tuple[Option, ...]:
        """The options that are not aggregates."""
        return tuple(o for o in self.options if not o.covers)


def parse_choices(question: str) -> Choices | None:
    """The stem and options of ``question``: the longest run of option letters in order from A (the later of two
    equally long, so that "(A)" and "(B)" in the stem or in an option do not start it); None when fewer than two."""
    found = list(_MARK.finditer(question))
    marks: list[re.Match[str]] = []
    for i, first in enumerate(found):  # the longest run A, B, C … (the later of equals: "(A)" in the stem)
        if first.group(1) != "A":
            continue
        run = [first]
        for m in found[i + 1 :]:
            if m.group(1) == chr(ord(run[-1].group(1)) + 1):
                run.append(m)
        if len(run) >= len(marks):
            marks = run
    if len(marks) < 2:
        return None
    options: list[Option] = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(question)
        text = question[m.end() : end].strip()
        options.append(Option(m.group(1), text))
    letters = [o.letter for o in options]
    for i, o in enumerate(options):
        if _AGGREGATE_ALL.match(o.text):
            options[i] = Option(o.letter, o.text, frozenset(letters[:i]))
        elif (some := _AGGREGATE_SOME.match(o.text)) is not None and {some.group(1), some.group(2)} <= set(letters):
            options[i] = Option(o.letter, o.text, frozenset({some.group(1).upper(), some.group(2).upper()}))
    stem = question[: marks[0].start()].strip().strip('"“”').strip()
    return Choices(stem, tuple(options))


@dataclass(frozen=True)
class OptionScore:
    """How well the sources bear an option out: its score (0–3: distinctive terms, their order, the question's
    terms, in its best sentence), whether it is stated, and that sentence."""

    letter: str
    score: float
    stated: bool
    passage: Passage | None


def score_options(choices: Choices, sources: Sequence[Source]) -> list[OptionScore]:
    """Each plain option's score against the sources' sentences (see the module's docstring)."""
    passages = Passages.of(sources)
    plain = choices.plain
    option_terms = [terms(o.text) for o in plain]
    keys = [[t.key for t in ts] for ts in option_terms]
    common = set.intersection(*(set(k) for k in keys)) if keys else set()
    asked = {t.key for t in terms(statement_of(choices.stem))}
    out: list[OptionScore] = []
    for option, stated_terms, seq in zip(plain, option_terms, keys, strict=True):
        own = {k for k in seq if k not in common}
        pairs = list(zip(seq, seq[1:], strict=False))
        best: tuple[float, float, float, Passage] | None = None
        for p in passages.items:
            cover = passages.cover(own, p) if own else 0.0
            if cover == 0.0:
                continue
            order = sum(1 for pair in pairs if pair in p.pairs) / len(pairs) if pairs else cover
            relation = passages.cover(asked - set(seq), p) if asked - set(seq) else 0.0
            score = cover + order + relation
            if best is None or score > best[0]:
                best = (score, cover, order, p)
        if best is None:
            out.append(OptionScore(option.letter, 0.0, False, None))
            continue
        score, cover, order, passage = best
        stated = cover >= 0.99 and order >= STATED_ORDER and not disagreements(stated_terms, [passage])
        out.append(OptionScore(option.letter, score, stated, passage))
    return out


@dataclass(frozen=True)
class Choice:
    """The letters decided on, how ("model", "not stated", "aggregate", "all stated", "best supported"), and the
    sentences they rest on (none when the model's letters stand or the option is the one not stated)."""

    letters: tuple[str, ...]
    method: str
    evidence: tuple[Passage, ...] = ()


def choose(choices: Choices, scores: Sequence[OptionScore], model: frozenset[str]) -> Choice:
    """The option(s) to answer with (see the module's docstring); ``model``: the letters the model chose."""
    kept = Choice(tuple(sorted(model)), "model")
    if not scores:
        return kept
    by_letter = {s.letter: s for s in scores}
    ranked = sorted(scores, key=lambda s: s.score, reverse=True)
    if choices.negative:
        low, *rest = sorted(scores, key=lambda s: s.score)
        if rest and not low.stated and all(r.score - low.score >= LEAST_GAP for r in rest):
            return Choice((low.letter,), "not stated")
        return kept
    stated = {s.letter for s in scores if s.stated}
    for option in choices.options:
        if option.covers and (option.covers <= stated or (model and option.covers <= model)):
            evidence = tuple(p for c in sorted(option.covers) if (p := by_letter[c].passage) is not None)
            return Choice((option.letter,), "aggregate", evidence)
    if any(o.covers and o.letter in model for o in choices.options):
        return kept  # the model chose an aggregate whose options are not all stated
    several = 2 <= len(stated) < len(scores) and asks_which_statements(choices.stem)
    if several and model and model <= stated:
        letters = tuple(sorted(stated))
        return Choice(letters, "all stated", tuple(p for c in letters if (p := by_letter[c].passage) is not None))
    top = ranked[0]
    if len(ranked) > 1 and top.score - ranked[1].score >= MARGIN and top.passage is not None:
        return Choice((top.letter,), "best supported", (top.passage,))
    return kept
