"""How many copies a bid is handed in as, in the forms tender documents print it: an original and copies counted
apart (「正本1份，副本4份」 · 「正本一份和副本肆份」 · 「正本份数：壹份；副本；份数：贰份」), one original and N copies
(「一正二副」 · 「一正贰副」), or a number of copies in all (「一式三份」 · 「服務建議書1 式8 份」 · Taiwan's 「乙式」).

Each statement is read with its clause (the text between two sentence stops) so that the caller can tell what it is
a count of: 「本合同一式四份」 counts a contract's counterparts, 「验收证书一式二份」 a certificate's, not a bid's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pikelocal.text import concepts
from pikelocal.text.numerals import ZH_DIGIT_CHARS, ZH_FINANCIAL_CHARS, han_number

_ZH = ZH_DIGIT_CHARS + ZH_FINANCIAL_CHARS + "十"
_NUMBER = rf"(?:\d{{1,2}}|[{_ZH}]{{1,3}})"
_MEASURE = r"[份套本册冊]"
_NOT_NUMBER = rf"[^\d{_ZH}。；;\n]"
# 「正本1套，副本4套」: the original's count, then the copies' a few characters on (「正本份数：壹份；副本；份数：贰份」
# has a stop between 副本 and its count), or on the next item of a numbered list (「（1）投标文件正本 1 份；」 then
# 「（2）投标文件副本 6 份；」)
_APART = re.compile(
    rf"正本(?:{_NOT_NUMBER}){{0,5}}?(?P<a>{_NUMBER})[ \t]*{_MEASURE}"
    rf"[^。\n]{{0,8}}?(?:\n?[ \t]*[（(]?\d{{1,2}}[)）.、][^。\n]{{0,6}}?)?"
    rf"副本(?:[^\d{_ZH}。\n]){{0,6}}?(?P<b>{_NUMBER})[ \t]*{_MEASURE}"
)
_ONE_AND = re.compile(rf"(?<![{_ZH}\d])[一壹1][ \t]*正[ \t]*(?P<b>{_NUMBER})[ \t]*副")  # 「一正二副」
_IN_ALL = re.compile(rf"(?<![{_ZH}\d])[一壹乙1][ \t]*式[ \t]*(?P<n>{_NUMBER})[ \t]*{_MEASURE}")  # 「一式 10 份」
# a sentence's end, a blank line, or the end of a table's row (one row a line): the next row is another field
_STOP = re.compile(r"[。；;！？!?]|\n[ \t]*\n|\|[ \t]*\n|\n(?=[ \t]*\|)")
_CLAUSE_REACH = 120  # characters looked at either side of a statement for its clause's ends


@dataclass(frozen=True)
class CopiesStatement:
    """One statement of a number of copies: the total, where it stands in the text, and its clause."""

    total: int
    originals: int | None  # the original's count where printed apart (正本1份 → 1), else None
    start: int
    end: int
    clause: str
    in_all: bool  # printed as a number in all (一式三份), which any document may be made in


def copies_statements(text: str) -> Iterator[CopiesStatement]:
    """Every statement of a number of copies in ``text``, in the order they stand."""
    found: list[CopiesStatement] = []
    for m in _APART.finditer(text):
        a, b = _count(m.group("a")), _count(m.group("b"))
        if a is not None and b is not None:
            found.append(CopiesStatement(a + b, a, m.start(), m.end(), _clause(text, m.start(), m.end()), False))
    for m in _ONE_AND.finditer(text):
        if (b := _count(m.group("b"))) is not None:
            found.append(CopiesStatement(1 + b, 1, m.start(), m.end(), _clause(text, m.start(), m.end()), False))
    for m in _IN_ALL.finditer(text):
        if (n := _count(m.group("n"))) is not None:
            found.append(CopiesStatement(n, None, m.start(), m.end(), _clause(text, m.start(), m.end()), True))
    yield from sorted(found, key=lambda s: s.start)


def _count(numeral: str) -> int | None:
    value = han_number(numeral)
    return value if value is not None and 0 < value <= 99 else None


def _clause(text: str, start: int, end: int) -> str:
    """The text around ``start``..``end`` up to the nearest sentence stops (at most ``_CLAUSE_REACH`` characters
    each side), on one line."""
    before = text[max(0, start - _CLAUSE_REACH) : start]
    stops = list(_STOP.finditer(before))
    begin = start - len(before) + (stops[-1].end() if stops else 0)
    after = text[end : end + _CLAUSE_REACH]
    stop = _STOP.search(after)
    finish = end + (stop.start() if stop else len(after))
    return " ".join(text[begin:finish].split())


# Papers other than the bid that tenders count in copies: a contract's counterparts, an invoice, a certificate, a
# delivery list, a licence, a report, a guarantee, a letter of authority.
OTHER_PAPERS = (
    "合同", "协议", "協議", "契約", "契约", "发票", "發票", "证书", "證書", "清单", "清單", "执照", "執照",
    "报告", "報告", "保函", "授权书", "授權書", "影印本", "影本", "复印件", "複印件",
)  # fmt: skip


def counts_the_bid(statement: CopiesStatement) -> bool:
    """Whether a statement counts the bid's copies: its clause names no other paper (「本合同一式四份」, 「交货清单正本
    一份」), and a number in all (「一式三份」, which any paper may be made in) must name the bid as well
    (「磋商响应文件一式三份」, 「服務建議書一式 10 份」). A note in brackets names no paper of its own."""
    bare = _NOTE.sub("", statement.clause)  # 「（副本可采用正本盖章签字后的复印件）」 notes how, not which paper
    if any(word in bare for word in OTHER_PAPERS):
        return False
    return not statement.in_all or "bid_documents" in concepts.active().concepts_in(statement.clause)


_NOTE = re.compile(r"[（(][^（）()]*[)）]")
