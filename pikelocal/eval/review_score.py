"""Scoring a checklist run against a gold fact sheet: per-item accuracy, not-stated accuracy and the
conflicts caught, from stored :class:`~pikelocal.domain.review.ReviewRow` records. Pure: no model, no KB.

A gold fact sheet is a JSONL file, one object per checklist item judged (``tests/data/review/*-gold.jsonl``)::

    {"item": "bid_validity", "value": "90 days", "page": 13, "quote": "3.3.1 投标有效期 自投标截止时间起 90 日内有效",
     "also": []}
    {"item": "project_name", "value": ["团洲圩", "勘察设计"], "page": 10, "quote": "项目名称：…", "also": []}
    {"item": "budget", "value": null, "page": 7, "quote": "合同估算价： / 。", "also": [], "note": "left blank"}

Fields:

- ``item`` (required): the checklist item's id.
- ``value`` (required): how the item is matched (below) — a normal form as ``text/values.py`` writes it
  ("350900 CNY", "2025-12-15", "30%", "90 days", "4", "yes"), or one key phrase or a list of key phrases; ``null``
  when the document does not state the fact.
- ``also``: other accepted answers, each a normal form or key phrase, or a list of key phrases. For a ``null`` item
  they are answers accepted besides "not stated" (a partial statement, or "no" for a clause the contract lacks).
- ``match``: ``"value"`` (the row's answer value equals the gold value: ``same_value`` on normal forms) or
  ``"contains"`` (the row's answer text holds every key phrase of the value, or of one ``also`` entry, compared
  without spaces and case, full-width folded). Default: ``contains`` for name, list and text items, ``value`` for
  the others; an item whose truth is "there is none" (no bid bond) uses ``contains`` with the words that say so.
- ``page`` / ``pages``: the 1-based page where the fact stands (``pages``: others stating it too); ``line``: the
  1-based line in a document without pages (Markdown). Used to say whether the row cited the right place.
- ``quote``: the sentence of the document, copied. ``note``: why, for a reader.
- ``conflict`` and ``conflict_values``: the document states the fact twice with different values (normal forms,
  two or more); caught when the row is ``conflicting`` and holds every one of them among its values.

A scored item is **right** (answered with an accepted value), **wrong** (answered with another), **missed**
(answerable but the row says not stated), **not_stated** (a null item the row leaves not stated: right),
**invented** (a null item answered with a value that is not accepted) or **no_row** (the run has no row for it;
counted against the item). A row shown as **to check** (the answer stands in a sentence that is not clearly about
the item) is **to_check_right** or **to_check_wrong** by the same match, and counts as neither found nor not stated:
against the item in both accuracies.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pikelocal.domain.errors import InputError
from pikelocal.domain.review import ReviewRow, ReviewVerdict, Value, ValueKind
from pikelocal.prompts.answer import says_not_stated
from pikelocal.text.values import normalise, prepare, same_value

MatchMode = Literal["value", "contains"]
Outcome = Literal["right", "wrong", "missed", "not_stated", "invented", "no_row", "to_check_right", "to_check_wrong"]
MATCH_MODES: tuple[MatchMode, ...] = ("value", "contains")
CONTAINS_KINDS: frozenset[ValueKind] = frozenset({"name", "list", "text"})
RIGHT: frozenset[Outcome] = frozenset({"right", "not_stated"})

_FIELDS = frozenset(
    {"item", "value", "also", "match", "page", "pages", "line", "quote", "note", "conflict", "conflict_values"}
)
Answer = tuple[str, ...]  # one normal form, or the key phrases an answer must all contain


@dataclass(frozen=True)
class GoldItem:
    """One judged item of a gold fact sheet: the accepted answer (None: not stated), the others accepted, how they
    are matched, where the fact stands, and the values of a conflict the document holds."""

    item: str
    value: Answer | None
    also: tuple[Answer, ...] = ()
    match: MatchMode | None = None  # None: by the item's kind
    page: int | None = None
    pages: tuple[int, ...] = ()
    line: int | None = None
    quote: str = ""
    note: str = ""
    conflict_values: tuple[str, ...] = ()

    @property
    def stated(self) -> bool:
        return self.value is not None

    @property
    def conflict(self) -> bool:
        return bool(self.conflict_values)

    def accepted(self) -> tuple[Answer, ...]:
        """Every accepted answer, the gold value first."""
        return ((self.value,) if self.value is not None else ()) + self.also

    def shown(self) -> str:
        """The gold answer as a reader sees it: ``90 days``, ``团洲圩 + 勘察设计``, ``not stated``."""
        return "not stated" if self.value is None else " + ".join(self.value)

    def mode(self, kind: ValueKind) -> MatchMode:
        return self.match or ("contains" if kind in CONTAINS_KINDS else "value")


@dataclass(frozen=True)
class ItemScore:
    """One gold item against its row: what was expected, what the row said, and the outcome. ``cited``: whether
    one of the row's quotes stands on the gold page or line (None: nothing to check)."""

    item: str
    kind: ValueKind | None
    gold: GoldItem
    verdict: ReviewVerdict | None
    got: str
    outcome: Outcome
    cited: bool | None = None
    conflict_caught: bool | None = None  # None: the gold holds no conflict for this item
    # the model's draft before the checks (the row's extra "draft"): None when the row keeps none (a ticked box,
    # a system reading) or the draft says "not stated"; else whether it was an accepted answer
    draft_right: bool | None = None
    # whether the gold quote stood in the sources sent to the model for this item (``quote_sent``); None: not
    # looked up (no trace, or an item the document does not state)
    gold_sent: bool | None = None

    @property
    def right(self) -> bool:
        return self.outcome in RIGHT


