"""Two-hop questions the system plans itself: a comparison of two named entities, or a composition
through a bridge entity, recognised by patterns, without an LLM call. ``query/answer/second_hop.py`` answers a plan one
hop at a time, each hop its own search and its own quote.

A small model asked to propose sub-questions loses to plain retrieval; asked to compare two dates it has not both
read, or to read the birth place of a director it must first find, it answers from the wrong paragraph. These
questions name their structure in their words, so the system can split them:

- comparison: "Which film came out first, X or Y?", "Who was born later, A or B?", "Which film has the director
  who died earlier, X or Y?", "Are X and Y from the same country?" — each side's value (a date, a country) is asked
  on its own, then compared by the system;
- composition: "Where was the director of film X born?", "Who is the paternal grandfather of X?", "Where did X's
  wife die?" — the inner relation is asked first; its answer, a name standing in its quote, becomes the subject of
  the outer question.

English only (the patterns fire on no Chinese question). Relations are written in lower case in these questions and
titles in title case ("Father Of The Bride"), so relation words are matched case-sensitively.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pikelocal.text.question_kind import AGE_WORDS, ORDER_WORDS, order_asked

Attribute = Literal["birth", "death", "release", "nationality", "country"]
Pick = Literal["earlier", "later", "same"]
Want = Literal["name", "date", "place", "nationality", "text"]

# A relation word → the relations it stands for, from the named entity outwards.
_COMPOUND: dict[str, tuple[str, ...]] = {
    "paternal grandfather": ("father", "father"),
    "maternal grandfather": ("mother", "father"),
    "paternal grandmother": ("father", "mother"),
    "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"),
    "mother-in-law": ("spouse", "mother"),
}
_SIMPLE = (
    "director", "composer", "producer", "screenwriter", "writer", "performer", "presenter", "creator", "founder",
    "author", "father", "mother", "wife", "husband", "spouse",
)  # fmt: skip
_REL = "|".join(map(re.escape, sorted([*_COMPOUND, *_SIMPLE], key=len, reverse=True)))
_NOUN = r"film|movie|song|album|show|series|band|book|novel|magazine|company"
# "the director of film X", "director of the film X", "the spouse of the director of film X"
_OF = re.compile(rf"^(?:the )?(?P<rel>{_REL}) of (?:the )?(?:(?P<noun>{_NOUN}) )?(?P<rest>.+)$")
# "X's wife", "Phila (Daughter Of Seleucus)'s paternal grandfather"
_POSSESSIVE = re.compile(rf"^(?P<rest>.+?)['’]s (?P<rel>{_REL})$")


@dataclass(frozen=True)
class Entity:
    """A named entity as the question wrote it, reached through ``relations`` (from the name outwards:
    ("director", "spouse") is the spouse of the director of ``name``); ``noun`` is the kind the question gave it
    ("film" in "the director of film X")."""

    name: str
    relations: tuple[str, ...] = ()
    noun: str = ""

    @property
    def named(self) -> str:
        """The name as a sub-question writes it: "the film X" or "X"."""
        return f"the {self.noun} {self.name}" if self.noun else self.name


@dataclass(frozen=True)
class Comparison:
    """Two sides' ``attribute`` compared: the side whose value is earlier or later, or whether both are the same."""

    sides: tuple[Entity, Entity]
    attribute: Attribute
    pick: Pick


@dataclass(frozen=True)
class Composition:
    """The ``entity`` reached through its relations (the bridge), then ``outer`` asked of it ("{}" where its name
    goes); ``outer`` None: the bridge is the answer ("Who is the paternal grandfather of X?")."""

    entity: Entity
    outer: str | None = None
    want: Want = "name"


Plan = Comparison | Composition


def entity(text: str, noun: str = "") -> Entity:
    """The entity a phrase names: "the director of film X" → X through ("director",); a bare name → itself."""
    text = text.strip().strip(",").strip()
    if m := _OF.match(text):
        inner_noun = m.group("noun") or ""
        # a name after "film" is a title ("Father Of The Bride"), never read for relations
        inner = Entity(m.group("rest").strip(), noun=inner_noun) if inner_noun else entity(m.group("rest"))
        return Entity(inner.name, (*inner.relations, *_relations(m.group("rel"))), inner.noun)
    if m := _POSSESSIVE.match(text):
        inner = entity(m.group("rest"))
        return Entity(inner.name, (*inner.relations, *_relations(m.group("rel"))), inner.noun)
    return Entity(text, (), noun)


def _relations(word: str) -> tuple[str, ...]:
    return _COMPOUND.get(word, (word,))


# ---- comparisons -------------------------------------------------------------------------------------------------

_WHEN = "(?P<w>" + "|".join(sorted(ORDER_WORDS, key=len, reverse=True)) + ")"  # first, later, more recently
_AGE = "(?P<age>" + "|".join(sorted(AGE_WORDS, key=len, reverse=True)) + ")(?: than the other)?"  # older
_SIDES = r"\s*,?\s*(?P<sides>.+?)\s*$"
# "Which film came out first, X or Y?", "Which film was released more recently, X or Y?"
_RELEASED = re.compile(
    rf"^Which (?P<noun>{_NOUN}|one) (?:came out|was released|was published|premiered|was made) {_WHEN}{_SIDES}"
)
# "Which film has the director (who) died earlier, X or Y?", "Which film whose director was born first, X or Y?",
# "Which film has the director who is older than the other, X or Y?", "Which film whose director is younger, …?"
_BY_RELATION = re.compile(
    rf"^Which (?P<noun>{_NOUN}) (?:has the|whose|has a) (?P<rel>{_REL})(?: who)?"
    rf" (?:(?P<verb>died|was born|born|passed away) {_WHEN}|(?:is|was) {_AGE}){_SIDES}"
)
# "Who was born first, A or B?", "Who died later, A or B?", "Who is younger, A or B?"
_PERSONS = re.compile(rf"^Who (?:(?P<verb>was born|died|passed away) {_WHEN}|(?:is|was) {_AGE}){_SIDES}")
# "Are X and Y from the same country?", "Are the movies X and Y, from the same country?", "Do director of film X
# and director of film Y have the same nationality?", "Are both X and Y of the same nationality?"
_SAME = re.compile(
    r"^(?:Are|Were|Do|Did|Is)(?: both)?(?: the (?P<noun>movies|films|songs|albums|bands|people))? (?P<a>.+?) and"
    r" (?P<b>.+?),?(?: both)? (?:(?:are |were )?(?:from|of) the same|(?:have|had|share) the same)"
    r" (?P<attr>country(?: of origin)?|nationality)\s*\??\s*$"
)


