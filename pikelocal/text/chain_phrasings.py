"""How a reviewer's question names a chain of two readings, as data, in Chinese (simplified and traditional) and
English: the table ``query/answer/chain_plan.py`` plans with and ``query/answer/chain_hop.py`` reads with. The
benchmark's phrasings are another table (``text/hop_phrasings.py``).

Three chains, tried in this order:

- ``cited_article``: a clause → the article of the document it cites → that article's figure. The question asks
  which article (第几条, 哪一条, "which clause") and a figure ("投标保证金按第几条的规定退还？退还期限是多少？").
- ``two_documents``: an amount (or another figure) in one document against another's. The question names two
  documents by their role (招标文件, 投标文件; the tender, the bid) and asks whether one item agrees
  ("招标文件与投标文件中的投标保证金是否一致？", "Does the bid bond in the bid match the tender's?").
- ``deadline``: a date counted from another event's date. The question asks for the last day of something
  ("交货的截止日期是哪一天？", "By what date must the goods be delivered?"), not a period besides; the chain goes
  on only where the clause that answers counts it forward from an event ("合同签订之日起30日内", "within 30 days
  after the signing of the contract") whose date is stated elsewhere.

A question none of these patterns match gets no chain and takes the ordinary path. Patterns are matched on the
question with its spaces collapsed, case-insensitively; Chinese patterns list both scripts.
"""

from __future__ import annotations

from typing import Literal

ChainKind = Literal["cited_article", "two_documents", "deadline"]
Role = Literal["tender", "bid"]

# ---- which questions take a chain --------------------------------------------------------------------------------

# The question asks which article or clause governs something.
ASKS_ARTICLE: tuple[str, ...] = (
    r"第[几幾]条|第[几幾]條|哪一?[条條]|何[条條]|哪[个個]?条款|哪[个個]?條款|所(?:引用|援引|依据|依據)的?[条條]",
    r"\b(?:which|what) (?:clause|article|section)\b"
    r"|\bthe (?:clause|article|section) (?:that )?it (?:cites|refers to)\b",
)
# The question asks for the last day by which something must happen (a date, not a period). A time that closes
# a procedure ("投标截止时间是什么时候？") is an event's own time, stated, not counted: 截止 and 到期 count only
# with a day asked ("截止日期是哪一天").
ASKS_DEADLINE: tuple[str, ...] = (
    r"(?:最迟|最遲|最晚)[^？?，,]{0,10}(?:哪一?天|何[时時日]|什[么麼]时候|什[么麼]時候|日期|[几幾]月[几幾][日号號])",
    r"(?:截止|到期)日(?:期)?[^？?，,]{0,4}(?:哪一?天|[几幾]月[几幾][日号號]|何日)",
    r"(?:哪一?天|何[时時日]|日期)[^？?，,]{0,4}(?:之?前|以前)",
    r"\b(?:by|before) (?:what|which) date\b|\b(?:what|which) is the (?:last day|deadline|due date)\b"
    r"|\bwhat date is the [a-z ]*(?:deadline|due date)\b|\bby when\b",
)
# A question that also asks for a period ("多少天", "how many days") wants the period, not a day counted with it.
ASKS_PERIOD_TOO = r"多少天|多少日|[几幾][天日]|多久|多[长長]时间|多[長长]時間|\bhow (?:many|long)\b"
# The words that ask for the figure beside an ask for an article ("退还期限是多少", "what percentage"): without
# one, "…为三年的是第几条" asks only which article states something, and is no chain.
ASKS_FIGURE = r"多少|[几幾]|多久|多[长長]|何时|何時|什[么麼]|\bhow\b|\bwhat\b"
# Two documents and one item asked to agree ("投标保证金在投标文件和招标文件中是否相同" tried first, its 在 telling
# the item from the documents): (pattern with (?P<a>…), (?P<b>…) naming the documents by a word of
# DOCUMENT_ROLES and (?P<item>…) the item compared). {DOC} stands for any document word, {YESNO} for the words a
# yes/no question asks with (``text/question_kind.YESNO_WORDS``: 是否, 有沒有 …).
TWO_DOCUMENTS: tuple[str, ...] = (
    r"(?P<item>[^，,。？?的]{2,16}?)在(?P<a>{DOC})(?:与|與|和|跟|及)(?P<b>{DOC})(?:中|里|裡|内|內)?"
    r"(?:{YESNO})?(?:一致|相同|相符|吻合)",
    r"(?P<a>{DOC})(?:与|與|和|跟|及)(?P<b>{DOC})(?:中|里|裡|内|內|所[载載]|[载載]明)?的?"
    r"(?!{YESNO})(?P<item>[^，,。？?的]{2,16}?)"
    r"(?:{YESNO})?(?:一致|相同|相符|吻合)",
    r"^does the (?P<item>[a-z ]{3,40}?) (?:in|of|stated in) the (?P<a>{DOC}) (?:match|agree with|equal)"
    r" (?:that (?:in|of) )?the (?P<b>{DOC})(?:['’]s)?\s*\??$",
    r"^(?:is|are) the (?P<item>[a-z ]{3,40}?) (?:in|of|stated in) the (?P<a>{DOC}) (?:the same as|consistent with)"
    r" (?:that (?:in|of) |in )?the (?P<b>{DOC})(?:['’]s)?\s*\??$",
)
# A document's role → the concept group that names it (``text/concepts.toml``: 招标文件, 採購文件, 需求說明書,
# invitation to tender …; 投标文件, 服務建議書, bid documents …) and the bare words a question also names it by ("the
# bid", "the tender's"), which the groups leave out: alone, in a document's text, they name no document.
DOCUMENT_ROLES: dict[Role, tuple[str, tuple[str, ...]]] = {
    "tender": ("tender_documents", ("tender", "rfp")),
    "bid": ("bid_documents", ("bid", "offer")),
}

