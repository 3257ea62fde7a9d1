"""The timeline: every dated or relative deadline of the documents in one list, with what happens then. Without
the LLM: a view of the KB's statements (``ingest/enrich/statements.py``), as the key-figures sheet is.

- **dated**: a statement whose value is a day (``2026-01-27``), unless it cites a document (a letter's or a law's
  date: "88 年 10 月 12 日（88）工程企字第 8814668 号函") or is in an example (statements leave those out);
- **relative**: a period counted from an event ("决标日之次日起 30 日内", "within 30 days of acceptance", "开标前
  10 日"): a duration the words around it anchor to a start or an end (:data:`_ANCHORED`); not a window looking
  back ("近三年内", years counted back from an event: "截止投标日前 3 年内", ``text/dates.COUNTED_BACK``).

Dated entries come first, in date order, then the relative ones in document order. Each shows the day both ways:
Gregorian and, for a day after 1912, the Republic of China's (民國115年1月27日): a Taiwanese reviewer reads the
one, the calendar the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pikelocal.domain.obligations import Clause, TimelineEntry
from pikelocal.domain.review import Located
from pikelocal.domain.statements import Statement
from pikelocal.text.dates import COUNTED_BACK, ROC_EPOCH, YEARS
from pikelocal.text.script import to_simplified

_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})$")
# A date that dates a cited document, not an event of this procedure: the words right after it.
_CITED = re.compile(r"^[^，。；,;]{0,12}?(?:字第|号|號|函|令|公布|发布|發布|施行|修正|印发|印發)")
_BEFORE = 14  # characters before a period searched for its anchor
_AFTER = 6
# A period anchored to an event: counted from it (起, 之日, 后, after, of, from) or ending at it (内, 前, before).
_ANCHOR_BEFORE = re.compile(r"(?:起|之日|以后|之后|后|前|自|于|(?<![a-z])(?:within|after|before|of|from)\s*)$", re.I)
# A period looking back ("近三年内", "in the past 3 years"): a window of experience, no deadline.
_LOOKBACK = re.compile(r"(?:近|最近|过去|(?<![a-z])(?:past|last|preceding)\s*)$", re.I)
_ANCHOR_AFTER = re.compile(
    r"^\s*(?:以内|之内|内|以前|之前|前|后|以后|止|(?<![a-z])(?:after|before|of|from|prior|following|notice))", re.I
)


def find_timeline(statements: Iterable[Statement], titles: dict[int, str]) -> list[TimelineEntry]:
    """The timeline of the statements (of one or several documents; ``titles`` by document id): dated entries in
    date order, then relative ones in document order."""
    dated: list[tuple[str, int, TimelineEntry]] = []
    relative: list[tuple[int, int, TimelineEntry]] = []
    seen: set[tuple[int, int | None, int, str]] = set()
    for s in statements:
        entry = entry_of(s, titles.get(s.doc_id, ""))
        if entry is None:
            continue
        key = (s.doc_id, s.page, s.line_start, s.value.normal)
        if key in seen:
            continue
        seen.add(key)
        if entry.date is not None:
            dated.append((entry.date, s.char_start, entry))
        else:
            relative.append((s.doc_id, s.char_start, entry))
    dated.sort(key=lambda e: (e[0], e[2].clause.where.doc_id, e[1]))
    relative.sort(key=lambda e: (e[0], e[1]))
    return [e for _d, _o, e in dated] + [e for _d, _o, e in relative]


def entry_of(s: Statement, title: str) -> TimelineEntry | None:
    """The timeline entry ``s`` makes, or None (a value that is no deadline)."""
    where = Located(s.doc_id, title, s.page, s.line_start, s.line_end)
    clause = Clause(s.sentence, where, s.heading)
    what = s.subject or s.heading or s.sentence
    text = " ".join(s.value.text.split())
    if s.value.kind == "date":
        day = _DAY.match(s.value.normal)
        if day is None or _cites(s):
            return None
        return TimelineEntry(clause, s.value.normal, roc_day(s.value.normal), text, what)
    if s.value.kind == "duration" and _anchored(s):
        return TimelineEntry(clause, None, "", text, what)
    return None


def roc_day(iso: str) -> str:
    """``2026-01-27`` as 民國115年1月27日 ("" before the Republic's first year)."""
    m = _DAY.match(iso)
    if m is None:
        return ""
    year, month, day = (int(g) for g in m.groups())
    if year <= ROC_EPOCH:
        return ""
    return f"民國{year - ROC_EPOCH}年{month}月{day}日"


def _where_in_sentence(s: Statement) -> tuple[str, int, int]:
    sentence = to_simplified(s.sentence)
    value = to_simplified(" ".join(s.value.text.split()))
    squeezed = re.sub(r"\s+", " ", sentence)
    at = squeezed.find(value)
    if at < 0:
        compact = "".join(squeezed.split())
        at = compact.find("".join(value.split()))
        return compact, at, at + len("".join(value.split()))
    return squeezed, at, at + len(value)


def _cites(s: Statement) -> bool:
    sentence, _start, end = _where_in_sentence(s)
    return end > 0 and bool(_CITED.search(sentence[end:]))


def _anchored(s: Statement) -> bool:
    sentence, start, end = _where_in_sentence(s)
    if start < 0:
        return False
    before = sentence[max(0, start - _BEFORE) : start]
    after = sentence[end : end + _AFTER]
    near = before[-4:]
    if _LOOKBACK.search(before[-3:]):
        return False
    if COUNTED_BACK.search(before) and YEARS.search(sentence[start:end]):
        return False  # years counted back from an event ("截止投标日前 3 年内"): a window of experience
    return bool(_ANCHOR_AFTER.search(after) or _ANCHOR_BEFORE.search(near) or ("起" in before and "内" in after))
