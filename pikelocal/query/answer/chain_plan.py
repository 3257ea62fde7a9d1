"""The product's chains planned from a question's words, without an LLM call: a chain of hops, each saying what is
searched, what the system reads from the hop's quote and how the next hop uses it, then a step the system computes.
The patterns are data (``text/chain_phrasings.py``); a question none of them match gets no chain.

- ``cited_article``: hop 1 asks the question and reads the article its clause cites ("按本合同第15条规定的期限",
  "as provided in clause 12.3"); hop 2 reads the asked figure in that article (found by its heading); the answer
  is the figure and the article.
- ``deadline``: hop 1 asks the question and reads the period and the event it counts from ("合同签订之日起30日
  内"); hop 2 asks that event's date; the system adds the period. A clause that states the day itself, or counts
  back from its event ("截止之日10日前"), ends the chain: the ordinary path answers.
- ``two_documents``: each hop asks the item's value within one document (found by its role: 招标文件, the bid);
  the system says whether the two values are the same (``text/values.same_value``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pikelocal.text import chain_phrasings as table
from pikelocal.text import concepts
from pikelocal.text.chain_phrasings import ChainKind, Role
from pikelocal.text.concepts import names
from pikelocal.text.lang import Lang, detect_lang
from pikelocal.text.question_kind import YESNO_WORDS, ValueAsked, asked_value

Reads = Literal["article", "figure", "period_or_date", "date"]
Within = Literal["all", "article", "document"]
Compute = Literal["figure", "date_plus_period", "same_value"]


@dataclass(frozen=True)
class Hop:
    """One hop of a chain: ``ask`` is its sub-question ({event}: the event the hop before read; None: the chain's
    own question), searched ``within`` the whole KB, the article the hop before read, or the document of ``role``;
    the system reads ``reads`` (a cited article, a figure of the chain's kind, a period or a date) from its quote."""

    ask: str | None
    reads: Reads
    within: Within = "all"
    role: Role | None = None


@dataclass(frozen=True)
class Chain:
    """A question answered by ``hops`` in turn, then ``compute`` done by the system; ``item`` is what it asks about
    (投标保证金; "" where the question is read whole), ``topic`` the question without its ask for an article (what
    the citing clause is about) and ``figure`` the kind of value it wants."""

    kind: ChainKind
    hops: tuple[Hop, ...]
    compute: Compute
    lang: Lang
    figure: ValueAsked
    item: str = ""
    topic: str = ""


def _document_words() -> list[str]:
    """Every word a question may name a document's role by: its concept group's terms and the bare words."""
    return [w for concept, bare in table.DOCUMENT_ROLES.values() for w in (*names(concept), *bare)]


def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    doc = "|".join(sorted(map(re.escape, _document_words()), key=len, reverse=True))
    yesno = "|".join(sorted(map(re.escape, YESNO_WORDS), key=len, reverse=True))
    filled = (p.replace("{DOC}", f"(?:{doc})").replace("{YESNO}", yesno) for p in patterns)
    return tuple(re.compile(p, re.IGNORECASE) for p in filled)


_ASKS_ARTICLE = _compiled(table.ASKS_ARTICLE)
_ASKS_DEADLINE = _compiled(table.ASKS_DEADLINE)
_TWO_DOCUMENTS = _compiled(table.TWO_DOCUMENTS)
_ASKS_PERIOD_TOO = re.compile(table.ASKS_PERIOD_TOO, re.IGNORECASE)
_ASKS_FIGURE = re.compile(table.ASKS_FIGURE, re.IGNORECASE)
_FIGURE_WORDS = tuple((kind, re.compile(p, re.IGNORECASE)) for kind, p in table.FIGURE_WORDS)


def roles_named(text: str) -> set[Role]:
    """The roles ``text`` (a question's words, a document's title or file name) names: by the concept groups'
    terms, the longest where two overlap (需求說明書 is the tender's, 服務建議書 the bid's); else by the bare words."""
    folded = concepts.fold(text.replace("_", " "))
    found = {m.concept for m in concepts.active().find(folded)}
    by_concept = {role for role, (concept, _bare) in table.DOCUMENT_ROLES.items() if concept in found}
    if by_concept:
        return by_concept
    words = set(re.findall(r"[a-z]+", folded))
    return {role for role, (_concept, bare) in table.DOCUMENT_ROLES.items() if words & set(bare)}


def role_of(words: str) -> Role | None:
    """The one role a document word names ("招標文件" → tender, "the bid" → bid); None for any other word."""
    roles = roles_named(words)
    return next(iter(roles)) if len(roles) == 1 else None


def figure_asked(text: str) -> ValueAsked | None:
    """The kind of figure ``text`` asks for: by the question's words (``asked_value``), else by the table's words
    for figures (期限 → a period, 保证金 → an amount)."""
    kind = asked_value(text)
    if kind is not None and kind != "count":
        return kind
    return next((k for k, pattern in _FIGURE_WORDS if pattern.search(text)), None)  # type: ignore[misc]


def _cited_article(question: str, lang: Lang) -> Chain | None:
    asks = next((m for p in _ASKS_ARTICLE if (m := p.search(question)) is not None), None)
    if asks is None:
        return None
    # the figure is asked after the article ("按第几条的规定退还？退还期限是多少？"), else before it
    asked = [part for part in (question[asks.end() :], question[: asks.start()]) if _ASKS_FIGURE.search(part)]
    figure = next((kind for part in asked if (kind := figure_asked(part)) is not None), None)
    if figure is None:
        return None
    hops = (Hop(None, "article"), Hop(None, "figure", within="article"))
    topic = f"{question[: asks.start()]} {question[asks.end() :]}".strip()
    return Chain("cited_article", hops, "figure", lang, figure, topic=topic)


def _two_documents(question: str, lang: Lang) -> Chain | None:
    for pattern in _TWO_DOCUMENTS:
        m = pattern.search(question)
        if m is None:
            continue
        a, b = role_of(m.group("a")), role_of(m.group("b"))
        item = m.group("item").strip()
        if a is None or b is None or a == b or not item:
            return None
        ask = table.HOP_QUESTIONS[lang]["item_value"]
        hops = (Hop(ask, "figure", "document", a), Hop(ask, "figure", "document", b))
        return Chain("two_documents", hops, "same_value", lang, figure_asked(item) or "amount", item)
    return None


def _deadline(question: str, lang: Lang) -> Chain | None:
    if not any(p.search(question) for p in _ASKS_DEADLINE) or _ASKS_PERIOD_TOO.search(question):
        return None
    hops = (Hop(None, "period_or_date"), Hop(table.HOP_QUESTIONS[lang]["event_date"], "date"))
    return Chain("deadline", hops, "date_plus_period", lang, "date")


def chain_plan(question: str) -> Chain | None:
    """The chain ``question`` names (its spaces collapsed), or None: a question no pattern of the table matches."""
    text = " ".join(question.split())
    lang = detect_lang(text)
    return _cited_article(text, lang) or _two_documents(text, lang) or _deadline(text, lang)
