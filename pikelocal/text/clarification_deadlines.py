"""Sentences giving the last day a bidder may ask for the tender documents to be clarified: a date
(「如有疑问需要澄清，应于2025年6月9日9:00前向招标人提出」, 「廠商請求釋疑之期限至 115年1月16日止」, a table's
「投标人提出澄清截止时间 | 2025年11月6日12时00分」) or a count of days before the bids' deadline
(「任何要求对招标文件进行澄清的投标人，均应在投标截止期15 天前…」, 「提交截止时间2日前提出」), or the bids' deadline
itself (「但应在征询响应文件递交截止时间前…以书面形式」).

The sentence, or the label above it in a data sheet (「投标人要求澄清招标文件的截止时间 ⏎ 递交投标文件截止之日
10 日前」, 「2.2.1 投标人要求澄清招标文件 ⏎ 时间：投标截止日10日前」), must be the bidder's request (要求澄清,
疑问, 疑義, 釋疑, 澄清截止): the purchaser's own clarification or amendment (「招标人对已发出的招标文件进行必要
的澄清或者修改的，应当在…15日前」) is another deadline, and a challenge (质疑, 異議) runs on its own days. The
model, shown these sentences, answered not stated or the bids' deadline itself.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text.values import values_in

# The bidder asks: for a clarification, with a question, or its deadline is named as such.
_ASKED = re.compile(
    r"要求[^，。；]{0,12}澄清|需要澄清|提出澄清|请求澄清|請求澄清|澄清要求|澄清[的之]?截止|澄清[的之]?期限|疑问|疑問|疑義|疑义"
    r"|釋疑|释疑|提出问题|提出問題|问题的截止|問題的截止|提问|提問"
)
# The purchaser clarifies or amends; a challenge; a condition: another deadline.
_LEFT_OUT = re.compile(r"修改|修正|补充|補充|质疑|質疑|異議|异议|招标人对|采购人对|採購機關對|如果|若")
_DATES: tuple[ValueKind, ...] = ("date",)
_WHOLE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # a date with its day: 2026-06 is no deadline
# After the date (its time of day between): before it, until it.
_BEFORE = re.compile(r"[^，。；,;]{0,12}?(?:以前|之前|前|止)")
# 「投标截止期15 天前」, 「递交投标文件截止之日 10 日前」, 「提交截止时间2日前」: days before the bids' deadline.
_DAYS_BEFORE = re.compile(
    r"(?P<deadline>[^\s，,。；;：:、（）()|]{0,12}截止[^\s，,。；;：:、|\d]{0,6})\s*(?P<days>\d+|[一二三四五六七八九十]+)"
    r"\s*(?P<unit>个工作日|個工作日|工作日|日历天|日曆天|日|天)\s*(?P<before>以前|之前|前)"
)
# 「应在征询响应文件递交截止时间前」, 「须在响应文件递交截止日前」: by the bids' deadline itself.
_AT_DEADLINE = re.compile(
    r"(?:应在|须在|須在|应于|應於|均应在)(?P<deadline>[^\s，,。；;：:、（）()|]{2,16}截止(?:时间|時間|日期|之日|日)?)"
    r"\s*(?P<before>以前|之前|前)"
)
_LEAD = re.compile(r"^.*?(?:均应在|应在|須在|须在|应于|應於|在|于|於)")  # 「均应在投标截止期」: the deadline's name
LONGEST = 200  # characters: a longer "sentence" is a table or a list run together


class Deadline(NamedTuple):
    """The deadline as printed without spaces, and its date where it is one."""

    text: str
    date: Value | None


def clarification_deadline(sentence: str, label: str = "") -> Deadline | None:
    """The last day ``sentence`` (one line) gives the bidder to ask for a clarification, or None. ``label``: the
    words before it since the last sentence's end, on one line (a data sheet's row 「2.2.1 投标人要求澄清招标文件的截止
    时间」 above its value 「递交投标文件截止之日 10 日前」): the bidder's request may stand there instead."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence):
        return None
    # the label counts only where the sentence does not name the request itself: a section's heading
    # 「10.谈判文件的澄清与修改」 names the amendment beside the bidder's request that its sentence states
    if not _ASKED.search(sentence) and (not _ASKED.search(label) or _LEFT_OUT.search(label)):
        return None
    for start, end, value in values_in(sentence, _DATES):
        if not _WHOLE_DATE.fullmatch(value.normal):
            continue
        label = sentence[max(0, start - 12) : start]
        before = _BEFORE.match(sentence, end)
        if before or "截止" in label or "期限" in label:
            printed = sentence[start : before.end() if before else end]
            return Deadline("".join(printed.split()), value)
    days = _DAYS_BEFORE.search(sentence)
    if days is None:
        at = _AT_DEADLINE.search(sentence)
        return Deadline(f"{_name(at.group('deadline'))}{at.group('before')}", None) if at else None
    printed = f"{_name(days.group('deadline'))}{days.group('days')}{days.group('unit')}{days.group('before')}"
    return Deadline(printed, None)


def _name(deadline: str) -> str:
    """The bids' deadline as the sentence names it, from after its verb (「均应在投标截止期」 → 投标截止期), without a
    bracket's end left before it (「【…前附表】明确的提交…截止之日」)."""
    name = _LEAD.sub("", deadline) or deadline
    return re.sub(r"^.*[】」』》)）\]]", "", name) or name
