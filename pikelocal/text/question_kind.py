"""What a question asks for, told by its words, without an LLM call: the kind of answer it wants (a yes/no or
true/false, a multiple choice, a list, or a factoid: an amount, date, count, duration or name), whether it wants an
overview rather than one fact, whether it wants an article's own words, whether a choice question asks for the option
not stated or for every true statement, and which of two a comparison picks (the earlier or the later).

The kind sets one rule of the quote-first prompt (``prompts/quote.py``) and how the answer is checked
(``query/answer/quote_check.py``: a yes/no answer is checked on its quote being about the question, not on its
words); an overview is read from the summary trees first (``query/answer/modes.py``); an article asked for is
answered with the article (``query/answer/provision.py``); a choice is decided on the sources where it can be
(``query/answer/options_check.py``); a comparison is planned hop by hop
(``query/answer/hop_plan.py``). Patterns cover simplified and traditional Chinese and English; a benchmark's own
instruction ("Answer True or False") counts as part of the question.

Pure: stdlib ``re`` only.
"""

from __future__ import annotations

import re
from typing import Literal

QuestionKind = Literal["factoid", "yesno", "choice", "list"]
ValueAsked = Literal["amount", "date", "duration", "count", "percentage"]  # the review's valued kinds
Order = Literal["earlier", "later"]

# --- the word tables ----------------------------------------------------------------------------------------------

# The words a yes/no question asks with (是否, 有沒有): they ask, they state nothing.
YESNO_WORDS: tuple[str, ...] = ("是否", "有没有", "有沒有", "能否", "可否", "是不是", "对不对", "對不對")
RIGHT_TAILS: tuple[str, ...] = ("对吗", "對嗎")  # "…, right?"
_CORRECT_TAILS: tuple[str, ...] = ("正确吗", "正確嗎")  # "is it correct?"
# A benchmark's true/false instruction: "True or False", "true/false", 正确还是错误.
TRUE_OR_FALSE_EN = r"true(?:\s+or\s+|\s*/\s*)false"
TRUE_OR_FALSE_ZH: tuple[str, ...] = ("正确还是错误", "正確還是錯誤")
# The verbs an English yes/no question opens with.
_YESNO_OPENERS = (
    "is", "are", "was", "were", "does", "do", "did", "can", "could", "may", "must", "shall", "should", "will", "would",
    "has", "have", "had",
)  # fmt: skip
_CHOICE_WORDS: tuple[str, ...] = ("which of the following", "下列", "以下哪", "选项", "選項")
_LIST_WORDS: tuple[str, ...] = ("有哪些", "哪些", "包括什么", "包括什麼", "列出", "列举", "列舉")
# An overview: a summary, or all of something (主要内容, 所有义务, the main obligations).
_OVERVIEW_WORDS: tuple[str, ...] = (
    "总结", "概括", "概述", "归纳", "综述", "梳理", "摘要", "大意", "要点", "有哪些", "哪些方面", "都有什么", "都包括",
    "包括哪些",
)  # fmt: skip
_ALL_OF = ("主要", "全部", "所有", "各项")
_ALL_WHAT = ("内容", "规定", "条款", "义务", "要求", "责任", "风险", "期限", "事项", "条件")
_EN_MAIN_WHAT = ("points", "themes", "obligations", "terms", "issues", "requirements")
_EN_ALL_WHAT = ("obligations", "requirements", "conditions", "deadlines", "parties")
# An article's own words: 的内容是什么, 规定了什么, 原文; "what does … say".
_TEXT_WORDS: tuple[str, ...] = ("内容", "規定", "规定", "原文", "全文", "条文", "條文")
_WHAT_IS: tuple[str, ...] = ("是什么", "是什麼", "为何", "為何", "如何")
_SAID_WHAT: tuple[str, ...] = (
    "规定了什么", "規定了什麼", "怎么规定", "怎麼規定", "如何规定", "如何規定", "说了什么", "說了什麼",
)  # fmt: skip
# A choice question asking for the option the sources do not state ("which … was NOT discussed", 不属于, 未提及); the
# English in capitals or lower case, not as a sentence opens ("Not only …").
_NOT_STATED_VERBS: tuple[str, ...] = (
    "discussed", "mentioned", "included", "listed", "stated", "considered", "referred", "described", "covered",
    "addressed", "raised", "identified",
)  # fmt: skip
_NOT_STATED_ZH: tuple[str, ...] = ("不属于", "不屬於", "不包括", "未提及", "沒有提及", "没有提及", "未涉及")
# A choice question asking which statements are true: every option the sources state is one of its answers.
_STATEMENT_WORDS: tuple[str, ...] = ("说法", "說法", "表述")
# A comparison's order word → which of the two it picks: in time ("came out first") or in age ("is older").
ORDER_WORDS: dict[str, Order] = {
    "first": "earlier", "earlier": "earlier", "earliest": "earlier", "sooner": "earlier",
    "later": "later", "last": "later", "latest": "later", "more recently": "later", "most recently": "later",
}  # fmt: skip
AGE_WORDS: dict[str, Order] = {"older": "earlier", "oldest": "earlier", "younger": "later", "youngest": "later"}


