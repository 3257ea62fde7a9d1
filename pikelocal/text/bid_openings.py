"""Sentences announcing when and where the bids are opened:
「本次招标将于 2024-11-26 09:00:00 时整在上海市宝山区友谊支路238 号 4 楼开标室开标」,
「兹定于2026年5月25日9:30时，在上海市静安区延安西路358号…会议室公开开标」,
「本次磋商将于2024-12-23 09:30:00时整在…开启」,
「兹定于 2026年08月11日9时30分…在北京市丰台区…会议室进行公开征询会议」.

An announcement is a date after 将于, 定于 or 兹定于, then 在 and a place, then the opening's verb (开标, 开启, 唱标,
解密, a public session of the procurement) within the sentence. The date is the opening's, the place the words
between 在 and the verb (less a trailing 进行 or 公开). A sentence about another event (a site visit, a pre-bid
meeting, a clarification) names it before the date and is left out.

An electronic procurement opens at its deadline: 「本项目将于上述应答截止时间的同一时间在中国移动电子
采购与招投标系统进行唱价」, 「将于响应文件提交截止同一时间通过中国电信电子采购系统开启响应文件」. Such a
sentence names the deadline it opens at (:func:`opening_at_deadline`) and the place (after 在 or 通过); the date is
the deadline's, read from the first sentence that gives that deadline a whole date (:func:`deadline_date`:
「应答截止时间为 2025 年 07 月 10 日 09 时 00 分」).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pikelocal.domain.review import Value, ValueKind
from pikelocal.text.values import values_in

_ANNOUNCED = re.compile(r"(?:兹定于|定于|将于|將於|拟于|擬於)\s*$")
_OPENED = re.compile(r"开标|開標|开启|開啟|唱标|唱標|唱价|唱價|解密|公开征询|公开磋商|公开谈判|公开询比")
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


class AtDeadline(NamedTuple):
    """An opening at a deadline's own time: the deadline as the sentence names it, the phrase, and the place."""

    deadline: str
    when: str
    place: str


# 将于 (上述) the deadline (的) 同一时间: the deadline named by its words up to 截止 (「应答截止时间」,
# 「响应文件提交截止」)
_AT_DEADLINE = re.compile(
    r"(?:将于|將於|定于|定於|拟于|擬於)\s*(?:上述|前述|上列)?\s*(?P<deadline>[^，,。；;\s]{1,16}?截止(?:时间|時間|日期)?)"
    r"\s*(?:的|之)?\s*同一?(?:时间|時間|时刻|時刻)"
)
# then 在 or 通过 and the place, up to the opening's verb (「…系统进行唱价」, 「…系统开启响应文件」)
_AT_PLACE = re.compile(
    r"\s*(?:在|通过|通過|于|於)\s*(?P<place>[^，,。；;]{4,60}?)(?=(?:进行|進行)?\s*(?:" + _OPENED.pattern + "))"
)
_DEADLINE_WORD = re.compile(r"截止(?:时间|時間|日期)?$")


def opening_at_deadline(sentence: str) -> AtDeadline | None:
    """The opening ``sentence`` (one line) says is held at a deadline's own time and where, or None."""
    if len(sentence) > LONGEST or not _OPENED.search(sentence):
        return None
    m = _AT_DEADLINE.search(sentence)
    if m is None or _OTHER_EVENT.search(sentence[: m.start()]):
        return None
    place = _AT_PLACE.match(sentence, m.end())
    if place is None:
        return None
    where = _PLACE_TAIL.sub("", _WEB_NOTE.sub("", place["place"]))
    return AtDeadline(m["deadline"], " ".join(sentence[m.start() : m.end()].split()), " ".join(where.split()))


def deadline_date(sentence: str, deadline: str) -> tuple[str, Value] | None:
    """The whole date ``sentence`` gives the deadline named ``deadline`` (「应答截止时间」: 「应答截止时间为
    2025 年 07 月 10 日 09 时 00 分」, 「响应文件提交截止时间（即响应截止时间）：2025年12月18日…」): the date
    as printed and its value; None where no date follows the deadline's words within its clause."""
    key = "".join(_DEADLINE_WORD.sub("", deadline).split())
    flat = sentence.replace(" ", "")
    if not key or key + "截止" not in flat:
        return None
    for start, end, value in values_in(sentence, _DATES):
        before = "".join(re.split(r"[，,。；;]", sentence[max(0, start - 40) : start])[-1].split())
        if _WHOLE_DATE.fullmatch(value.normal) and key + "截止" in before and not _OTHER_EVENT.search(before):
            return " ".join(sentence[start:end].split()), value
    return None
