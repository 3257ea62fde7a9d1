"""A system-driven second hop: a comparison or a composition that ``query/answer/hop_plan.py`` recognised is
answered one hop at a time, each hop its own search, its own quote-then-answer call and its own check.

- Composition ("Where was the director of film X born?"): "Who directed the film X?" over that question's own
  search; its answer, a name standing in a sentence about X, is the bridge; then "Where was <bridge> born?" over a
  second search, quoted again. The shown answer is cited by both quotes.
- Comparison ("Which film came out first, X or Y?"; "Which film has the director who died later, X or Y?"): each
  side's value (a release, birth or death date; a country or nationality) is asked on its own, through a bridge
  hop where the side is "the director of X"; the system parses the values and compares them (``hop_values``),
  and answers with the side's name as the question wrote it, cited by every quote it rests on. A value missing on
  either side, or two values that do not decide (the same year), make the answer "not stated".

A hop reads only the sources of its search that name what it asks about (none: no call, "not stated"). Every hop
is checked: its quote must stand in the hop's sources (``query/verify/quotes.locate``; an invented quote is dropped),
the quote's sentence (or its source's title) must name the entity the hop asks about, and the value must stand in that
sentence (a date by its year, a place or name by its words, a country by its name or its people's), a sentence
that says what was asked (born, died, married, son of …; a life span says born and died). Where the model's answer
is not there, the system reads the value from that sentence itself when it can: a life span's dates and places,
"directed by X", "the son of X" (method "hop-read"); then, as a second line, the model's value is looked for in the
other sentences naming the entity ("hop-sentence"). A hop without a value ends the plan. No other LLM call than
the hops'.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pikelocal.domain.answers import Answer, ClaimCheck, Source
from pikelocal.domain.kinds import FusionMethod, Verdict
from pikelocal.embed.base import Encoder
from pikelocal.llm.base import LLM, GenParams
from pikelocal.prompts.answer import not_stated, says_not_stated
from pikelocal.prompts.quote import QuotedReply, parse_quoted, quote_grammar, quote_messages, says_none
from pikelocal.query.answer.hop_plan import Attribute, Comparison, Composition, Entity, Want
from pikelocal.query.answer.hop_values import Date, compare_dates, countries_in, life_span, pick_date, span_places
from pikelocal.query.context.compress import compress_sources
from pikelocal.query.context.expand import Budget, assemble
from pikelocal.query.retrieve.search import search
from pikelocal.query.verify.claims import split_claims
from pikelocal.query.verify.quotes import Located, fold, locate
from pikelocal.query.verify.support import Locator, Unit, evidence, span_unit
from pikelocal.store.store import Store
from pikelocal.text import hop_phrasings as phrasings
from pikelocal.text.dates import MONTH_NAMES
from pikelocal.text.script import Script

HOP_TAG = "answer-hop"
_ASK: Mapping[str, str] = phrasings.ATTRIBUTE_QUESTIONS  # the sub-question each compared attribute is asked with
_WANT: Mapping[Attribute, Want] = {
    "birth": "date", "death": "date", "release": "date", "nationality": "nationality", "country": "nationality",
}  # fmt: skip
_GENERIC = phrasings.NAME_FILLER
_TITLE = re.compile(r"^(?:(?:" + "|".join(phrasings.NAME_TITLES) + r")\s+)+")
_RELATION_ASKED = phrasings.RELATION_QUESTIONS
_BEFORE_NAME = {
    **{rel: rf"\b{verb}(?:\s+and\s+\w+)?\s+by\s+" for rel, verb in phrasings.MADE_BY.items()},
    **phrasings.FAMILY_BEFORE_NAME,
}
_RELATION_CUE = phrasings.RELATION_CUES
_CUES = tuple((re.compile(asked), said) for asked, said in phrasings.QUESTION_CUES)
_PARTICLE = "|".join(phrasings.NAME_PARTICLES)
_WORD = r"(?:[A-Z]\.|[A-Z][\w'’-]*)"  # a capitalised word or an initial ("B. S. Ranga", "Michiel ten Horn")
_NAME = rf"{_WORD}(?:\s+(?:(?:{_PARTICLE})\s+)*{_WORD})*"


@dataclass(frozen=True)
class HopOptions:
    """How each hop reads: the chunks its search gathers, the tokens of sources it sends (compressed)."""

    k: int = 4
    context_tokens: int = 800
    tokens: int = 400
    max_tokens: int = 160
    weights: Mapping[str, float] | None = None
    fusion: FusionMethod = "rrf"
    named_only: bool = True  # a hop reads only the sources that name what it asks about
    # the second line: a value no quote holds is kept with a sentence of the sources that names what the hop asks
    # about and holds it
    second_line: bool = True


@dataclass(frozen=True)
class Found:
    """What one hop found: the value as it stands in its quote's sentence, and the check that keeps it."""

    value: str
    check: ClaimCheck
    date: Date | None = None
    countries: frozenset[str] = frozenset()