# The kind of figure a word of the question asks for where ``text/question_kind.asked_value`` does not tell it
# (its own words are not repeated here): 期限 and "period" are a period, a bond or a deposit an amount.
FIGURE_WORDS: tuple[tuple[str, str], ...] = (
    ("duration", r"期限|期间|期間|工期|天数|天數|\bperiod\b|\btime limit\b|\bwithin how\b"),
    ("amount", r"\bbond\b|\bdeposit\b|\bsecurity\b|\bsum\b"),
)

# ---- how the hops read ------------------------------------------------------------------------------------------

# The sub-questions each hop asks, by language ({item}: what the question asks about; {event}: the event a
# deadline counts from).
HOP_QUESTIONS: dict[str, dict[str, str]] = {
    "zh": {
        "event_date": "{event}的日期是哪一天？",
        "item_value": "{item}是多少？",
    },
    "en": {
        "event_date": "What is the date of {event}?",
        "item_value": "What is the {item}?",
    },
}
# What stands before a period counted from an event: "自合同签订之日起" (the event: 合同签订), "中标通知书发出后";
# matched on the text just before the period, so it ends with $.
EVENT_BEFORE_PERIOD: tuple[str, ...] = (
    r"(?:^|[，,。；;：:\s（(]|自|从|從|于|於|在|由)(?P<event>[^，,。；;：:\s（()）自从從于於在由]{2,24}?)"
    r"(?:之日|当日|當日|次日|后|後)(?:起|开始|開始)?(?:的)?[ \t]*(?:[(（][^)）]{0,12}[)）])?[ \t]*$",
)
# What follows a period counted from an event: "within 30 days after the signing of the contract".
EVENT_AFTER_PERIOD: tuple[str, ...] = (
    r"^\s*(?:\([^)]{0,20}\)\s*)?(?:calendar\s+)?(?:after|from|of|following)\s+(?:the\s+(?:date|day)\s+of\s+)?(?:the\s+)?"
    r"(?P<event>[A-Za-z][^,.;:()]{2,60})",
)
# A period counted back from its event ("截止之日10日前", "10 days before the closing date"): not added to the
# event's date, so no chain computes it.
PERIOD_BEFORE_EVENT = r"^\s*(?:之前|以前|前|before\b|prior to\b|ahead of\b)"
# Words that do not tell one event from another in English ("the date of the signing of this contract").
EVENT_FILLER_EN: frozenset[str] = frozenset(
    ["the", "of", "this", "that", "a", "an", "is", "was", "be", "been", "by", "date", "day", "on", "its", "which"]
)

# The answers the system writes, by language.
ANSWERS: dict[str, dict[str, str]] = {
    "zh": {
        "article_figure": "{figure}（{article}）",
        "deadline": "{end}（{event}之日{start}起{period}）",
        "deadline_working": "{event}之日{start}起{period}（工作日须按节假日推算，系统未算出具体日期）",
        "same": "一致：{a}{value_a}，{b}{value_b}",
        "different": "不一致：{a}{value_a}，{b}{value_b}",
    },
    "en": {
        "article_figure": "{figure} ({article})",
        "deadline": "{end} ({period} from {event}, {start})",
        "deadline_working": "{period} from {event}, {start} (working days depend on holidays: no date computed)",
        "same": "Yes: the {a} states {value_a}, the {b} {value_b}",
        "different": "No: the {a} states {value_a}, the {b} {value_b}",
    },
}
# How an article is named in an answer, by language.
ARTICLE_NAMES: dict[str, str] = {"zh": "第{n}条", "en": "clause {n}"}
