"""Which way a figure binds: a floor ("不少于90日", "at least 90 days", "90日以上"), a ceiling ("不超过30%",
"30日内", "2026年5月31日前", "within 30 days", "no later than 31 May 2026") or, with neither word, the figure itself.

A bound word stands right before the value (a base may come between: 不超过|合同金额的|30%) or right after it
(30日|内, 90日|以上, 5月31日|前). Read by the bid check, which compares what a bid offers with what a tender
requires: a longer warranty than a floor meets it, a longer delivery than a ceiling does not.
"""

from __future__ import annotations

import re
from typing import Literal

Bound = Literal["min", "max", ""]

# English words that put a floor or a ceiling on the number after them ("at least three", "not more than 30"); the
# count reader of text/values.py reads a number after them as a count.
EN_AT_LEAST: tuple[str, ...] = (
    "not less than", "no less than", "not fewer than", "no fewer than", "at least", "a minimum of", "minimum of",
)  # fmt: skip
EN_AT_MOST: tuple[str, ...] = (
    "not more than", "no more than", "not exceeding", "not to exceed", "up to", "at most", "a maximum of", "maximum of",
)  # fmt: skip


# A ceiling on a date or a time too, not a count: "within 30 days", "no later than 31 May".
_EN_NO_LATER = ("maximum", "within", "no later than", "not later than", "before", "prior to", "by")


def _either(words: tuple[str, ...]) -> str:
    """An alternation of ``words``, the longest first (so "a maximum of" is not read as "maximum of")."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_FLOOR_BEFORE = (
    r"不少于|不少於|不低于|不低於|不小于|不小於|不短于|不短於|不得少于|不得少於|不得低于|不得低於|不得短于|不得短於"
    r"|不能少于|不能少於|不能低于|不能低於|不应低于|不應低於|不应少于|不應少於"
    r"|至少|最少|最低|大于等于|大於等於|≥|>="
    rf"|(?<![a-z])(?:{_either((*EN_AT_LEAST, 'minimum'))})"
)
_CEILING_BEFORE = (
    r"不超过|不超過|不多于|不多於|不高于|不高於|不大于|不大於|不长于|不長於|不迟于|不遲於|不晚于|不晚於"
    r"|不得超过|不得超過|不得多于|不得多於|不得高于|不得高於|不得迟于|不得遲於|最多|最长|最長|最高|上限|最迟|最遲|小于等于|小於等於|≤|<="
    r"|不能超过|不能超過|不能高于|不能高於|不能多于|不能多於|不应超过|不應超過|不应高于|不應高於"
    rf"|(?<![a-z])(?:{_either((*EN_AT_MOST, *_EN_NO_LATER, 'not exceed', 'capped at', 'limited to'))})"
)
_FLOOR_AFTER = r"及以上|或以上|以上|或更长|或更長|(?:or|and) (?:more|above|longer|greater)"
_CEILING_AFTER = (
    r"以内|之内|以下|及以下|或以下|之前|以前|为上限|為上限|为限|為限|内|內|前"
    r"|(?:or|and) (?:less|fewer|below|earlier|before|shorter)"
)
_BEFORE = re.compile(rf"(?P<min>{_FLOOR_BEFORE})|(?P<max>{_CEILING_BEFORE})", re.IGNORECASE)
_TIME_OF_DAY = (
    r"(?:(?:上午|下午|中午|晚上|晚间)?\s*\d{1,2}\s*[:：时時点點]\s*(?:\d{1,2}\s*分?)?\s*)?"  # 5月31日|17:00|前
)
_AFTER = re.compile(rf"\s*{_TIME_OF_DAY}(?:(?P<min>{_FLOOR_AFTER})|(?P<max>{_CEILING_AFTER}))", re.IGNORECASE)
BEFORE_WINDOW = 16  # characters before a value where its bound word may stand (不超过合同金额的|30%, "no later than ")
_STOP = re.compile(r"[，,。；;：:、！？!?\n]")  # a bound word of another phrase is not this value's


def bound_of(text: str, start: int, end: int) -> Bound:
    """The bound the words around ``text[start:end]`` (a value's span) put on it: "min", "max" or ""."""
    after = _AFTER.match(text, end)
    if after is not None:
        return "min" if after.group("min") else "max"
    window = text[max(0, start - BEFORE_WINDOW) : start]
    stops = list(_STOP.finditer(window))
    if stops:
        window = window[stops[-1].end() :]
    found = list(_BEFORE.finditer(window))
    if not found:
        return ""
    return "min" if found[-1].group("min") else "max"


# A case reached (「工期延误超过3个月的，」, 「受罰累計達契約含稅總價 20%者」): a word saying the figure is reached
# before it in its clause (not 不超过, a ceiling), and a case's end after it.
_REACHED = re.compile(r"(?<!不)(?:超过|超過|达到|達到|達|达|逾)[^，,。；;：:\d]{0,16}$")
_CASE_END = re.compile(r"\s*(?:以上|或以上)?\s*(?:[（(][^（）()]{0,12}[)）])?\s*(?:者|時|时|的\s*[，,])")


def reached_case(text: str, start: int, end: int) -> bool:
    """The value at ``text[start:end]`` is the point a case reaches (「工期延误超过3个月的，乙方有权暂停施工」: when the
    works may stop; 「受罰累計達…20%者，…得沒入履約保證金」: when the bond is forfeited), not a figure of its own."""
    clause = text[max(0, start - BEFORE_WINDOW) : start]
    return _REACHED.search(clause) is not None and _CASE_END.match(text, end) is not None
