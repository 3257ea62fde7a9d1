"""Clauses saying a security or a payment is not asked for: 「本项目不收取投标保证金」,
「押標金：本採購案未收取押標金」, 「投标保证金数额：/（本项目不适用于保证金）」, 「15 磋商保证金 无」,
「3.2.1 预付款：无」, 「本项目无预付款或定金」.

A clause is the text between two commas or stops; it must name one of the asked concepts (``text/concepts.py``), say
there is none, and hold no figure, condition or permission: 「招标人可免收履约保证金」 allows a waiver, it does not
make one, and 「未按规定提交投标保证金的」 is a condition.
"""

from __future__ import annotations

import re

from pikelocal.text import concepts

_CUT = re.compile(r"[，,；;。|]")  # a table's cells too: 「| 8 | 磋商保证金 | 本项目不收取磋商保证金。 |」
LONGEST = 40  # characters: a longer clause says more than that there is none
# Words saying none is asked for.
_NONE = re.compile(
    r"不收取|未收取|免收|免予收取|无需|無需|不需|毋须|毋須|不要求|不适用|不適用|免繳|免缴|不设|不設|不提供|不支付"
)
_BARE_NONE = re.compile(r"[：:\s][ \t]*[无無][ \t]*$")  # 「预付款：无」, a table row's 「磋商保证金 无」
_NO_BEFORE = re.compile(r"(?:[无無]|没有|沒有)(?=[\u4e00-\u9fff]{2})")  # 「无预付款」, 「無押標金」: the term after it
_FIGURE = re.compile(r"\d|[一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾]+[万萬元%]|百分之")
_LIST_NUMBER = re.compile(r"^[ \t]*(?:[\d.]+|[一二三四五六七八九十]+)[、.．)）]?[ \t]*")
_CONDITION = re.compile(r"如|若|否则|否則|未按|不按|逾期|之前|以外|可|得")
_INTEREST = re.compile(r"利息|计息|計息")  # 「不支付投标保证金的利息」: the bond's interest is waived, not the bond
# What a term may be followed by to name a rule about the thing, not the thing: 「不適用押標金減收規定」 says a
# reduction of the bond does not apply, not that there is no bond.
_ASPECT_AFTER = re.compile(
    r"\s*(?:之|的)?\s*(?:减收|減收|减免|減免|退还|退還|返还|返還|规定|規定|办法|辦法|条款|條款|程序)"
)


def waiver_clause(sentence: str, wanted: frozenset[str]) -> str | None:
    """The first clause of ``sentence`` saying there is none of one of the ``wanted`` concepts, as printed (its
    list number kept); None where there is none."""
    for clause in _CUT.split(sentence):
        clause = clause.strip()
        if not clause or len(clause) > LONGEST:
            continue
        named = concepts.active().concepts_in(clause) & wanted
        if not named or _CONDITION.search(clause) or _INTEREST.search(clause) or _rule_about(clause, named):
            continue
        if _FIGURE.search(_LIST_NUMBER.sub("", clause)):
            continue
        if _NONE.search(clause) or _BARE_NONE.search(clause) or _no_before_term(clause, named):
            return clause
    return None


def _no_before_term(clause: str, named: frozenset[str]) -> bool:
    """Whether 无 or 没有 stands right before a term of a named concept (「本项目无预付款或定金」)."""
    folded = concepts.fold(clause)
    for m in _NO_BEFORE.finditer(folded):
        rest = folded[m.end() :]
        if any(rest.startswith(concepts.fold(term)) for c in named for term in concepts.names(c)):
            return True
    return False


def _rule_about(clause: str, named: frozenset[str]) -> bool:
    """Whether every term of a named concept in the clause is followed by a rule about it (「押標金減收規定」,
    「保证金退还办法」): what the clause says there is none of is that rule, not the thing."""
    folded = concepts.fold(clause)
    ends = [end for _start, end in concepts.term_spans(folded, named)]
    return bool(ends) and all(_ASPECT_AFTER.match(folded, end) for end in ends)
