"""Sentences announcing when and where the bids are opened:
「本次招标将于 2024-11-26 09:00:00 时整在上海市宝山区友谊支路238 号 4 楼开标室开标」,
「兹定于2026年5月25日9:30时，在上海市静安区延安西路358号…会议室公开开标」,
「本次磋商将于2024-12-23 09:30:00时整在…开启」,
「兹定于 2026年08月11日9时30分…在北京市丰台区…会议室进行公开征询会议」.

An announcement is a date after 将于, 定于 or 兹定于, then 在 and a place, then the opening's verb (开标, 开启, 唱标,
解密, a public session of the procurement) within the sentence. The date is the opening's, the place the words
between 在 and the verb (less a trailing 进行 or 公开). A sentence about another event (a site visit, a pre-bid
meeting, a clarification) names it before the date and is left out.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text.values import values_in

_ANNOUNCED = re.compile(r"(?:兹定于|定于|将于|將於|拟于|擬於)\s*$")
_OPENED = re.compile(r"开标|開標|开启|開啟|唱标|唱標|解密|公开征询|公开磋商|公开谈判|公开询比")
_OTHER_EVENT = re.compile(r"踏勘|勘察|勘查|预备会|預備會|答疑|澄清|质疑|質疑|签约|簽約|公示|报名|報名|获取|領取|领取")
# 在, the place, then the opening's verb (the last in the clause: 「4 楼开标室开标」 is opened in the 开标室)
_PLACE = re.compile(r"[，,]?\s*在\s*(?P<place>[^，,。；;]{4,80})(?=" + _OPENED.pattern + ")")
_PLACE_TAIL = re.compile(r"(?:\s*(?:进行|進行|公开|公開))+\s*$")
_WEB_NOTE = re.compile(r"[（(][^（）()]*(?:https?:|www\.)[^（）()]*[)）]")  # 「开标室（http://www.zfcg.sh.gov.cn）」
_DATES: tuple[ValueKind, ...] = ("date",)
_WHOLE_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"[^，,。；;在]{0,30}?(?=[，,]?\s*在)")  # the time of day after the date, up to 在
LONGEST = 400  # characters: a longer "sentence" is a table or a list run together (an announcement with its
# contacts and their mail addresses runs to 300)


class Opening(NamedTuple):
    """The opening's date (as printed, and its value) and place, from one announcing sentence."""

    when: str
    date: Value
    place: str


def opening_announced(sentence: str) -> Opening | None:
    """The bid opening ``sentence`` (one line) announces, or None."""
    if len(sentence) > LONGEST or not _OPENED.search(sentence):
        return None
    for start, end, value in values_in(sentence, _DATES):
        if not _WHOLE_DATE.fullmatch(value.normal) or not _ANNOUNCED.search(sentence[max(0, start - 6) : start]):
            continue
        if _OTHER_EVENT.search(sentence[:start]):
            return None
        time = _TIME.match(sentence, end)
        after = time.end() if time else end
        place = _PLACE.match(sentence, after)
        if place is None:
            return None
        when = " ".join(sentence[start:after].split()).rstrip("，,")
        where = _PLACE_TAIL.sub("", _WEB_NOTE.sub("", place["place"]))
        return Opening(when, value, " ".join(where.split()))
    return None
