"""Checking a quote-first reply: the answer kept with the quotes that bear it, or the reason it is not.

1. Each quote is located in the sources (``query/verify/quotes.py``); one that stands nowhere is an invention and is
   dropped.
2. The answer is checked against the located quotes, not against the whole context: its hard facts (numbers by
   value, dates, names) must stand in a quote (or in the sentence or table row the quote was cut from), and the
   question must be about that quote's sentence (``query/verify/support.check_claim``, the claim check's rules). A
   yes/no answer needs only the second.
3. The second line: an answer that no located quote bears (the model quoted the wrong sentence, none, or one it
   made up) is checked as a claim against every sentence and table row of the sources; kept with that sentence as
   its evidence (method "claim"). A bare one- or two-digit number only before the question's measure word; a yes/no
   answer only when the sentence most about the question agrees with it by negation (method "polarity").
4. The answer must be of the kind the question asks for: a number for "how many" and "which article".
5. Before all this, a choice or a true/false (yes/no) answer may be decided by the system (``query/answer/decide.py``).
   Where it decides, its sentences are the evidence (method "options: …" or "polarity: …"), and
   ``QuotedVerdict.answer`` is the answer to show; elsewhere that is the model's.

Pure: no model, a few string comparisons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from pikelocal.domain.answers import TO_CHECK, ClaimCheck, Source
from pikelocal.prompts.answer import says_not_stated
from pikelocal.prompts.quote import QuotedReply, says_none
from pikelocal.query.answer.decide import decide
from pikelocal.query.answer.polarity import Passage
from pikelocal.query.verify.about import Meaning
from pikelocal.query.verify.claims import content_terms, facts_in, numbers_in
from pikelocal.query.verify.quotes import Located, locate
from pikelocal.query.verify.support import (
    FOCUS_SHARE,
    Locator,
    Question,
    Unit,
    check_claim,
    evidence,
    fact_in,
    focus_share,
    headings_terms,
    is_about,
    meaning_text,
    quoted_in,
    source_units,
    span_unit,
)
from pikelocal.text.negation import NEGATION as _NEGATION
from pikelocal.text.question_kind import QuestionKind
from pikelocal.text.script import to_simplified
from pikelocal.text.values import dates_as_printed

# A yes/no or true/false answer: checked on whether the question is about its quote, not on its words.
_POLAR = re.compile(
    r"^(?:是|否|不是|对|對|不对|不對|正确|正確|错误|錯誤|可以|不可以|能|不能|需要|不需要|有|没有|沒有"
    r"|yes|no|true|false|correct|incorrect)\b[。.!！]?",
    re.IGNORECASE,
)
# What a question asks for, when the answer's kind can be told from its words (zh-Hans, zh-Hant, en).
_ASKS_ARTICLE = re.compile(r"第\s*[几幾]\s*[条條]|which (?:article|section)", re.IGNORECASE)
# ("When", 何时 are not among them: "on the date of assent", "签订合同后" answer them without a number.)
_ASKS_NUMBER = re.compile(
    r"多少|[几幾](?:[个個]|[年月日天周週人份页頁次项項名家分条條]|分[钟鐘])|多[长長久大高]|哪一?天"
    r"|\bhow (?:many|much|long|old)\b|\bwhat (?:percentage|proportion|amount)\b",
    re.IGNORECASE,
)
_BARE_NUMBER = re.compile(r"\d{1,2}(?:\.\d+)?")
# The measure word a question counts with (几人, 多少份, how many days); what a bare number must stand before.
_MEASURE_ASKED = re.compile(r"(?:几|多少)\s*(?:个)?([人份页次名家条项天日年月周分位])")
# Measure words that count the same thing: 多少名成员 is answered by 5 人, 几天 by 30 日.
_SAME_MEASURE = {"人": "人名位", "名": "人名位", "位": "人名位", "天": "天日", "日": "天日"}
# The measure an English question counts in, as the Chinese document writes it.
_MEASURE_EN_WORDS = {
    "copies": "份", "copy": "份", "pages": "页", "page": "页", "days": "天", "members": "人", "people": "人",
    "persons": "人", "evaluators": "人", "points": "分", "score": "分", "minutes": "分",
}  # fmt: skip
_MEASURE_EN = re.compile(rf"\b({'|'.join(_MEASURE_EN_WORDS)})\b")
_NUMBER_TEXT = r"\d+(?:\.\d+)?|[零〇一二三四五六七八九十百两]+"
_ITEM_SPLIT = re.compile(r"[、；;\n]")  # a list's items (not at commas: "Smith, the director" is one)


@dataclass(frozen=True)
class QuotedVerdict:
    """What checking a reply found: the claim checks to keep (one per supporting quote) and why, when none; and the
    answer to show (the model's, or the system's where ``decide`` chose; empty: the model's). ``to_check``: where
    none is kept but the answer stands word for word in a quoted sentence that is not clearly about the question,
    that sentence (method "to_check"), for a reviewer to check; never shown as an answer."""

    checks: tuple[ClaimCheck, ...]
    reason: str
    answer: str = ""
    to_check: ClaimCheck | None = None


def check_reply(
    reply: QuotedReply,
    question: str,
    sources: Sequence[Source],
    locator: Locator | None = None,
    kind: QuestionKind = "factoid",
    meaning: Meaning | None = None,
) -> QuotedVerdict:
    """The reply's answer, kept with the quotes that bear it, or the reason it is not (see the module's docstring).

    A list answer ("A、B、C") is kept only when every item is: each with the quote (or sentence) it stands in.
    A choice or true/false answer the system decides (``decide``) is kept with the sentences it rests on."""
    decision = decide(reply, question, sources, kind)
    if decision.method != "model":
        checks = tuple(
            ClaimCheck(
                decision.answer, "supported", "", evidence=evidence(_passage_unit(p), locator), method=decision.method
            )
            for p in decision.evidence
        )  # the option no sentence states rests on none
        why = "the other options stand in the sources"
        none = ClaimCheck(decision.answer, "supported", why, method=decision.method)
        return QuotedVerdict(checks or (none,), "", decision.answer)
    verdict = _check_model(reply, question, sources, locator, kind, meaning)
    return replace(verdict, answer=verdict.answer or decision.answer)


def _passage_unit(passage: Passage) -> Unit:
    return span_unit(passage.source, passage.start, passage.end, table_row=False)


def _check_model(
    reply: QuotedReply,
    question: str,
    sources: Sequence[Source],
    locator: Locator | None,
    kind: QuestionKind,
    meaning: Meaning | None,
) -> QuotedVerdict:
    answer = reply.answer.strip()
    # a yes/no question's "没有" is its answer "no"; a choice's "B" is checked like a yes/no
    polar = kind in ("yesno", "choice") or _POLAR.match(answer) is not None
    if not answer or says_not_stated(answer) or (says_none(answer) and not polar):
        return QuotedVerdict((), "the model said the sources do not state it")
    if not polar and not facts_in(answer) and not content_terms(answer):
        return QuotedVerdict((), "the answer says nothing that can be checked")
    if (wrong_kind := _wrong_kind(question, answer)) is not None:
        return QuotedVerdict((), wrong_kind)
    found = [loc for q in reply.quotes if (loc := locate(q.text, sources, prefer=q.number)) is not None]
    reading = _Reading(Question.of(question, meaning), headings_terms(sources), found, sources, locator)
    # a date whose ROC year the reader converted wrongly (115 → 2015) is read as its quote prints it
    printed = dates_as_printed(answer, [reading.context(loc).text for loc in found])
    verdict = _checked(printed, reading, found, reply, question, polar)
    return replace(verdict, answer=printed) if printed != answer and verdict.checks else verdict


def _checked(
    answer: str, reading: _Reading, found: Sequence[Located], reply: QuotedReply, question: str, polar: bool
) -> QuotedVerdict:
    """The answer's checks against the located quotes, then the sources (steps 2 and 3 of the module's
    docstring)."""
    items = [i.strip() for i in _ITEM_SPLIT.split(answer) if i.strip()]
    parts = items if not polar and len(items) > 1 else [answer]
    checks: list[ClaimCheck] = []
    for part in parts:
        if polar:
            check = reading.polar(part) or reading.polar_anywhere(part, question)
        elif _bare(part):
            # "3" stands somewhere in any context: only before the question's measure word, or in a sentence or row
            # holding what the question quotes (「執行計畫與預期成果」 30, when the quote was the table's title line)
            check = (
                reading.quoted(part)
                or reading.counted_anywhere(part, question)
                or (reading.anywhere(part) if reading.asked.quoted else None)
            )
        else:
            check = reading.quoted(part) or reading.anywhere(part)
        if check is None:
            if not found:
                why = "no quote" if not reply.quotes else "the quote stands in no source (an invention)"
            else:
                why = "the answer does not stand in its quote, or the quote is not about the question"
            to_check = None if polar else reading.to_check(answer)
            return QuotedVerdict((), why if len(parts) == 1 else f"{why} (list item {part!r})", to_check=to_check)
        checks.append(check)
    return QuotedVerdict(tuple(checks), "")


def _measure_asked(question: str) -> str:
    """The measure word a question counts in: 人 for 几人 or 多少名, 份 for "how many copies" (an English question
    about a Chinese document counts in the document's measure words); "" when it names none."""
    zh = _MEASURE_ASKED.search(to_simplified(question))
    if zh is not None:
        return zh.group(1)
    en = _MEASURE_EN.search(question.lower())
    return _MEASURE_EN_WORDS[en.group(1)] if en is not None else ""


def _says_yes(answer: str) -> bool | None:
    """是/可以/有/yes → True; 否/不/没有/no → False; anything else (True/False, an option letter) → None."""
    text = answer.strip().lower()
    if re.match(r"(?:否|不|没有|沒有|无|無|no\b)", text):
        return False
    if re.match(r"(?:是|可以|能|有|需要|yes\b)", text):
        return True
    return None


def _negated(text: str) -> bool:
    """The text says no: a negation (不得, 不, 未, 禁止, not, no, never, …) stands in it."""
    return _NEGATION.search(to_simplified(text)) is not None


def _bare(answer: str) -> bool:
    """A number of one or two digits and nothing else ("3", "60"): too common to be looked for anywhere but in its
    quote (not in the sentence around it, nor by the claim check over all sentences)."""
    return _BARE_NUMBER.fullmatch(answer.strip()) is not None


def _wrong_kind(question: str, answer: str) -> str | None:
    """Why the answer cannot be the kind the question asks for, or None: a question asking how many or how long
    needs a number or a date in its answer ("项目评价结束后结清" for "多少日内"), and so does one asking which
    article."""
    facts = [f for f in facts_in(answer) if f.kind != "name"]
    if _ASKS_ARTICLE.search(question) and not facts:
        return "the question asks which article; the answer names none"
    if _ASKS_NUMBER.search(question) and not facts:
        return "the question asks for a number or a date; the answer holds none"
    return None


@dataclass(frozen=True)
class _Reading:
    """What checking one reply needs: the question, the sources' heading terms, the located quotes."""

    asked: Question
    headings: dict[int, frozenset[str]]
    found: Sequence[Located]
    sources: Sequence[Source]
    locator: Locator | None

    @cached_property
    def units(self) -> list[Unit]:
        """Every sentence and table row of the sources, split once per reply."""
        return [u for s in self.sources for u in source_units(s)]

    def polar(self, answer: str) -> ClaimCheck | None:
        """A yes/no (or option) answer: kept with the first quote that the question is about."""
        for loc in self.found:
            if self._about(context := self.context(loc)):
                return self._check(answer, context, "quote")
        return None

    def quoted(self, answer: str) -> ClaimCheck | None:
        """The answer in one of its quotes; a quote shorter than what makes it about the question ("委員7人組成")
        is judged about it by the sentence (or rows) it stands in. An answer that is not a bare short number may
        also stand in that sentence."""
        facts = facts_in(answer)
        for loc in self.found:
            unit, context = _quote_unit(loc), self.context(loc)
            finding = check_claim(answer, self.asked, [unit], self.headings)
            if finding.verdict == "supported":
                return self._check(answer, unit, "quote")
            if facts and all(fact_in(f, unit) for f in facts) and self._about(context):
                return self._check(answer, context, "quote")
            if not _bare(answer):
                finding = check_claim(answer, self.asked, [context], self.headings)
                if finding.verdict == "supported":
                    return self._check(answer, context, "quote")
        return None

    def counted_anywhere(self, answer: str, question: str) -> ClaimCheck | None:
        """A bare number ("4" for "最多幾人") in a sentence about the question where it stands right before the
        measure word the question asks with (【 4 】人; not 第三节 for 一式几份)."""
        measure = _measure_asked(question)
        if not measure:
            return None
        words = _SAME_MEASURE.get(measure, measure)
        after = re.compile(rf"({_NUMBER_TEXT})\s*[】\]）)］]?\s*([{re.escape(words)}])")
        value = _BARE_NUMBER.fullmatch(answer.strip())
        assert value is not None
        for unit in self.units:
            held = {n for m in after.finditer(to_simplified(unit.text)) for n in numbers_in(m.group(1) + m.group(2))}
            if value.group(0) in held and self._about(unit):
                return self._check(answer, unit, "claim")
        return None

    def polar_anywhere(self, answer: str, question: str) -> ClaimCheck | None:
        """A yes/no answer without a quote the question is about: kept with the sentence most about the question
        when that sentence's negation agrees with it (可以…嗎 against 不得…: "否"); a True/False answer is left."""
        says = _says_yes(answer)
        if says is None:
            return None
        units = [u for u in self.units if self._about(u)]
        if not units:
            return None
        best = max(units, key=lambda u: focus_share(self.asked, u, self.headings[u.source.number]))
        yes = _negated(best.text) == _negated(question)
        return self._check(answer, best, "polarity") if yes == says else None

    def context(self, loc: Located) -> Unit:
        """The sentences (or table rows) the quote stands in, as one unit."""
        around = [u for u in source_units(loc.source) if u.start < loc.end and u.end > loc.start and not u.pair]
        if not around:
            return _quote_unit(loc)
        start, end = min(u.start for u in around), max(u.end for u in around)
        return span_unit(loc.source, min(start, loc.start), max(end, loc.end), table_row=False)

    def _about(self, unit: Unit) -> bool:
        return is_about(self.asked, unit, self.headings[unit.source.number])

    def to_check(self, answer: str) -> ClaimCheck | None:
        """The first quoted sentence that holds the whole answer word for word (its facts, or its text) and is near
        enough to the question to be worth a reviewer's look (``about.TO_CHECK_COSINE``; without an encoder, half
        the focus share), as a check of method "to_check"."""
        facts = facts_in(answer)
        squashed = "".join(to_simplified(answer).split()).lower() or "\0"  # an empty answer stands nowhere
        for loc in self.found:
            context = self.context(loc)
            holds = (
                all(fact_in(f, context) for f in facts) if facts else bool(squashed) and squashed in context.squashed
            )
            if not holds or not quoted_in(self.asked, context):
                continue
            meaning = self.asked.meaning
            near = (
                meaning.to_check(meaning_text(context))
                if meaning is not None
                else focus_share(self.asked, context, self.headings[context.source.number]) >= FOCUS_SHARE / 2
            )
            if near:
                why = "to check: the answer stands in this sentence, which is not clearly about the question"
                return ClaimCheck(answer, "unsupported", why, evidence=evidence(context, self.locator), method=TO_CHECK)
        return None

    def anywhere(self, answer: str) -> ClaimCheck | None:
        """The second line: the answer as a claim against every sentence and row of the sources."""
        finding = check_claim(answer, self.asked, self.units, self.headings)
        if finding.verdict == "supported" and finding.unit is not None:
            return self._check(answer, finding.unit, "claim")
        return None

    def _check(self, text: str, unit: Unit, method: str) -> ClaimCheck:
        return ClaimCheck(text, "supported", "", evidence=evidence(unit, self.locator), method=method)


def _quote_unit(loc: Located) -> Unit:
    return span_unit(loc.source, loc.start, loc.end, table_row=False)
