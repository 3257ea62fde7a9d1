"""A contract's term printed as the span from the event that starts it to an end date, not as a length:
「自決標次日起至 115 年 12 月 31 日止」, 「自合同签订之日起至2025年12月31日」. Taiwan's tenders state the term
so (履約期限, 執行期程, 計畫期程), and so do mainland ones with a fixed end; a length (一年, 30日历天) is read as a
duration elsewhere (``text/values.py``).

The span must start at the contract's own start (its signing, its award, its taking effect, the move-in): a span
from the notice or the deadline is the documents' sale or the bids' validity.
"""

from __future__ import annotations

import re

_DATE = (
    r"(?:\d{2,4}|[〇零一二三四五六七八九]{4})[ \t]*年[ \t]*\d{1,2}[ \t]*月[ \t]*\d{1,2}[ \t]*日"
    r"|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
)
_SPAN = re.compile(rf"自[ \t]*(?P<event>[^，。；,;：:自\n]{{1,20}}?)[ \t]*起?[ \t]*[至到][ \t]*(?:{_DATE})[ \t]*止?")
# What starts a contract: its signing, the award, its taking effect, the winning of the bid, the move-in.
_STARTS = re.compile(r"签订|簽訂|签约|簽約|决标|決標|生效|中标|中標|得標|得标|进场|進場")


def term_to_end_date(sentence: str) -> str | None:
    """The first span in ``sentence`` from a contract's start to an end date, as printed without its spaces
    (「自決標次日起至115年12月31日止」); None where there is none."""
    for m in _SPAN.finditer(sentence):
        if _STARTS.search(m.group("event")):
            return "".join(m.group(0).split())
    return None
