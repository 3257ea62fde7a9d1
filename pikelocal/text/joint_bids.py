"""Sentences refusing joint bids: 「本项目不接受联合体投标」, 「本项目不允许联合体投标」, 「3.2 本次招标（不接受）联合体
投标」, 「本项目是否接受联合体投标：不允许联合体」, 「联合体投标 | 不接受」, Taiwan's 「本機關「不允許」投標廠商以
「共同投標」方式參與」, "Joint ventures will not be accepted".

A tender's answer to "are joint bids accepted?" is then no. Left out: a sentence that accepts them
(「接受联合体投标」, 「允许联合体投标的，…」 conditions), a rule for the members of a consortium where one is allowed
(「联合体各方不得再单独投标」: the members of an accepted consortium), a choice left to the bidder's form
(「□接受 □不接受」, read by the ticked-box reader), and a sentence about another party (「不接受联合体的…分包」).
"""

from __future__ import annotations

import re

_CONSORTIUM = r"(?:联合体|聯合體|联合投标|聯合投標|共同投標|共同投标|joint[- ]venture|consortium|joint bid)"
_REFUSED = r"(?:不接受|不允许|不允許|不得|不准|不可|不能|不予接受|拒绝|拒絕|禁止|不适用|不適用)"
_NO = re.compile(
    rf"{_REFUSED}[」』”\")）]?[^，,。；;：:]{{0,12}}{_CONSORTIUM}"
    rf"|{_CONSORTIUM}[^，,。；;]{{0,10}}[：:|｜]\s*(?:否|不接受|不允许|不允許|无|無|不适用|不適用)"
    rf"|(?i:{_CONSORTIUM}s?\s+(?:will|shall|are|is)\s+not\s+(?:be\s+)?(?:accepted|allowed|permitted))",
    re.IGNORECASE,
)
# 「联合体各方不得…」, 「联合体成员不得再单独投标」: a rule for the members, which only applies where one is allowed.
_MEMBERS = re.compile(r"(?:联合体|聯合體|共同投標)\s*(?:各方|成员|成員|牵头|牽頭|协议|協議|中的)")
# 「□接受 ■不接受」: a form's boxes, the ticked-box reader's
_BOXES = re.compile(r"[□☐■☑√✓✔]")
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def refuses_joint_bids(sentence: str) -> bool:
    """Whether ``sentence`` (one line) says joint bids are not accepted."""
    if len(sentence) > LONGEST or _BOXES.search(sentence) or _MEMBERS.search(sentence):
        return False
    return _NO.search(sentence) is not None
