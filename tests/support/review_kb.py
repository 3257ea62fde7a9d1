"""A small two-document tender and a checklist for the review tests: the documents disagree on the deadline and the
bid bond, and a scripted model quotes the first source line holding the asked term (as a careful model would);
and ``reviewed``, a checklist run over one short document with every item answered by one scripted reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from tests.support.text_kb import one_text_kb

RFP = """# 招标公告

## 三、投标截止时间

投标截止时间为2025年10月25日9时30分，逾期送达的投标文件不予受理。

## 四、投标保证金

投标保证金为人民币5万元，须在投标截止时间前提交。
"""
RULES = """# 评标办法

## 一、时间安排

本项目投标截止时间定为2025年10月28日9时30分。

## 二、保证金

投标保证金定为人民币8万元。
"""
CHECKLIST = """name = "mini"
title = "小清单"

[[items]]
id = "deadline"
label = "投标截止时间"
section = "时间"
kind = "date"
question.hans = "投标截止时间是什么时候？"
hints = ["投标截止时间", "截止投標"]

[[items]]
id = "bond"
label = "投标保证金"
section = "金额"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金", "押標金"]

[[items]]
id = "performance"
label = "履约保证金"
section = "金额"
kind = "amount"
question.hans = "履约保证金是多少？"
hints = ["履约保证金", "履約保證金"]
"""
# What the scripted model quotes for each question: the first source line holding the term, and the answer.
ANSWERS = {"投标截止时间是": ("投标截止时间为", "2025年10月25日"), "投标保证金是": ("投标保证金为", "5万元")}


_NUMBER = re.compile(r"^\[\d+\]\s*")


def quote_first(messages: Sequence[Message], _params: GenParams) -> str:
    prompt = messages[-1].content
    for asked, (term, answer) in ANSWERS.items():
        if asked in prompt:
            line = next((ln for ln in prompt.splitlines() if term in ln), None)
            if line is not None:
                return f"原文：{_NUMBER.sub('', line).strip()}\n答案：{answer}"
    return "原文：无\n答案：文档中没有说明"


def reviewed(
    tmp_path: Path, settings: Settings, text: str, reply: str, checklist_text: str = CHECKLIST
) -> dict[str, api.ReviewRow]:
    """The rows of a checklist run over one short Markdown document with every item answered by ``reply``."""
    path = one_text_kb(tmp_path, "form.md", text, encoder=HashEncoder())
    checklist = tmp_path / "mini.toml"
    checklist.write_text(checklist_text, encoding="utf-8")
    llm = FakeLLM({"answer-quote": lambda _m, _p: reply})
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=llm) as knowledge_base:
        report = knowledge_base.review(api.ReviewRequest(str(checklist)))
    return {r.item_id: r for r in report.rows}
