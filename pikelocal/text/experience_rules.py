"""Sentences stating the bidder's past performance asked for or scored: 「近3年内…具有至少1项为金融机构提供人员外包
的业绩经验」, 「投标人自2020年1月1日起…具有外文原版报刊项目销售业绩，每提供一套…得1分」, 「3.1.3 投标人业绩要求：
无。」, 「於截止投標日前 3 年內 1,000 萬以上大型軟體系統建置案實績」.

The sentence names past work (业绩, 类似项目, 同类项目, 案例, 實績) and bounds it: a period (近3年, 自2020年1月1日起,
至今), a number (至少, 不少于, 1个, 2项), points for each one, or that none is asked (「业绩要求：无」).
The model, shown the sources, answered with the proof's paperwork or a project manager's record.
Left out: a person's record (项目经理, 负责人, 实施人员, 专家), a list of what the bid holds
(「资格、信誉、荣誉、业绩」), how they are counted (「按一项业绩计分」), and a longer "sentence" (a table run
together).
"""

from __future__ import annotations

import re

_WORK = re.compile(
    r"业绩|業績|实绩|實績|类似项目|類似項目|同类项目|同類項目|类似专案|類似專案|成功案例|有效案例|项目案例|同类案例"
)
_BOUND = re.compile(
    r"近\s*[\d一二三四五六七八九十]+\s*[年个個]|[\d一二三四五]+\s*年[内內以]|自\s*\d{4}\s*年"
    r"|\d{4}\s*年[^，,。；;]{0,12}(?:起|至今|以来|以來)|至今|至少|不少于|不少於|不低于|不低於|[\d一二三四五六七八九十]+\s*(?:个|個|项|項|例|份|套)|得\s*[\d.]+\s*分"
)
_NONE_ASKED = re.compile(r"(?:业绩|業績|实绩|實績)(?:要求)?\s*[:：]\s*(?:无|無|不要求|不作要求)\s*[。.]?\s*$")
_LEFT_OUT = re.compile(
    r"项目经理|項目經理|负责人|負責人|(?:实施|實施|技术|技術|服务|服務|驻场|駐場|项目|項目|拟派|擬派|專案)人[员員]"
    r"|主持人|专家|專家|顾问|顧問|工程师|工程師|按一项|按一項|[、，,]\s*(?:业绩|業績)\s*[、，,与與和及]"
)
LONGEST = 160  # characters: a longer "sentence" is a table or a list run together


def experience_rule(sentence: str) -> str | None:
    """``sentence`` (one line) where it states the past performance asked of the bidder, its spaces folded; else
    None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence) or _WORK.search(sentence) is None:
        return None
    if _BOUND.search(sentence) is None and _NONE_ASKED.search(sentence) is None:
        return None
    return " ".join(sentence.split())
