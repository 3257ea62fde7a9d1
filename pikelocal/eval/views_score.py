"""Scores of the reviewer's first views against gold lists written by reading the documents
(``tests/data/review/views/*.jsonl``).

A gold file is JSON lines: first ``{"meta": {...}}`` (``pages``: "all" or the pages whose every row is listed, the
rest not scored; ``unscored_pages``; ``held_out``), then one row per clause: ``page``, ``quote`` (words of the
clause as the document prints them), the view's label (``stage``, ``kind`` and ``who``, or ``date``: ISO or null for
a relative deadline) and ``optional`` (a row a reviewer may take either way: found, it is no false alarm; missed,
no miss).

A text document has no pages (pikelocal reads a .txt or .md as one page without a number): its rows give ``"page":
null`` and ``line`` (the 1-based line of the file where the quote stands), and the meta may name the scored lines
(``lines``: ``[[first, last], ...]``) instead of pages. Such a row matches a found row by line (the row's line among
the found row's lines, whatever page number the reader gave the file), so the same words on two lines are two
rows.

A found row matches a gold row on the same page when one's words hold the other's, or they share
:data:`SHARED_CHARS` characters in a run (compared NFKC-folded, without whitespace: a PDF prints compatibility
ideographs and breaks lines). A dated timeline row matches by page and date. Recall counts the gold rows (not
optional) matched; precision the found rows on scored pages that match a gold row (optional ones left out of it).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

SHARED_CHARS = 12


@dataclass(frozen=True)
class Found:
    """A row a finder gave: page, text and (timeline) date."""

    page: int | None
    text: str
    date: str | None = None
    lines: tuple[int, int] | None = None  # first and last line (1-based), where the finder knows them


@dataclass(frozen=True)
class Gold:
    meta: Mapping[str, Any]
    rows: Sequence[Mapping[str, Any]]

    def scored(self, page: int | None, lines: tuple[int, int] | None = None) -> bool:
        pages = self.meta.get("pages", "all")
        if page in set(self.meta.get("unscored_pages", ())):
            return False
        ranges = self.meta.get("lines")
        if ranges and lines is not None and not any(a <= lines[0] <= b for a, b in ranges):
            return False
        return pages == "all" or page in set(pages)


@dataclass(frozen=True)
class Score:
    gold: int  # gold rows (not optional)
    recalled: int
    found: int  # found rows scored (matching an optional row left out)
    correct: int
    missed: tuple[str, ...] = ()
    false_alarms: tuple[str, ...] = ()

    @property
    def recall(self) -> float:
        return self.recalled / self.gold if self.gold else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.found if self.found else 1.0


def load_gold(path: Path) -> Gold:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    meta = lines[0]["meta"] if lines and "meta" in lines[0] else {}
    return Gold(meta, [r for r in lines if "meta" not in r])


def fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split())


def matches(gold: Mapping[str, Any], found: Found, *, by_date: bool = False) -> bool:
    line = gold.get("line")
    if line is not None and gold.get("page") is None:
        if found.lines is None or not found.lines[0] <= int(line) <= found.lines[1]:
            return False  # a text document's row: its line places it, whatever page number the reader gave
    elif gold.get("page") != found.page:
        return False
    if by_date and gold.get("date"):
        return found.date == str(gold["date"])
    g, f = fold(str(gold.get("quote", ""))), fold(found.text)
    if not g or not f:
        return False
    if g in f or (len(f) >= 6 and f in g):
        return True
    m = SequenceMatcher(None, g, f, autojunk=False).find_longest_match(0, len(g), 0, len(f))
    return m.size >= min(SHARED_CHARS, len(g))


def score(gold: Gold, found: Sequence[Found], *, by_date: bool = False) -> Score:
    """Recall and precision of ``found`` against ``gold`` (see the module's docstring)."""
    scored = [f for f in found if gold.scored(f.page, f.lines)]
    required = [g for g in gold.rows if not g.get("optional")]
    recalled = [g for g in required if any(matches(g, f, by_date=by_date) for f in scored)]
    counted: list[Found] = []
    correct = 0
    false_alarms: list[str] = []
    for f in scored:
        hits = [g for g in gold.rows if matches(g, f, by_date=by_date)]
        if hits and all(g.get("optional") for g in hits):
            continue  # an optional row: neither right nor wrong
        counted.append(f)
        if hits:
            correct += 1
        else:
            false_alarms.append(f"{_found_where(f)}: {f.text[:80]}")
    missed = tuple(f"{_where(g)}: {g.get('quote', '')}" for g in required if g not in recalled)
    return Score(len(required), len(recalled), len(counted), correct, missed, tuple(false_alarms))


def _where(gold: Mapping[str, Any]) -> str:
    return f"p. {gold['page']}" if gold.get("page") is not None else f"l. {gold.get('line')}"


def _found_where(found: Found) -> str:
    if found.lines is None:
        return f"p. {found.page}"
    if found.page is None:
        return f"l. {found.lines[0]}"
    return f"p. {found.page}, l. {found.lines[0]}"


def dates_recall(gold: Gold, found: Sequence[Found]) -> tuple[int, int]:
    """Of the gold's dated rows (not optional), how many a found row gives on their page: (found, all)."""
    dated = [g for g in gold.rows if g.get("date") and not g.get("optional")]
    return sum(any(matches(g, f, by_date=True) for f in found) for g in dated), len(dated)
