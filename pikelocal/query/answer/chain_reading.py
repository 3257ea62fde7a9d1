"""What a chain's hop reads from a sentence, without the model: a value of a kind (the model's where it stands in
its quote, else the sentence's own), an item named by a sentence or its heading, the article of its own document a
clause cites, a period and the event it counts from ("自合同签订之日起30日内", "within 30 days after the signing of
the contract"), whether a sentence is about an event, the sentences nearest a question, and a computed day as a
reader writes it. The word patterns are ``text/chain_phrasings.py``'s; values are read by ``text/values.py`` and
citations by ``text/legal_refs.py``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pikelocal.domain.answers import Source
from pikelocal.domain.review import Value, ValueKind
from pikelocal.prompts.quote import QuotedReply
from pikelocal.query.verify.claims import split_claims
from pikelocal.query.verify.quotes import fold
from pikelocal.query.verify.support import Unit, span_unit
from pikelocal.text import chain_phrasings as table
from pikelocal.text.dates import MONTH_NAMES
from pikelocal.text.legal_refs import find_refs
from pikelocal.text.values import as_printed, normalise, same_value, values_in

_EVENT_BEFORE = tuple(re.compile(p) for p in table.EVENT_BEFORE_PERIOD)
_EVENT_AFTER = tuple(re.compile(p, re.IGNORECASE) for p in table.EVENT_AFTER_PERIOD)
_ROC = re.compile(r"民[国國]")
_BACKWARDS = re.compile(table.PERIOD_BEFORE_EVENT, re.IGNORECASE)
_DURATION: tuple[ValueKind, ...] = ("duration",)


@dataclass(frozen=True)
class Read:
    """A value a hop read, the sentence it stands in, and how it was read ("chain": the model's answer standing in
    its quote; "chain-read": read by the system from the quote or a sentence of the hop's sources)."""

    value: Value
    unit: Unit
    method: str


def sentences(source: Source) -> list[Unit]:
    """The source's sentences (a Chinese 。 or an English full stop ends one; a line break ends a heading)."""
    return [span_unit(source, c.start, c.end, table_row=False) for c in split_claims(source.text, clauses=False)]


def value_in(answer: str, unit: Unit, kind: ValueKind) -> Value | None:
    """The model's answer as a value of ``kind`` standing in ``unit`` (as the unit prints it), else None."""
    said = normalise(answer, kind) if answer.strip() else None
    if said is None:
        return None
    said = as_printed(said, unit.text)
    return next((v for _s, _e, v in values_in(unit.text, (kind,)) if same_value(said, v)), None)


def first_value(unit: Unit, kind: ValueKind) -> Value | None:
    found = values_in(unit.text, (kind,))
    return found[0][2] if found else None


def names_item(item: str, text: str) -> bool:
    """Whether ``text`` names ``item``: a Chinese item whole (either script), an English one by all its words."""
    if not item:
        return True
    if re.search(r"[\u4e00-\u9fff]", item):
        return fold(item).text in fold(text).text
    words = set(re.findall(r"[a-z]+", item.casefold()))
    return words <= set(re.findall(r"[a-z]+", text.casefold()))


def figure_read(
    reply: QuotedReply, units: Sequence[Unit], local: Sequence[Source], kind: ValueKind, item: str
) -> Read | None:
    """The hop's value: the model's where it stands in a located quote naming ``item``; else the first value of
    ``kind`` such a quote holds; else, the second line, the first sentence of the sources naming the item and
    holding one."""
    about = [u for u in units if names_item(item, _with_heading(u))]
    for unit in about:
        if (value := value_in(reply.answer, unit, kind)) is not None:
            return Read(value, unit, "chain")
    for unit in about:
        if (value := first_value(unit, kind)) is not None:
            return Read(value, unit, "chain-read")
    for unit in (u for s in local for u in sentences(s) if names_item(item, _with_heading(u))):
        if (value := first_value(unit, kind)) is not None:
            return Read(value, unit, "chain-read")
    return None


def overlap(a: str, b: str) -> int:
    """How many character pairs (Chinese) or words (English) of ``a`` stand in ``b``: a sentence's nearness."""
    fa, fb = fold(a).text, fold(b).text
    if re.search(r"[\u4e00-\u9fff]", a):
        return len({fa[i : i + 2] for i in range(len(fa) - 1)} & {fb[i : i + 2] for i in range(len(fb) - 1)})
    return len(_stems(a) & _stems(b))


def _stems(text: str) -> set[str]:
    """An English text's words of four letters or more, cut to four ("signing", "signed" → "sign"; "the", "and"
    left out)."""
    return {w[:4] for w in re.findall(r"[a-z]{4,}", text.casefold())}


NEAR = 2  # a sentence shares at least this many character pairs or words with the question to be near it


def nearest(question: str, local: Sequence[Source], keep: Callable[[Unit], bool]) -> list[Unit]:
    """The sentences of ``local`` that ``keep`` accepts, the nearest to ``question`` first (those sharing fewer
    than ``NEAR`` pairs or words with it left out; a citation's own words do not count)."""
    units = [u for s in local for u in sentences(s) if keep(u)]
    found = [(overlap(question, _without_refs(u.text)), i, u) for i, u in enumerate(units)]
    return [u for n, _i, u in sorted(found, key=lambda t: (-t[0], t[1])) if n >= NEAR]


def _without_refs(text: str) -> str:
    for ref in reversed(find_refs(text)):
        text = text[: ref.start] + " " + text[ref.end :]
    return text


def _with_heading(unit: Unit) -> str:
    """The unit's text after the line before it and its source's section: a clause's heading ("3. Completion
    period") names what the sentence under it states."""
    text = unit.source.text
    line = text.rfind("\n", 0, unit.start)
    before = text.rfind("\n", 0, max(0, line)) if line > 0 else -1
    return " ".join([*unit.source.section, text[before + 1 : unit.start], unit.text])


def own_article(unit: Unit) -> str | None:
    return next((r.article for r in find_refs(unit.text) if r.law is None and r.article), None)


def period_and_event(unit: Unit) -> tuple[Value, str] | None:
    """A period counted forward from an event in ``unit``: ("30日", "合同签订") from "自合同签订之日起30日内"; a
    period counted back ("截止之日10日前") is none."""
    for start, end, value in values_in(unit.text, _DURATION):
        if _BACKWARDS.match(unit.text[end:]):
            continue
        before = unit.text[max(0, start - 40) : start]
        for pattern in _EVENT_BEFORE:
            if (m := pattern.search(before)) is not None:
                return value, m.group("event").strip()
        for pattern in _EVENT_AFTER:
            if (m := pattern.match(unit.text[end:])) is not None:
                return value, m.group("event").strip()
    return None


def _event_words(event: str) -> str:
    """The event as words that tell it ("the signing of this contract" → "signing contract"; Chinese: as is)."""
    if re.search(r"[\u4e00-\u9fff]", event):
        return re.sub(r"^[本该該此]|的", "", event)
    return " ".join(w for w in re.findall(r"[A-Za-z]+", event) if w.casefold() not in table.EVENT_FILLER_EN)


def names_event(event: str, text: str) -> bool:
    """Whether ``text`` is about ``event``: at least half its character pairs (Chinese) or words (English)."""
    words = _event_words(event)
    f = fold(words).text
    size = len(f) - 1 if re.search(r"[\u4e00-\u9fff]", words) else len(re.findall(r"[a-z]{3,}", words.casefold()))
    return size > 0 and 2 * overlap(words, text) >= size


def day_text(day: datetime.date, lang: str, *, roc: bool) -> str:
    """A computed day as a reader writes it: 2025年3月31日 (民國114年3月31日 after an ROC date), 31 March 2025."""
    if lang == "zh":
        year = f"民國{day.year - 1911}" if roc else str(day.year)
        return f"{year}年{day.month}月{day.day}日"
    return f"{day.day} {MONTH_NAMES[day.month - 1].title()} {day.year}"


def is_roc(text: str) -> bool:
    """Whether a date is written in the years of the Republic (民國114年): a day computed from it is written so."""
    return _ROC.search(text) is not None