@dataclass(frozen=True)
class ReviewScore:
    """A run's rows scored against a gold fact sheet; the per-item table in the gold's order."""

    items: tuple[ItemScore, ...]

    @property
    def answerable(self) -> int:
        return sum(s.gold.stated for s in self.items)

    @property
    def answerable_right(self) -> int:
        return sum(s.gold.stated and s.right for s in self.items)

    @property
    def not_stated(self) -> int:
        return sum(not s.gold.stated for s in self.items)

    @property
    def not_stated_right(self) -> int:
        return sum(not s.gold.stated and s.right for s in self.items)

    @property
    def conflicts(self) -> int:
        return sum(s.gold.conflict for s in self.items)

    @property
    def conflicts_found(self) -> int:
        return sum(bool(s.conflict_caught) for s in self.items)

    @property
    def false_conflicts(self) -> tuple[str, ...]:
        """Items shown in conflict where the gold holds none: a statement read where the documents state nothing
        else."""
        return tuple(s.item for s in self.items if s.verdict == "conflicting" and not s.gold.conflict)

    @property
    def item_accuracy(self) -> float:
        """The share of answerable items answered with an accepted value (0 when there are none)."""
        return self.answerable_right / self.answerable if self.answerable else 0.0

    @property
    def not_stated_accuracy(self) -> float:
        """The share of not-stated items the run left not stated (or answered with an accepted partial value)."""
        return self.not_stated_right / self.not_stated if self.not_stated else 0.0

    @property
    def answered_wrong(self) -> tuple[str, ...]:
        """Items the run answered with a value that is not accepted: wrong answers and invented facts."""
        return tuple(s.item for s in self.items if s.outcome in ("wrong", "invented"))

    @property
    def missed(self) -> tuple[str, ...]:
        return tuple(s.item for s in self.items if s.outcome == "missed")

    @property
    def right_drafts_removed(self) -> tuple[str, ...]:
        """Items whose draft was right but the row does not show it found: what the checks took away."""
        return tuple(s.item for s in self.items if s.draft_right and s.gold.stated and s.outcome != "right")

    @property
    def right_drafts(self) -> int:
        return sum(bool(s.draft_right) and s.gold.stated for s in self.items)

    @property
    def inventions_kept(self) -> tuple[str, ...]:
        """Items the document does not state whose draft gave a value the row shows as found: what the checks
        let through."""
        return tuple(s.item for s in self.items if s.draft_right is False and s.outcome == "invented")

    @property
    def inventions_drafted(self) -> int:
        """Drafts that gave a value for an item the document does not state (and not an accepted partial one)."""
        return sum(s.draft_right is False and not s.gold.stated for s in self.items)

    @property
    def wrong_drafts_kept(self) -> tuple[str, ...]:
        """Items the document states whose draft gave another value, shown as found: a misreading let through."""
        return tuple(s.item for s in self.items if s.draft_right is False and s.gold.stated and s.outcome == "wrong")

    @property
    def wrong_drafts(self) -> int:
        return sum(s.draft_right is False and s.gold.stated for s in self.items)

    @property
    def to_check(self) -> int:
        """Rows shown as "to check": the answer stands in a sentence not clearly about the item (neither right
        nor wrong in the accuracies: a stated item's is not found, a null item's is not left not stated)."""
        return sum(s.outcome in ("to_check_right", "to_check_wrong") for s in self.items)

    @property
    def to_check_right(self) -> int:
        return sum(s.outcome == "to_check_right" for s in self.items)

    @property
    def no_row(self) -> tuple[str, ...]:
        return tuple(s.item for s in self.items if s.outcome == "no_row")

    @property
    def looked_up(self) -> bool:
        """Whether the sources sent were looked up for the stated items (``score(..., sent=...)``)."""
        return any(s.gold_sent is not None for s in self.items)

    @property
    def reader_failures(self) -> tuple[str, ...]:
        """Stated items the row does not show right although the gold sentence stood in the sources sent, and the
        model's draft was not right either: reading, not retrieval (a right draft the checks removed is counted
        in ``right_drafts_removed``)."""
        return tuple(s.item for s in self.items if s.gold_sent and s.outcome in _NOT_FOUND and not s.draft_right)

    @property
    def retrieval_misses(self) -> tuple[str, ...]:
        """Stated items the row does not show right whose gold sentence was not among the sources sent."""
        return tuple(s.item for s in self.items if s.gold_sent is False and s.outcome in _NOT_FOUND)


