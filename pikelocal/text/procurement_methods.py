"""Sentences naming the procurement method a tender is run by: 「现对该项目进行国内公开招标」,
「本次招标采取公开招标方式」, 「进行国内公开竞争性磋商」, 「现招标方式为竞争性磋商」,
「招標方式為限制性招標（公開評選）」, 「辦理公開評選」, a form's ticked option opening its line
(「■2.公開取得書面報價或企劃書。」).

Procurement law names the methods (the mainland's 公开招标, 邀请招标, 竞争性谈判, 竞争性磋商, 单一来源采购, 询价,
and the state enterprises' own 公开询比;
Taiwan's 公開招標, 選擇性招標, 限制性招標 and its 公開評選, 公開取得報價單), so the method is one of a closed list, and
the sentence is one that says this procurement is run by it: a verb of running it (进行, 采用, 采取, 辦理) or the
method's label with 为/為/是 or a colon. The model, shown such a sentence, drafted the method, and the checks left it
to check or withdrew it (the sentence names 招标 but not 采购方式).

Left out: a rule of law or a condition (「采用公开招标方式以外的采购方式」, 「依法必须进行招标的项目」, 「如采用竞争性
谈判…」), a negation (「不采用…」), and a method named alone (a document's title 「公开招标文件」, 「投標及評選」).
"""

from __future__ import annotations

import re

from pikelocal.text.ticked_options import TICKED

# The methods, longest first where one holds another (单一来源采购 before 单一来源).
METHODS = (
    "公开招标",
    "邀请招标",
    "邀约招标",
    "竞争性谈判",
    "竞争性磋商",
    "单一来源采购",
    "单一来源",
    "询价采购",
    "询价",
    "公开询比",
    "邀请询比",
    "询比采购",
    "询比",
    "公開招標",
    "選擇性招標",
    "限制性招標",
    "公開評選",
    "公開取得報價單",
    "公開取得書面報價",
    "公開取得企劃書",
)
_METHOD = "|".join(re.escape(m) for m in METHODS)
# This procurement run by a method: a verb of running it, or its label stating it.
_RUN_BY = re.compile(
    rf"(?:进行|采用|采取|实行|辦理|办理|採用|採取|進行)的?(?:国内|國內|本次|第[一二三四五六七八九十0-9]次)?(?:公开|公開)??(?P<run>{_METHOD})"
    rf"|(?:招标|采购|招標|採購)(?:方式|形式)\s*(?:为|為|是|采用|採用|[：:])\s*(?P<labelled>{_METHOD})"
    rf"|以(?:国内|國內)?(?P<by>{_METHOD})(?:的)?(?:方式|形式)(?:进行|進行|组织|組織|实施|實施|采购|採購|办理|辦理)"
    rf"|^[{TICKED}]\s*(?:\d{{1,2}}\s*[.、．]|[(（][一二三四五六七八九十\d]{{1,3}}[)）])?\s*(?P<ticked>{_METHOD})"
)
# A rule of law, a condition or a negation: no statement of this procurement's method.
_LEFT_OUT = re.compile(r"以外|如果|如|若|倘|除|可以|可採|可采|应当|應|必须|必須|是指|不采用|不採用|不得|的项目|之採購")
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def method_named(sentence: str) -> str | None:
    """The procurement method ``sentence`` (one line) says this procurement is run by, as printed, or None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence):
        return None
    found = _RUN_BY.search(sentence)
    if found is None:
        return None
    return found.group("run") or found.group("labelled") or found.group("by") or found.group("ticked")