@dataclass
class _Reader:
    """One question's hops: their searches, the sources read (numbered across hops), the checks."""

    store: Store
    encoder: Encoder
    llm: LLM
    options: HopOptions
    locator: Locator | None
    on_delta: Callable[[str], None]
    sources: list[Source] = field(default_factory=list)
    checks: list[ClaimCheck] = field(default_factory=list)
    drafts: list[str] = field(default_factory=list)
    _numbers: dict[tuple[tuple[int, ...], str], int] = field(default_factory=dict)

    def read(self, question: str, about: str, want: Want, attribute: str = "", relation: str = "") -> Found | None:
        """Ask ``question`` over its own search, quote first; the value kept only where a located quote about
        ``about`` holds it."""
        local = self._sources(question, about)
        if not local:  # no quote could name it: no call
            self.checks.append(ClaimCheck("", "not_stated", f"{question}: no source names {about}", method="hop"))
            return None
        blocks = [(i, s.heading(), s.text) for i, s in enumerate(local, start=1)]
        messages = quote_messages(question, "en", "en", blocks)
        params = GenParams(tag=HOP_TAG, max_tokens=self.options.max_tokens, grammar=quote_grammar("en"))
        parts: list[str] = []
        for delta in self.llm.stream(messages, params):
            if not self.drafts and not parts:
                self.on_delta("")  # the model is writing (the answer is shown once every hop is checked)
            parts.append(delta)
        reply = parse_quoted("".join(parts))
        self.drafts.append(reply.answer)
        asked = _Asked(about, want, attribute, relation, _cue(question, relation))
        found, reason = _check(reply, local, asked, self.locator, self.options.second_line)
        if found is None:
            verdict: Verdict = "not_stated" if _silent(reply.answer) else "unsupported"
            quoted = " / ".join(f"「{q.text}」" for q in reply.quotes)
            why = f"{question}: {reason}" + (f": {quoted}" if quoted else "")
            self.checks.append(ClaimCheck(reply.answer, verdict, why, method="hop"))
            return None
        self.checks.append(found.check)
        return found

    def bridge(self, entity: Entity) -> str | None:
        """The name ``entity`` reaches through its relations, one hop each ("the director of the film X" → the
        name a quote about X gives); the name itself when it has none."""
        name, named = entity.name, entity.named
        for relation in entity.relations:
            asked = _RELATION_ASKED.get(relation, f"Who is the {relation} of {{}}?").replace("{}", named)
            found = self.read(asked, about=name, want="name", relation=relation)
            if found is None or _words(found.value) == _words(name):
                return None  # no answer, or the entity itself
            name = named = found.value
        return name

    def _sources(self, question: str, about: str) -> list[Source]:
        """The hop's own sources: those of its search that name ``about`` (a source about something else only
        distracts a small reader), numbered after those earlier hops read (a source read again keeps its
        number)."""
        o = self.options
        hits = search(self.store, self.encoder, question, k=o.k, weights=o.weights, fusion=o.fusion)
        ranking = [(h.chunk.id, h.score) for h in hits]
        chosen = assemble(self.store, [cid for cid, _ in ranking], Budget(o.context_tokens, 0), ranking=ranking)
        if o.named_only:
            chosen = [s for s in chosen if _names(about, span_unit(s, 0, len(s.text), table_row=False))]
        chosen = compress_sources(chosen, self.encoder, [question], o.tokens)
        out: list[Source] = []
        for s in chosen:
            key = (s.chunk_ids, s.text)
            if key not in self._numbers:
                self._numbers[key] = len(self.sources) + 1
                self.sources.append(replace(s, number=self._numbers[key]))
            out.append(self.sources[self._numbers[key] - 1])
        return out


