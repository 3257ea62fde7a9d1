"""Sentences stating how the bid is bound: 「投标文件须用A4纸胶装成册」, 「正本和副本应分别胶订或线订，左侧装订」,
「服務建議書以 A4 紙張直式橫書，左側裝訂」, 「投标文件不得采用活页夹装订」.

Binding is a closed list of ways (胶装, 胶订, 线订, 骑马钉, 左侧装订, 装订成册, 活页, and the paper: A4), so the
sentence is one naming a way and the bid (投标文件, its 正本 or 副本, the proposal). The model, shown such a
sentence among the sources, answered with the bid's signature or sealing rules, or the number of copies (the
sentence beside it). Left out: a sentence about another document bound (竣工资料, 档案, the contract), a table or a
list run together (longer than ``LONGEST``), and one that only points elsewhere (「装订要求见…」).
"""

from __future__ import annotations

import re

from pikelocal.text.sentences import POINTS_ELSEWHERE

# The ways a bid is bound, the named ones (glue, thread, stitches, the paper) before the general (「装订成册」): a
# document saying 「分别装订成册」 in one clause and 「胶装」 in another binds it with glue.
_NAMED_WAY = re.compile(
    r"胶装|膠裝|胶订|膠訂|胶粘|膠黏|线订|線訂|线装|線裝|骑马钉|騎馬釘|A4\s*(?:纸|紙|规格|規格|幅面|大小|尺寸)"
)
_WAY = re.compile(r"左侧装订|左側裝訂|装订成册|裝訂成冊|装订成一册|裝訂成一冊|活页|活頁")
_BID = re.compile(
    r"投标文件|投標文件|响应文件|響應文件|磋商文件|应答文件|應答文件|建议书|建議書|企劃書|企划书|正本|副本|标书|標書"
)
_LEFT_OUT = re.compile(rf"竣工|档案|檔案|合同|契約|结算|結算|{POINTS_ELSEWHERE}")
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def binding_form(sentence: str, named: bool = True) -> str | None:
    """``sentence`` (one line) where it states how the bid is bound, its spaces folded; else None. ``named``: only a
    named way (glue, thread, the paper); else any (「装订成册」 too)."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence) or _BID.search(sentence) is None:
        return None
    if _NAMED_WAY.search(sentence) is None and (named or _WAY.search(sentence) is None):
        return None
    return " ".join(sentence.split())