def _two(sides: str) -> tuple[str, str] | None:
    """ "X or Y?" → (X, Y), at the first " or "; None when either side is empty."""
    text = sides.strip()
    text = text[:-1].rstrip() if text.endswith("?") else text
    first, sep, second = text.partition(" or ")
    if not sep or not first.strip() or not second.strip():
        return None
    return first.strip(" ,"), second.strip(" ,")


def _comparison(question: str) -> Comparison | None:
    if m := _RELEASED.match(question):
        pick, sides = order_asked(m.group("w")), _two(m.group("sides"))
        noun = "" if m.group("noun") == "one" else m.group("noun")
        if pick and sides:
            return Comparison((Entity(sides[0], noun=noun), Entity(sides[1], noun=noun)), "release", pick)
    if m := _BY_RELATION.match(question):
        sides = _two(m.group("sides"))
        rel, verb = _relations(m.group("rel")), m.group("verb") or ""
        attribute: Attribute = "death" if verb in ("died", "passed away") else "birth"
        pick = order_asked(m.group("w")) if verb else order_asked(m.group("age"))
        if pick and sides:
            a, b = (Entity(s, rel, m.group("noun")) for s in sides)
            return Comparison((a, b), attribute, pick)
    if m := _PERSONS.match(question):
        sides = _two(m.group("sides"))
        verb = m.group("verb") or ""
        attribute = "death" if verb in ("died", "passed away") else "birth"
        pick = order_asked(m.group("w")) if verb else order_asked(m.group("age"))
        if pick and sides:
            return Comparison((entity(sides[0]), entity(sides[1])), attribute, pick)
    if m := _SAME.match(question):
        noun = {"movies": "film", "films": "film", "songs": "song", "albums": "album", "bands": "band"}
        a, b = (entity(m.group(s), noun.get(m.group("noun") or "", "")) for s in ("a", "b"))
        person = bool(a.relations) or m.group("noun") == "people"
        attr: Attribute = "nationality" if m.group("attr") == "nationality" or person else "country"
        return Comparison((a, b), attr, "same")
    return None


# ---- compositions ------------------------------------------------------------------------------------------------

_ASKED = r"(?P<asked>place of birth|place of death|date of birth|date of death|cause of death|nationality|occupation)"
# (pattern with the entity phrase as (?P<e>…), the outer question with {} for the bridge, what it asks for)
_OUTER: tuple[tuple[re.Pattern[str], str | None, Want], ...] = (
    (re.compile(r"^Where (?:was|is) (?P<e>.+?) born\s*\?\s*$"), "Where was {} born?", "place"),
    (re.compile(r"^Where did (?P<e>.+?) (?:die|pass away)\s*\?\s*$"), "Where did {} die?", "place"),
    (re.compile(r"^When (?:was|is) (?P<e>.+?) born\s*\?\s*$"), "When was {} born?", "date"),
    (re.compile(r"^When did (?P<e>.+?) (?:die|pass away)\s*\?\s*$"), "When did {} die?", "date"),
    (
        re.compile(rf"^(?:What|Where) (?:is|was) the {_ASKED} of (?P<e>.+?)\s*\?\s*$"),
        "What is the {asked} of {}?",
        "text",
    ),  # fmt: skip
    (re.compile(r"^What nationality (?:is|was) (?P<e>.+?)\s*\?\s*$"), "What nationality is {}?", "nationality"),
    (re.compile(r"^Where does (?P<e>.+?) work(?: at)?\s*\?\s*$"), "Where does {} work?", "text"),
    (
        re.compile(r"^Where did (?P<e>.+?) (?:study|graduate from|go to school)\s*\?\s*$"),
        "Where did {} study?",
        "text",
    ),  # fmt: skip
    (re.compile(r"^Why did (?P<e>.+?) die\s*\?\s*$"), "Why did {} die?", "text"),
    (re.compile(r"^Who (?:is|was) (?P<e>.+?)\s*\?\s*$"), None, "name"),
)
_WANT_ASKED: dict[str, Want] = {
    "place of birth": "place",
    "place of death": "place",
    "date of birth": "date",
    "date of death": "date",
    "nationality": "nationality",
}


def _composition(question: str) -> Composition | None:
    for pattern, outer, want in _OUTER:
        m = pattern.match(question)
        if m is None:
            continue
        found = entity(m.group("e"))
        if outer is None:  # the bridge is the answer: two relations at least ("Who is the father of X?" is one hop)
            return Composition(found) if len(found.relations) >= 2 else None
        if not found.relations:
            return None
        asked = m.groupdict().get("asked") or ""
        return Composition(found, outer.replace("{asked}", asked), _WANT_ASKED.get(asked, want))
    return None


def hop_plan(question: str) -> Plan | None:
    """The question's plan, or None when it is not a comparison or a composition these patterns know."""
    text = " ".join(question.split())
    return _comparison(text) or _composition(text)
