"""Multi-hop questions the system plans itself, without an LLM call, by reading the question with pattern tables
kept as data in ``text/``; ``query/answer/second_hop.py`` and ``query/answer/chain_hop.py`` answer a plan one hop
at a time, each hop its own search and its own quote.

A small model asked to propose sub-questions loses to plain retrieval; asked to compare two dates it has not both
read, or to read the birth place of a director it must first find, it answers from the wrong paragraph. These
questions name their structure in their words, so the system can split them. Two tables are read:

- the benchmark's phrasings (``text/hop_phrasings.py``, English): a comparison ("Which film came out first, X or
  Y?", "Who was born later, A or B?", "Are X and Y from the same country?"), each side's value asked on its own and
  compared by the system; a composition ("Where was the director of film X born?", "Who is the paternal grandfather
  of X?"), the inner relation asked first, its answer (a name standing in its quote) the subject of the outer one;
- the product's chains (``text/chain_phrasings.py``, Chinese and English, planned by ``query/answer/chain_plan.py``):
  a clause → the article it cites → that article's figure; a deadline counted from another event's date; an amount
  in one document against another's. Each is a :class:`~pikelocal.query.answer.chain_plan.Chain`: hops that say
  what is searched, what is read and how the next hop uses it, then a step the system computes.

A comparison and a composition are the benchmark's two special cases of that shape, kept as their own records
because their reading (names, life spans, countries) is the benchmark's. A question no table describes gets no plan
and takes the ordinary path unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from pikelocal.query.answer.chain_plan import Chain, chain_plan
from pikelocal.text import hop_phrasings as benchmark
from pikelocal.text.hop_phrasings import Want
from pikelocal.text.question_kind import AGE_WORDS, ORDER_WORDS, Order, order_asked

__all__ = ["Attribute", "Chain", "Comparison", "Composition", "Entity", "Pick", "Plan", "Want", "entity", "hop_plan"]

Attribute = Literal["birth", "death", "release", "nationality", "country"]
Pick = Literal["earlier", "later", "same"]


def _longest_first(words: Iterable[str]) -> str:
    return "|".join(map(re.escape, sorted(words, key=len, reverse=True)))


@dataclass(frozen=True)
class Phrasings:
    """A table of phrasings compiled: how its questions write a relation, a comparison and a composition's outer
    question (``text/hop_phrasings.py`` is one such table)."""

    compound: Mapping[str, tuple[str, ...]]
    of_relation: re.Pattern[str]
    possessive: re.Pattern[str]
    comparisons: Mapping[str, re.Pattern[str]]
    plural_nouns: Mapping[str, str]
    death_verbs: tuple[str, ...]
    outer: tuple[tuple[re.Pattern[str], str | None, Want], ...]
    want_of_attribute: Mapping[str, Want]

    @classmethod
    def compile(
        cls,
        *,
        compound: Mapping[str, tuple[str, ...]],
        simple: tuple[str, ...],
        nouns: tuple[str, ...],
        of_relation: str,
        possessive: str,
        comparisons: Mapping[str, str],
        plural_nouns: Mapping[str, str],
        death_verbs: tuple[str, ...],
        asked_attributes: str,
        outer: tuple[tuple[str, str | None, Want], ...],
        want_of_attribute: Mapping[str, Want],
    ) -> Phrasings:
        """The table's pattern strings with their shared pieces filled in and compiled."""
        pieces = {
            "REL": _longest_first([*compound, *simple]),
            "NOUN": "|".join(nouns),
            "WHEN": f"(?P<w>{_longest_first(ORDER_WORDS)})",  # first, later, more recently
            "AGE": f"(?P<age>{_longest_first(AGE_WORDS)})(?: than the other)?",  # older
            "SIDES": r"\s*,?\s*(?P<sides>.+?)\s*$",
            "ASKED": asked_attributes,
        }

        def filled(pattern: str) -> re.Pattern[str]:
            return re.compile(re.sub(r"\{([A-Z]+)\}", lambda m: pieces[m.group(1)], pattern))

        return cls(
            compound, filled(of_relation), filled(possessive), {k: filled(v) for k, v in comparisons.items()},
            plural_nouns, death_verbs, tuple((filled(p), o, w) for p, o, w in outer), want_of_attribute,
        )  # fmt: skip


BENCHMARK = Phrasings.compile(
    compound=benchmark.COMPOUND_RELATIONS,
    simple=benchmark.SIMPLE_RELATIONS,
    nouns=benchmark.WORK_NOUNS,
    of_relation=benchmark.OF_RELATION,
    possessive=benchmark.POSSESSIVE_RELATION,
    comparisons=benchmark.COMPARISONS,
    plural_nouns=benchmark.PLURAL_NOUNS,
    death_verbs=benchmark.DEATH_VERBS,
    asked_attributes=benchmark.ASKED_ATTRIBUTES,
    outer=benchmark.OUTER_QUESTIONS,
    want_of_attribute=benchmark.WANT_OF_ATTRIBUTE,
)


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


