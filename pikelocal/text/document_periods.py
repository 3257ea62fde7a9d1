"""Sentences inviting bidders to obtain the tender documents within a period: 「凡有意参加投标者，请于2024年12月20日
08时30分至2024年12月24日23时59分(北京时间，下同)，登录宝华智慧招标共享平台下载电子招标文件」, 「有意参加本次招标
的潜在投标人，请于2026年4月30日16:00时至2026年5月12日16:00时（法定节假日除外）在…网站在线领购招标文件」.

An invitation is 请于 (请在, 可于, 须于, 应于; or the documents 自 or 从 a date, 「磋商文件自2026年6月30日至…获取」;
or a time 为 a date, 「采购文件售卖时间为 2025年 07 月 02 日 18 时 00 分至…」) a whole date, 至 (or 到) a later
point, and in the same sentence a verb of obtaining (获取, 下载, 购买, 领购, 领取, 申领, 发售) a document of the
tender. The first date is the period's start; the words from it to the end of the period are the answer as
printed. A labelled field (「获取时间：…」) is read before (``review/field_lines.py``); this is the notice's
sentence where no field names the period.

Left out: a date of another event first (a deadline: 「请于…前递交」 has no 至 and no obtaining verb), and a
period of registration alone (「报名」 with no document obtained).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text.values import values_in

_INVITED = re.compile(
    r"(?:请于|请在|可于|可在|须于|应于|請於|請在"
    r"|(?:文件|标书|標書)\s*(?:自|从|從)|(?:时间|時間)\s*(?:为|為|是)\s*[:：]?)\s*$"
)
_OBTAIN = re.compile(r"获取|下载|下載|购买|購買|领购|領購|领取|領取|申领|申領|发售|發售|售卖")
_DOCUMENT = re.compile(r"(?:招标|采购|磋商|谈判|询价|询比|征询|招標|採購)文件|标书|標書")
_UNTIL = re.compile(r"[^。；;]{0,40}?(?:至|到)\s*")
_DATES: tuple[ValueKind, ...] = ("date",)
_WHOLE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME_OF_DAY = re.compile(r"[\d\s:：时時分秒点點]{0,12}")
LONGEST = 300  # characters: a longer "sentence" is a table or a list run together


class Period(NamedTuple):
    """The period as printed (its start to its end) and its start's value."""

    text: str
    start: Value


def obtaining_period(sentence: str) -> Period | None:
    """The period ``sentence`` (one line) invites bidders to obtain the tender documents in, or None."""
    if len(sentence) > LONGEST or not _OBTAIN.search(sentence) or not _DOCUMENT.search(sentence):
        return None
    dates = [(start, end, value) for start, end, value in values_in(sentence, _DATES)]
    for i, (start, end, value) in enumerate(dates):
        if not _WHOLE_DATE.fullmatch(value.normal) or not _INVITED.search(sentence[max(0, start - 6) : start]):
            continue
        until = _UNTIL.match(sentence, end)
        if until is None or len(dates) <= i + 1 or dates[i + 1][0] != until.end():
            return None  # 至 and the period's end must follow the start
        last = dates[i + 1][1]
        tail = _TIME_OF_DAY.match(sentence, last)  # the end's time of day (「23时59分」, 「16:00时」, 「 17:00」)
        text = " ".join(sentence[start : tail.end() if tail else last].split())
        return Period(text, value)
    return None
