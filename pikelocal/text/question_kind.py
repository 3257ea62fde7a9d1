"""What kind of answer a question wants, decided by patterns, without an LLM call: a yes/no (or
true/false) question, a multiple choice, a list, or a factoid (an amount, date, count, duration or name).

The kind sets one rule of the quote-first prompt (``prompts/quote.py``) and how the answer is checked
(``query/answer/quoted.py``: a yes/no answer is checked on its quote being about the question, not on its words).
Patterns cover simplified and traditional Chinese and English; a benchmark's own instruction ("Answer True or False")
counts as part of the question.
"""

from __future__ import annotations

import re
from typing import Literal

QuestionKind = Literal["factoid", "yesno", "choice", "list"]

_CHOICE = re.compile(
    r"(?:^|\n|\s)[（(]?[A-D][)）.、．:：]\s*\S.*(?:\n|\s)[（(]?[B-E][)）.、．:：]\s*\S"
    r"|which of the following|下列|以下哪|选项|選項",
    re.IGNORECASE | re.DOTALL,
)
_YESNO = re.compile(
    r"是否|有没有|有沒有|能否|可否|是不是|对吗|對嗎|对不对|對不對|正确吗|正確嗎|吗[？?]?\s*$|嗎[？?]?\s*$"
    r"|true or false|true/false|正确还是错误|正確還是錯誤"
    r"|^\s*(?:is|are|was|were|does|do|did|can|could|may|must|shall|should|will|would|has|have|had)\b",
    re.IGNORECASE,
)
_LIST = re.compile(r"有哪些|哪些|包括什么|包括什麼|列出|列举|列舉|\bwhat are the\b|\blist\b|\bwhich .+ are\b", re.I)


def question_kind(question: str, instruction: str = "") -> QuestionKind:
    """The kind of answer ``question`` (with a benchmark's ``instruction``) asks for."""
    text = f"{question}\n{instruction}".strip()
    if _CHOICE.search(text):
        return "choice"
    if _YESNO.search(question) or _YESNO.search(instruction):
        return "yesno"
    if _LIST.search(question):
        return "list"
    return "factoid"