Plan = Comparison | Composition | Chain


def entity(text: str, noun: str = "", table: Phrasings = BENCHMARK) -> Entity:
    """The entity a phrase names: "the director of film X" → X through ("director",); a bare name → itself."""
    text = text.strip().strip(",").strip()
    if m := table.of_relation.match(text):
        inner_noun = m.group("noun") or ""
        # a name after "film" is a title ("Father Of The Bride"), never read for relations
        inner = Entity(m.group("rest").strip(), noun=inner_noun) if inner_noun else entity(m.group("rest"), "", table)
        return Entity(inner.name, (*inner.relations, *_relations(m.group("rel"), table)), inner.noun)
    if m := table.possessive.match(text):
        inner = entity(m.group("rest"), "", table)
        return Entity(inner.name, (*inner.relations, *_relations(m.group("rel"), table)), inner.noun)
    return Entity(text, (), noun)


def _relations(word: str, table: Phrasings) -> tuple[str, ...]:
    return tuple(table.compound.get(word, (word,)))


# ---- comparisons -------------------------------------------------------------------------------------------------


def _two(sides: str) -> tuple[str, str] | None:
    """ "X or Y?" → (X, Y), at the first " or "; None when either side is empty."""
    text = sides.strip()
    text = text[:-1].rstrip() if text.endswith("?") else text
    first, sep, second = text.partition(" or ")
    if not sep or not first.strip() or not second.strip():
        return None
    return first.strip(" ,"), second.strip(" ,")


def _dated(m: re.Match[str], table: Phrasings) -> tuple[Attribute, Order | None]:
    """A dated comparison's attribute (a death when its verb says so, else a birth) and which side it picks."""
    verb = m.group("verb") or ""
    attribute: Attribute = "death" if verb in table.death_verbs else "birth"
    return attribute, order_asked(m.group("w")) if verb else order_asked(m.group("age"))


def _comparison(question: str, table: Phrasings) -> Comparison | None:
    patterns = table.comparisons
    if (m := patterns["released"].match(question)) is not None:
        pick, sides = order_asked(m.group("w")), _two(m.group("sides"))
        noun = "" if m.group("noun") == "one" else m.group("noun")
        if pick and sides:
            return Comparison((Entity(sides[0], noun=noun), Entity(sides[1], noun=noun)), "release", pick)
    if (m := patterns["by_relation"].match(question)) is not None:
        sides = _two(m.group("sides"))
        rel = _relations(m.group("rel"), table)
        attribute, pick = _dated(m, table)
        if pick and sides:
            a, b = (Entity(s, rel, m.group("noun")) for s in sides)
            return Comparison((a, b), attribute, pick)
    if (m := patterns["persons"].match(question)) is not None:
        sides = _two(m.group("sides"))
        attribute, pick = _dated(m, table)
        if pick and sides:
            return Comparison((entity(sides[0], "", table), entity(sides[1], "", table)), attribute, pick)
    if (m := patterns["same"].match(question)) is not None:
        noun = table.plural_nouns.get(m.group("noun") or "", "")
        a, b = (entity(m.group(s), noun, table) for s in ("a", "b"))
        person = bool(a.relations) or m.group("noun") == "people"
        attr: Attribute = "nationality" if m.group("attr") == "nationality" or person else "country"
        return Comparison((a, b), attr, "same")
    return None


# ---- compositions ------------------------------------------------------------------------------------------------


def _composition(question: str, table: Phrasings) -> Composition | None:
    for pattern, outer, want in table.outer:
        m = pattern.match(question)
        if m is None:
            continue
        found = entity(m.group("e"), "", table)
        if outer is None:  # the bridge is the answer: two relations at least ("Who is the father of X?" is one hop)
            return Composition(found) if len(found.relations) >= 2 else None
        if not found.relations:
            return None
        asked = m.groupdict().get("asked") or ""
        return Composition(found, outer.replace("{asked}", asked), table.want_of_attribute.get(asked, want))
    return None


def hop_plan(question: str, tables: tuple[Phrasings, ...] = (BENCHMARK,), *, chains: bool = True) -> Plan | None:
    """The question's plan: a comparison or a composition one of ``tables`` describes, else (with ``chains``) one
    of the product's chains; None when no table describes it."""
    text = " ".join(question.split())
    for table in tables:
        if (plan := _comparison(text, table) or _composition(text, table)) is not None:
            return plan
    return chain_plan(text) if chains else None