# A stated item's outcomes that are not an accepted value shown as found (a right value "to check" is the checks'
# doing, not the reader's).
_NOT_FOUND: frozenset[Outcome] = frozenset({"wrong", "missed", "to_check_wrong", "no_row"})


def score(
    rows: Sequence[ReviewRow], gold: Sequence[GoldItem], sent: Mapping[str, Sequence[str]] | None = None
) -> ReviewScore:
    """Score ``rows`` (one checklist run) against ``gold``; rows of items the gold does not judge are ignored.
    ``sent``: by item, the texts of the sources its answer was given (from its trace), to tell a reader failure
    from a retrieval miss."""
    by_item = {r.item_id: r for r in rows}
    scores = [score_item(by_item.get(g.item), g) for g in gold]
    if sent is not None:
        scores = [
            replace(s, gold_sent=quote_sent(s.gold, sent[s.item])) if s.gold.stated and s.item in sent else s
            for s in scores
        ]
    return ReviewScore(tuple(scores))


# A gold quote cut across wrapped lines or table cells is matched by pieces of this many characters, and sent when
# this share of them stand in the sources.
_PIECE = 8
_PIECES_SENT = 0.8


def quote_sent(gold: GoldItem, texts: Sequence[str]) -> bool | None:
    """Whether the gold sentence stood in ``texts`` (the sources sent to the model): whole, compared without
    spaces, commas, table bars and case, full-width folded; or, when a line break or a cell cut it, by
    ``_PIECES_SENT`` of its ``_PIECE``-character pieces. None: the gold has no quote."""
    quote = _bare_text(gold.quote)
    if not quote:
        return None
    sent = "\n".join(_bare_text(t) for t in texts)
    if quote in sent:
        return True
    pieces = [quote[i : i + _PIECE] for i in range(0, max(1, len(quote) - _PIECE + 1), _PIECE // 2)]
    return sum(p in sent for p in pieces) >= _PIECES_SENT * len(pieces)


def _bare_text(text: str) -> str:
    return "".join(c for c in fold(text) if c not in ",，|")


def score_item(row: ReviewRow | None, gold: GoldItem) -> ItemScore:
    """One gold item against its row (None: the run has none)."""
    if row is None:
        caught = False if gold.conflict else None
        return ItemScore(gold.item, None, gold, None, "", "no_row", None, caught)
    got = row.values[0].normal if row.values else _short(row.answer)
    answered = row.verdict != "not_stated"
    matched = answered and any(_matches(row, gold.mode(row.kind), a) for a in gold.accepted())
    outcome: Outcome
    if row.verdict == "to_check":  # shown for the reviewer to check, never as found: counted apart
        outcome = "to_check_right" if matched else "to_check_wrong"
    elif gold.stated:
        outcome = "right" if matched else "wrong" if answered else "missed"
    else:
        outcome = "invented" if answered and not matched else "right" if answered else "not_stated"
    cited = _cited(row, gold) if answered and gold.stated else None
    caught = _caught(row, gold) if gold.conflict else None
    shown = got if answered else "not stated"
    return ItemScore(gold.item, row.kind, gold, row.verdict, shown, outcome, cited, caught, _draft_right(row, gold))


def _draft_right(row: ReviewRow, gold: GoldItem) -> bool | None:
    """Whether the model's draft (before the checks) was an accepted answer; None without one, or when it said
    the documents do not state it."""
    draft = row.extra.get("draft", "").strip()
    if not draft or says_not_stated(draft):
        return None
    value = normalise(draft, row.kind)
    drafted = replace(row, answer=draft, values=(value,) if value is not None else ())
    return any(_matches(drafted, gold.mode(row.kind), a) for a in gold.accepted())


def _matches(row: ReviewRow, mode: MatchMode, answer: Answer) -> bool:
    if mode == "contains":
        text = fold(row.answer)
        return all(fold(phrase) in text for phrase in answer)
    return bool(row.values) and _same(row.values[0], answer[0])


def _same(got: Value, normal: str) -> bool:
    """A row's value against a gold normal form, read as a value of the row's kind (so 2 weeks = 14 days)."""
    expected = normalise(normal, got.kind) or Value(kind=got.kind, text=normal, normal=normal)
    return got.normal == normal or same_value(got, expected)


def _caught(row: ReviewRow, gold: GoldItem) -> bool:
    return row.verdict == "conflicting" and all(any(_same(v, c) for v in row.values) for c in gold.conflict_values)


def _cited(row: ReviewRow, gold: GoldItem) -> bool | None:
    """Whether a quote of the row stands on one of the gold pages, or its lines reach the gold line (one line of
    slack either side: a Markdown heading or a wrapped line moves a sentence by one)."""
    pages = {p for p in (gold.page, *gold.pages) if p is not None}
    if pages:
        return any(q.where.page in pages for q in row.quotes)
    if gold.line is not None:
        for q in row.quotes:
            start = q.where.line_start
            if start is not None and start - 1 <= gold.line <= (q.where.line_end or start) + 1:
                return True
        return False
    return None


def fold(text: str) -> str:
    """Text compared by key phrase: full-width folded (NFKC), traditional numerals and units mapped as values.py
    maps them, case folded, without spaces."""
    return "".join(prepare(unicodedata.normalize("NFKC", text)).casefold().split())


def _short(text: str, limit: int = 80) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


# --- loading ---------------------------------------------------------------------------------------------------


def load_gold(path: Path) -> list[GoldItem]:
    """The gold items of a JSONL fact sheet (format in the module's docstring); a bad line raises
    :class:`InputError` naming the file and line: ``gold.jsonl:7: "page" must be a whole number ≥ 1 or null``."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read the gold file ({exc})") from exc
    out: list[GoldItem] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        item = _gold_item(line, where)
        if item.item in seen:
            raise InputError(f"{where}: item {item.item!r} is already judged on line {seen[item.item]}")
        seen[item.item] = number
        out.append(item)
    if not out:
        raise InputError(f"{path}: no gold items (one JSON object per line is expected)")
    return out


def unknown_items(gold: Iterable[GoldItem], item_ids: Iterable[str]) -> list[str]:
    """The gold items that are no item of the checklist (a typo, or the wrong checklist)."""
    known = set(item_ids)
    return [g.item for g in gold if g.item not in known]


def _gold_item(line: str, where: str) -> GoldItem:
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise InputError(f"{where}: not JSON ({exc.args[0] if exc.args else exc})") from exc
    if not isinstance(record, dict):
        raise InputError(f"{where}: a JSON object is expected, got {type(record).__name__}")
    unknown = sorted(set(record) - _FIELDS)
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(sorted(_FIELDS))})")
    item = record.get("item")
    if not isinstance(item, str) or not item.strip():
        raise InputError(f'{where}: "item" must be a checklist item id')
    if "value" not in record:
        raise InputError(f'{where}: "value" is missing (null when the document does not state it)')
    value = None if record["value"] is None else _answer(record["value"], where, "value")
    also = record.get("also") or []
    if not isinstance(also, list):
        raise InputError(f'{where}: "also" must be a list')
    match = record.get("match")
    if match is not None and match not in MATCH_MODES:
        raise InputError(f'{where}: "match" must be "value" or "contains", got {match!r}')
    conflict_values = _conflict(record, where)
    if conflict_values and value is None:
        raise InputError(f'{where}: a conflict needs a "value" (the document states the fact)')
    pages = record.get("pages") or []
    if not isinstance(pages, list):
        raise InputError(f'{where}: "pages" must be a list of page numbers')
    return GoldItem(
        item=item.strip(),
        value=value,
        also=tuple(_answer(a, where, "also") for a in also),
        match=match,
        page=_number(record.get("page"), where, "page"),
        pages=tuple(p for p in (_number(p, where, "pages") for p in pages) if p is not None),
        line=_number(record.get("line"), where, "line"),
        quote=_text(record, "quote", where),
        note=_text(record, "note", where),
        conflict_values=conflict_values,
    )


def _answer(raw: Any, where: str, name: str) -> Answer:
    """A normal form or key phrase, or a list of key phrases, as a tuple of non-empty strings."""
    parts = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else None
    if not parts or not all(isinstance(p, str) and p.strip() for p in parts):
        raise InputError(f'{where}: each "{name}" must be a non-empty string or a list of non-empty strings')
    return tuple(p.strip() for p in parts)


def _conflict(record: Mapping[str, Any], where: str) -> tuple[str, ...]:
    flag = record.get("conflict", False)
    if not isinstance(flag, bool):
        raise InputError(f'{where}: "conflict" must be true or false')
    values = record.get("conflict_values") or []
    if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
        raise InputError(f'{where}: "conflict_values" must be a list of normal forms')
    if flag and len(values) < 2:
        raise InputError(f'{where}: a conflict names its values: "conflict_values" with two or more normal forms')
    if values and not flag:
        raise InputError(f'{where}: "conflict_values" given without "conflict": true')
    return tuple(v.strip() for v in values)


def _number(raw: Any, where: str, name: str) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise InputError(f'{where}: "{name}" must be a whole number ≥ 1 or null, got {raw!r}')
    return raw


def _text(record: Mapping[str, Any], name: str, where: str) -> str:
    raw = record.get(name, "")
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise InputError(f'{where}: "{name}" must be a string')
    return raw
