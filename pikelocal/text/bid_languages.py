"""Sentences stating the language bids (or proposals) are written in: 「投标文件应使用中文文本」,
「均应使用中文简体字」, 「招标投标文件使用的语言文字为中文」, 「所提內容…請以正體中文呈現」,
「服務建議書一律以 A4 紙張中文橫式撰寫」.

The sentence must tie Chinese to a verb of writing or using (使用, 以, 为, 书写, 撰寫, 呈現 …) and name what is
written (the bid, the proposal, its content, the language). Left out: a name's Chinese form (「中文名称」), a font
or an encoding (「中文字型」, 「中文全字庫」), the language of a challenge (「质疑函应当使用中文」), which text
prevails (「招标文件以中文为准」), and a sentence with no document or language named. The model, shown these
sentences, answered 中文 where the documents ask for 中文简体 or 正體中文, or left them to check (the sentence does
not say 语言).
"""

from __future__ import annotations

import re

_WRITTEN_IN = re.compile(
    r"(?:使用|以|用|採用|采用|採|为|為)[^，,。；;]{0,8}?(?P<a>(?:简体|簡體|正體|繁體|繁体)?中文(?:简体|簡體|正體|繁體)?)"
    r"|(?P<b>(?:简体|簡體|正體|繁體|繁体)?中文(?:简体|簡體|正體|繁體)?)[^，,。；;]{0,8}?"
    r"(?:书写|書寫|撰写|撰寫|繕打|编写|編寫|呈现|呈現|文本|字)"
)
_WRITTEN = re.compile(
    r"投标文件|投標文件|响应文件|響應文件|磋商文件|建议书|建議書|內容|内容|內文|内文|语言|語言|文字|文件|資料|资料"
)
_LEFT_OUT = re.compile(
    r"中文名称|中文名稱|中文姓名|中文全称|中文全稱|字型|字体|字體|字庫|字库|编码|編碼|质疑|質疑|投诉|投訴"
)
# 「以中文文本为准」: which text prevails, not what the bid is written in.
_PREVAILS = re.compile(r"以[^，,。；;]{0,6}中文[^，,。；;]{0,4}(?:为准|為準)")
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def bid_language(sentence: str) -> str | None:
    """``sentence`` (one line, without its spaces doubled) where it states the language documents are written in, or
    None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence) or not _WRITTEN.search(sentence):
        return None
    if _WRITTEN_IN.search(_PREVAILS.sub("", sentence)) is None:
        return None
    return " ".join(sentence.split())