def _alternatives(words: tuple[str, ...] | list[str]) -> str:
    """The words as one pattern that takes the longest of them where one begins another."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


# --- the patterns -------------------------------------------------------------------------------------------------

_CHOICE = re.compile(
    r"(?:^|\n|\s)[（(]?[A-D][)）.、．:：]\s*\S.*(?:\n|\s)[（(]?[B-E][)）.、．:：]\s*\S|" + _alternatives(_CHOICE_WORDS),
    re.IGNORECASE | re.DOTALL,
)
_YESNO = re.compile(
    _alternatives([*YESNO_WORDS, *RIGHT_TAILS, *_CORRECT_TAILS, *TRUE_OR_FALSE_ZH])
    + rf"|[吗嗎][？?]?\s*$|{TRUE_OR_FALSE_EN}|^\s*(?:{_alternatives(_YESNO_OPENERS)})\b",
    re.IGNORECASE,
)
_LIST = re.compile(_alternatives(_LIST_WORDS) + r"|\bwhat are the\b|\blist\b|\bwhich .+ are\b", re.IGNORECASE)
_OVERVIEW = re.compile(
    _alternatives(_OVERVIEW_WORDS)
    + rf"|(?:{_alternatives(_ALL_OF)})(?:的)?(?:{_alternatives(_ALL_WHAT)})"
    + rf"|\bsummar|\boverview\b|\boutline\b|\b(?:main|key) (?:{_alternatives(_EN_MAIN_WHAT)})\b"
    + rf"|\bwhat are (?:all )?the\b|\blist (?:all|the)\b|\ball (?:the )?(?:{_alternatives(_EN_ALL_WHAT)})\b",
    re.IGNORECASE,
)
_ARTICLE_TEXT = re.compile(
    rf"(?:{_alternatives(_TEXT_WORDS)})\s*(?:{_alternatives(_WHAT_IS)})?\s*[？?。]?\s*$|{_alternatives(_SAID_WHAT)}"
    r"|\bwhat\s+does\b.*\b(?:say|provide|state)s?\b|\b(?:text|wording|content)s?\s+of\s+(?:section|article|clause|s)\b",
    re.IGNORECASE,
)


_NOT_STATED = re.compile(
    rf"\b(?:NOT|not|n't)\s+(?:\w+\s+){{0,2}}?(?:{_alternatives(_NOT_STATED_VERBS)}"
    r"|among|one\s+of|part\s+of|a\s+(?:component|part|ground))\b"
    rf"|\bEXCEPT\b|\bexcept\b|{_alternatives(_NOT_STATED_ZH)}|不是[^，,。]{{0,12}}的是",
)
_STATEMENTS = re.compile(
    r"\bstatements?\b|\b(?:is|are)\s+(?:true|correct)\b|\b(?:true|correct)\s+statements?\b"
    rf"|{_alternatives(_STATEMENT_WORDS)}|(?:正确|正確)的(?:是|有)",
    re.IGNORECASE,
)


# The kind of figure a question asks for, in the order they are tried: a share before an amount ("占合同价款的比例"),
# a date before a period ("履约期限到何时" wants the day), a period before a count ("how many days").
_ASKED_VALUE: tuple[tuple[ValueAsked, re.Pattern[str]], ...] = (
    (
        "percentage",
        re.compile(
            r"比例|比率|百分之[几幾]|百分比|权重|權重|配分|[占佔][^，,。？?]{0,8}(?:多少|[几幾])"
            r"|\b(?:what|which) (?:percentage|share|proportion)\b|\bpercent|\bweight(?:ing)?\b",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            r"何[时時]|什[么麼][时時]候|哪一?天|[几幾]月[几幾][日号號]|日期|截止[时時][间間]"
            r"|\bwhen\b|\bwhat date\b|\bwhich date\b|\bby when\b",
            re.I,
        ),
    ),
    (
        "duration",
        re.compile(
            r"多久|多[长長][时時][间間]|[几幾][个個]?(?:天|日|月|年|星期|周|週|小[时時]|工作日|分[钟鐘])"
            r"|多少(?:天|日|个月|個月|年|小[时時]|分[钟鐘])|\bhow long\b"
            r"|\bhow many (?:days|weeks|months|years|hours|minutes)\b",
            re.I,
        ),
    ),
    ("count", re.compile(r"[几幾多少][个個]?[人份家项項名位次页頁件本条條套]|\bhow many\b|\bnumber of\b", re.I)),
    (
        "amount",
        re.compile(
            r"金[额額]|多少[钱錢]|[费費]用|[价價]格|[预預]算|保[证證]金|押[标標]金|[价價][款金]|[报報][价價]"
            r"|\bhow much\b|\bamount\b|\bprice\b|\bfee\b|\bbudget\b|\bcost\b",
            re.I,
        ),
    ),
)


def asked_value(question: str) -> ValueAsked | None:
    """The kind of figure the question asks for (an amount, a date, a count, a duration, a percentage), or None
    when it asks for none (a name, a method, a yes or no)."""
    if question_kind(question) != "factoid":
        return None
    return next((kind for kind, pattern in _ASKED_VALUE if pattern.search(question)), None)


def question_kind(question: str, instruction: str = "") -> QuestionKind:
    """The kind of answer ``question`` (with a benchmark's ``instruction``) asks for."""
    text = f"{question}\n{instruction}".strip()
    if _CHOICE.search(text):
        return "choice"
    if _YESNO.search(question) or _YESNO.search(instruction):
        return "yesno"
    return "list" if _LIST.search(question) else "factoid"


def is_overview(question: str) -> bool:
    """Whether ``question`` asks for a summary or for all of something (not one fact)."""
    return bool(_OVERVIEW.search(question))


def asks_article_text(question: str) -> bool:
    """Whether ``question`` asks for an article's own words ("第十九条的内容是什么？", "What does section 54 say?")
    rather than a fact in it."""
    return bool(_ARTICLE_TEXT.search(question.strip()))


def asks_not_stated(stem: str) -> bool:
    """Whether a choice question's ``stem`` asks for the option the sources do not state ("Which of these was NOT
    discussed?", "下列不属于投标文件组成部分的是")."""
    return _NOT_STATED.search(stem) is not None


def asks_which_statements(stem: str) -> bool:
    """Whether a choice question's ``stem`` asks which statements are true ("Which statements are correct?",
    "下列说法正确的是"): then every option stated in the sources is one of its answers."""
    return _STATEMENTS.search(stem) is not None


def order_asked(word: str | None) -> Order | None:
    """Which of two a comparison's order word picks: "first", "older" → the earlier; "last", "younger" → the
    later; None for any other word."""
    if word is None:
        return None
    return ORDER_WORDS.get(word) or AGE_WORDS.get(word)
