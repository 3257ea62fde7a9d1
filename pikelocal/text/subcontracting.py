"""Sentences forbidding the winner to subcontract the work: 「本项目不允许分包转包」, 「不接受联合体投标，不允许分包、
转包」, 「非经采购单位同意，不得转包、分包服务内容」, a form's 「转包：否 分包：否」, 「未经甲方书面同意，不得转委托」.

A tender's answer to "may the work be subcontracted?" is then no (a consent the purchaser may give is the exception
every such clause allows, and the gold sheets read it as no). Left out: a sentence that also allows it
(「本案不得轉包，但得分包」: a transfer of the whole is forbidden, a subcontract allowed; Taiwan's
「不得將契約之全部或其主要部分…分包」, which leaves the other parts free), a rule about the subcontractors themselves
(「不得以不具備…能力之廠商作為分包廠商」, 「不允許以分包廠商取代部分投標廠商資格」: subcontracting is allowed
there; 「不得參加投標或作為決標對象或分包之廠商」: who may not be one), and lots (「未划分包件」, 「本项目是否分包别」:
包 is a lot there, not a subcontract).
"""

from __future__ import annotations

import re

# 包 as a lot: 划分包件, 分包件, 包别 — blanked before the sentence is read.
_LOTS = re.compile(r"划分包|劃分包|分包件|包件|分包别|分包別|包别|包別")
_FORBIDDEN = re.compile(
    r"(?:不得|不允许|不允許|不准|禁止|严禁|嚴禁|不可|不能|不接受)[^，,。；;：:]{0,16}(?:分包|转委托|轉委託)"
    r"|分包\s*[：:]\s*(?:否|不允许|不允許|无|無)"
)
_ALLOWED = re.compile(r"(?:但|惟)[^，,。；;]{0,4}(?:得|可|允许|允許)[^，,。；;]{0,4}分包|可以分包|可分包|主要部分")
# A rule about the subcontractors themselves: subcontracting is allowed where it is made.
_SUBCONTRACTORS = re.compile(r"分包(?:之|的)?(?:廠商|厂商|商|單位|单位|人)")
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def forbids_subcontracting(sentence: str) -> bool:
    """Whether ``sentence`` (one line) forbids the work to be subcontracted, and allows no part of it."""
    if len(sentence) > LONGEST:
        return False
    read = _LOTS.sub("＿", sentence)
    if _SUBCONTRACTORS.search(read):
        return False
    return _FORBIDDEN.search(read) is not None and _ALLOWED.search(read) is None