def hop_answer(
    store: Store,
    encoder: Encoder,
    llm: LLM,
    question: str,
    plan: Comparison | Composition,
    on_delta: Callable[[str], None],
    *,
    options: HopOptions,
    script: Script = "en",
    locator: Locator | None = None,
) -> Answer:
    """Answer ``question`` by its ``plan``, hop by hop; the shown answer goes out through ``on_delta`` once every
    hop is checked."""
    reader = _Reader(store, encoder, llm, options, locator, on_delta)
    start = time.perf_counter()
    shown = _compare(reader, plan) if isinstance(plan, Comparison) else _compose(reader, plan)
    kept = [c for c in reader.checks if c.verdict == "supported"]
    cited = tuple(dict.fromkeys(c.evidence.source for c in kept if c.evidence is not None))
    text = f"{shown}" + "".join(f" [{n}]" for n in cited) if shown is not None else not_stated(script)
    on_delta(text)
    return Answer(
        question=question,
        mode="naive",
        lang="en",
        text=text,
        sources=tuple(reader.sources),
        cited=cited if shown is not None else (),
        removed_citations=0,
        unsupported=shown is None,
        claims=tuple(reader.checks),
        draft=reader.drafts[-1] if reader.drafts else "",
        script=script,
        check_s=time.perf_counter() - start,
    )


def _compose(reader: _Reader, plan: Composition) -> str | None:
    bridge = reader.bridge(plan.entity)
    if bridge is None or plan.outer is None:
        return bridge
    outer = plan.outer.replace("{}", bridge)
    attribute = "birth" if re.search(r"\bborn\b|\bbirth\b", outer) else "death"
    found = reader.read(outer, about=bridge, want=plan.want, attribute=attribute)
    return found.value if found is not None else None


def _compare(reader: _Reader, plan: Comparison) -> str | None:
    values: list[Found] = []
    for side in plan.sides:
        subject = reader.bridge(side)
        if subject is None:
            return None
        named = side.named if not side.relations else subject
        question = _ASK[plan.attribute].replace("{}", named)
        found = reader.read(question, about=subject, want=_WANT[plan.attribute], attribute=plan.attribute)
        if found is None:
            return None  # either value missing: not stated
        values.append(found)
    a, b = values
    if plan.pick == "same":
        if not a.countries or not b.countries:
            return None
        return "Yes" if a.countries & b.countries else "No"
    if a.date is None or b.date is None:
        return None
    order = compare_dates(a.date, b.date)
    if order is None:  # the same date, or too little stated to tell
        return None
    first, second = plan.sides
    return (first if order == plan.pick else second).name


# ---- checking one hop --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Asked:
    """What a hop asks: of whom (``about``), the kind of value, and which date (birth, death, release)."""

    about: str
    want: Want
    attribute: str = ""
    relation: str = ""  # a relation hop's ("director"): the system can read "directed by X" itself
    cue: str = ""  # what a sentence holding the value must also say ("born", "directed"): it is about the question


