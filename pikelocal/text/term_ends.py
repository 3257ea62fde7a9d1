"""A contract's term printed as the span from the event that starts it to an end date, not as a length:
「自決標次日起至 115 年 12 月 31 日止」, 「自合同签订之日起至2025年12月31日」. Taiwan's tenders state the term
so (履約期限, 執行期程, 計畫期程), and so do mainland ones with a fixed end; a length (一年, 30日历天) is read as a
duration elsewhere (``text/values.py``).

The span must start at the contract's own start (its signing, its award, its taking effect, the move-in): a span
from the notice or the deadline is the documents' sale or the bids' validity.
"""

from __future__ import annotations

import re

from pikelocal.domain.review import ValueKind
from pikelocal.text.values import values_in

_FROM_TO = re.compile(r"自[ \t]*(?P<event>[^，。；,;：:自\n]{1,20}?)[ \t]*起?[ \t]*[至到][ \t]*")
_UNTIL = re.compile(r"[ \t]*止?")
_DATES: tuple[ValueKind, ...] = ("date",)
_DATE_REACH = 24  # characters after 至 a date is looked for in (「115 年 12 月 31 日」 with its spaces)
_WHOLE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # a date's normal form with its day: 2026-12 is no end date
# What starts a contract: its signing, the award, its taking effect, the winning of the bid, the move-in.
_STARTS = re.compile(r"签订|簽訂|签约|簽約|决标|決標|生效|中标|中標|得標|得标|进场|進場")


def term_to_end_date(sentence: str) -> str | None:
    """The first span in ``sentence`` from a contract's start to an end date (a date with its day, read by
    ``text/values.values_in``), as printed without its spaces (「自決標次日起至115年12月31日止」); None where there
    is none."""
    for m in _FROM_TO.finditer(sentence):
        if not _STARTS.search(m.group("event")):
            continue
        dates = values_in(sentence[m.end() : m.end() + _DATE_REACH], _DATES)
        if dates and dates[0][0] == 0 and _WHOLE_DATE.fullmatch(dates[0][2].normal):
            end = m.end() + dates[0][1]
            until = _UNTIL.match(sentence, end)
            end = until.end() if until else end
            return "".join(sentence[m.start() : end].split())
    return None
