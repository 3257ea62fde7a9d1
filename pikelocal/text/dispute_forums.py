"""Clauses naming where the parties' disputes over the contract go: a court (「向甲方所在地人民法院提起诉讼」) or an
arbitration commission (「向马鞍山仲裁委员会申请仲裁」), after talks (协商) where the clause says so.

The clause must name a dispute (争议, 纠纷, 爭議) or the talks over it failed (协商不成), and the forum it is
brought to (向…法院, 提交…仲裁, 管辖, 起诉); a clause naming litigation only in passing (「诉讼期间，合同其余部分
继续履行」) names none. Left out: a bidder's challenge or complaint about the procurement (质疑, 投诉, 行政复议,
行政诉讼: the procurement law's remedies, in every mainland tender's notice), an option not ticked
(「□提交仲裁委员会仲裁」), the parties' addresses for serving papers in a dispute (送达地址), a blank forum
(「向＿＿＿仲裁委员会」), and a clause leaving the forum to the contract (「按合同约定」). The model, shown the dispute
clause, answered with the challenge procedure or not stated.
"""

from __future__ import annotations

import re

# A dispute named, or the talks over it failed (「协商不成的，…向…法院提起诉讼」: the clause's second half, split
# from the first at its semicolon).
_DISPUTE = re.compile(
    r"争议|纠纷|爭議|糾紛|爭端|争端|协商不成|協商不成|协商解决不成|達不成協議|达不成协议|不能[通透]过[友好]*协商|无法协商|協議不成|协商无法解决|協商無法解決|协商未果|協商未果"
)
# The forum the disputes go to: a court or an arbitration body named as where they are brought.
_FORUM = re.compile(
    r"向[^，,。；;]{0,30}(?:法院|仲裁)|提[起交请請][^，,。；;]{0,20}(?:诉讼|訴訟|仲裁)|申[请請]仲裁|管[辖轄]|起[诉訴]|[为為][^，,。；;]{0,12}法院"
)
_LEFT_OUT = re.compile(
    r"质疑|質疑|投诉|投訴|复议|復議|行政诉讼|行政訴訟|申诉|申訴|异议|異議|[□☐]|[_＿]{2,}|\s{4,}|按合同约定|依合同约定|送达|送達"
)
LONGEST = 200  # characters: a longer "sentence" is a table or a list run together


def dispute_forum(sentence: str) -> str | None:
    """``sentence`` (one line) without its spaces where it names the forum of the contract's disputes, or None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence):
        return None
    if _DISPUTE.search(sentence) is None or _FORUM.search(sentence) is None:
        return None
    return " ".join(sentence.split())