def _check(
    reply: QuotedReply, sources: Sequence[Source], asked: _Asked, locator: Locator | None, second_line: bool
) -> tuple[Found | None, str]:
    """The hop's value from the first located quote about what it asks that holds it (a birth or death the model
    did not answer: read from a life span in that quote); else, with ``second_line``, from the first sentence of
    the sources naming it and holding the value. None and the reason otherwise."""
    answer = reply.answer.strip().rstrip(".").strip()
    located = [
        loc for q in reply.quotes if (loc := locate(q.text, sources, prefer=_number(q.number, sources))) is not None
    ]
    about = [unit for loc in located if _names(asked.about, unit := _context(loc))]
    silent = _silent(answer)
    for unit in about:
        if (found := _span_end(unit, asked) if silent else _value(answer, unit, asked)) is not None:
            return _found(found, unit, locator, "hop"), ""
        if (found := _read(unit, asked)) is not None:
            return _found(found, unit, locator, "hop-read"), ""
    if second_line:
        named = [u for s in sources for u in _sentences(s) if _names(asked.about, u)]
        for unit in named if not silent else []:
            if (found := _value(answer, unit, asked)) is not None:
                return _found(found, unit, locator, "hop-sentence"), ""
        for unit in named:
            if (found := _read(unit, asked)) is not None:
                return _found(found, unit, locator, "hop-read"), ""
    if silent:
        return None, "the model said the sources do not state it"
    if not reply.quotes:
        return None, "no quote"
    if not located:
        return None, "the quote stands in no source (an invention)"
    if not about:
        return None, f"the quote does not name {asked.about}"
    return None, "the answer does not stand in its quote"


_Value = tuple[str, Date | None, frozenset[str]]


def _found(value: _Value, unit: Unit, locator: Locator | None, method: str) -> Found:
    text, date, countries = value
    check = ClaimCheck(text, "supported", "", evidence=evidence(unit, locator), method=method)
    return Found(text, check, date, countries)


def _number(number: int | None, sources: Sequence[Source]) -> int | None:
    """The source the model named by its number in the hop's prompt (1…), as numbered across hops."""
    return sources[number - 1].number if number and 0 < number <= len(sources) else None


def _cue(question: str, relation: str) -> str:
    """What a sentence must say to be about the hop's question: the relation's word, or being born, dying,
    studying; "" when nothing is needed (a release year, a country: the value says it)."""
    if relation:
        return _RELATION_CUE.get(relation, "")
    return next((cue for asked, cue in _CUES if asked.search(question)), "")


def _cued(unit: Unit, asked: _Asked) -> bool:
    return not asked.cue or re.search(asked.cue, unit.text, re.IGNORECASE) is not None


def _read(unit: Unit, asked: _Asked) -> _Value | None:
    """The value the system reads from a sentence about the entity, without the model: the person a relation names
    ("directed by Ben Cura"), a birth or death from a life span."""
    if asked.relation in _BEFORE_NAME:
        m = re.search(rf"{_BEFORE_NAME[asked.relation]}({_NAME})", unit.text)
        name = m.group(1).rstrip(".") if m else ""
        return (name, None, frozenset()) if name and _words(name) != _words(asked.about) else None
    if asked.want == "place" and (place := _span_place(unit, asked)):
        return place, None, frozenset()
    return _span_end(unit, asked)


def _span_end(unit: Unit, asked: _Asked) -> _Value | None:
    """A birth or death date the model did not give, read from a life span in its quote's sentence."""
    if asked.want != "date" or asked.attribute not in ("birth", "death"):
        return None
    span = life_span(unit.text)
    date = None if span is None else span[0] if asked.attribute == "birth" else span[1]
    return (date.text, date, frozenset()) if date is not None else None


def _silent(answer: str) -> bool:
    return not answer.strip() or says_not_stated(answer) or says_none(answer)


def _sentences(source: Source) -> list[Unit]:
    """The source's sentences (an English full stop ends one, not after an initial or a title: "Dr. Mabuse")."""
    return [span_unit(source, c.start, c.end, table_row=False) for c in split_claims(source.text, clauses=False)]


