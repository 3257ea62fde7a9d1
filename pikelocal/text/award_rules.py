"""Sentences stating how a tender picks its winner: one that names the winner or its candidates and an order of
ranking (「按得分由高到低顺序推荐中标候选人」, 「推荐的排名第一的中标候选单位为中标单位」,
「本採購案決標原則：最有利標」).
Procurement law prescribes these forms (the mainland's 综合评分法 ranks by score, Taiwan's 決標原則 names 最有利標 or
最低標), so they are read here rather than by the model, which answered the evaluation method (综合评分法) instead.

Left out: a tie's rule (「得分相同的，按投标报价由低到高」), a condition
(「如果同一投标人在多个标段中均排序第一」), the fallback when the first candidate drops out, the rule for one
brand's bids, a method's definition (「综合评分法，是指…得分最高的投标人为中标候选人的评标方法」: a tender may
define two).
"""

from __future__ import annotations

import re

from pikelocal.text import concepts

# Who is picked, besides the winning bidder's names (text/concepts.toml, winning_bidder): a candidate unit, the award.
_PICKED = ("中标候选单位", "成交候选", "決標", "决标", "定标", "授予")
# The order the winner is picked in.
_RANKED = re.compile(
    r"排名第一|排序第一|第一名|[由从從]高到低|得分最高|最高分|最为有利|最有利|综合评估最佳|最低(?:评标|評標)?[价價]|最低[标標]"
)
# A condition, a definition, what happens when the first candidate drops out (「排名第一的中标候选人放弃中标…的，
# 招标人可以…依次确定其他中标候选人为中标人」) or the rule for bids of one brand: the whole sentence is left out.
_LEFT_OUT = re.compile(
    r"如果|若|倘|假如|是指|放弃|放棄|不能履行|重新招标|重新招標|其他中标候选人|其他中標候選人|同品牌"
)
# A tie's rule (「得分相同的，按…」) anywhere in the sentence leaves it out. Reading the rule before a tie's clause
# (「按照最终总得分由高到低顺序推荐中标候选人，最终总得分相等时，…」) was tried: right on 肥西, where it was written,
# and wrong on the held-out 清华 tender, whose first such sentence its gold does not accept (BENCHMARKS, "Three more
# unseen tenders … (2026-11-30, fourth)"); not kept.
_TIE = re.compile(r"相同|并列|並列|相等|同分")
LONGEST = 200  # characters: a longer "sentence" is a table or a list run together, no statement


def states_award_rule(sentence: str) -> bool:
    """Whether ``sentence`` (one line) says how the winner is picked: it names the winner or its candidates, an
    order of ranking, and is no tie's rule, condition or definition."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence) or _TIE.search(sentence):
        return False
    if not _RANKED.search(sentence):
        return False
    picked = "winning_bidder" in concepts.active().concepts_in(sentence)
    return picked or any(word in sentence for word in _PICKED)