def _context(loc: Located) -> Unit:
    """The sentences the quote stands in, as one unit."""
    around = [u for u in _sentences(loc.source) if u.start < loc.end and u.end > loc.start]
    start = min([loc.start, *(u.start for u in around)])
    end = max([loc.end, *(u.end for u in around)])
    return span_unit(loc.source, start, end, table_row=False)


def _words(text: str) -> frozenset[str]:
    """A name's distinguishing words, folded (letters and digits, lower case, simplified), without a title before
    it."""
    words = re.split(r"[\s,;:()\[\]\"“”‘’'/-]+", _TITLE.sub("", text.strip()))
    return frozenset(w for w in (fold(t).text for t in words) if w) - _GENERIC


def _names(about: str, unit: Unit) -> bool:
    """The unit's sentence, or its source's title, holds every word of the entity's name (initials aside: "Paul
    L. Stein" is named by "Paul Ludwig Stein"; "Once Upon A Time In The Woods" is not by "… in the West"), or
    the whole name run together ("Vrindavan Lal Verma" in "Vrindavanlal Verma")."""
    wanted = {w for w in _words(about) if len(w) > 1}
    if not wanted:
        return False
    title = unit.source.title or ""
    return wanted <= _words(unit.text) | _words(title) or any(_stands(about, t) for t in (unit.text, title))


def _value(answer: str, unit: Unit, asked: _Asked) -> _Value | None:
    """The answer as it stands in ``unit``: a date read from the sentence, a country named there, or the longest
    head of the answer (up to a comma, or " and " for a name) that stands there whole."""
    want = asked.want
    if want == "date":
        has_span = asked.attribute in ("birth", "death") and life_span(unit.text) is not None
        if not has_span and not _cued(unit, asked):
            return None
        date = pick_date(answer, unit.text, asked.attribute)
        return (date.text, date, frozenset()) if date is not None else None
    if want == "nationality":
        countries = countries_in(answer) & countries_in(unit.text)
        if not countries:
            return None
        return (answer if _stands(answer, unit.text) else ", ".join(sorted(countries))), None, countries
    if want == "place" and (spanned := _span_place(unit, asked)):
        head = _standing_head(answer, spanned, names=False)  # the place a life span gives (its own cue)
        return (head, None, frozenset()) if head is not None else None
    if not _cued(unit, asked):
        return None
    head = _standing_head(answer, unit.text, names=want == "name")
    if head is None or (want == "name" and _words(head) == _words(asked.about)):
        return None
    if want == "place" and not re.search(r"[^\W\d_]", _DATES.sub("", head)):  # a date is no place
        return None
    return head, None, frozenset()


def _span_place(unit: Unit, asked: _Asked) -> str:
    """The birth or death place a life span in the sentence gives, when the hop asks for it; else ""."""
    if asked.attribute not in ("birth", "death"):
        return ""
    born, died = span_places(unit.text)
    return born if asked.attribute == "birth" else died


def _stands(text: str, where: str) -> bool:
    folded = fold(text).text
    return len(folded) >= 2 and folded in fold(where).text


def _standing_head(answer: str, where: str, *, names: bool) -> str | None:
    """The longest head of ``answer`` (cut at commas; a name also at " and ", "&", ";") that stands in ``where``."""
    if names:
        heads = [answer, *(p.strip() for p in re.split(r",|;|\s+and\s+|\s*&\s*", answer)[:1])]
    else:  # a place: without the date a model adds ("Aksi fort, North Fergana, on 10 June 1494")
        place = _WHEN_ADDED.sub("", answer).strip() or answer
        parts = [p.strip() for p in place.split(",") if p.strip()]
        heads = [", ".join(parts[:n]) for n in range(len(parts), 0, -1)]
    return next((h for h in heads if h and _stands(h, where)), None)


_DATES = re.compile(r"\b\d{1,4}\b|\b(?:" + "|".join(m.title() for m in MONTH_NAMES) + r")\b")
_WHEN_ADDED = re.compile(r"[\s,]+(?:on|in|at the age of|aged)\s+(?=[^,]*\d)[^,]*$")
