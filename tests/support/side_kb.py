"""Three short bids for the side-by-side tests, a checklist of four items, and a scripted model that quotes the
first source line stating the asked term with a figure, as a careful model would.

What each bid states (written by hand, the expected values of the tests):

========  ==================  ==========  ========  ==========
bid       投标保证金            投标有效期    交货期     履约保证金
========  ==================  ==========  ========  ==========
甲        350,900元            90日         30天       5万元
乙        35 萬 900 元          60日         30天       (none)
丙        人民币350,900元       90日         30天       (none)
========  ==================  ==========  ========  ==========

So the bid bond is the same value in three forms, the validity differs, the delivery is the same word for word,
and the performance bond is stated by one bid only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from pikelocal import api
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.base import GenParams, Message

BIDS = {
    "bid_a.md": """# 甲公司投标文件

## 一、投标保证金

本公司已提交投标保证金350,900元。

## 二、投标有效期

投标有效期为90日，自投标截止之日起计算。

## 三、交货期

交货期为合同签订后30天。

## 四、履约保证金

中标后提交履约保证金5万元。
""",
    "bid_b.md": """# 乙公司投标文件

## 一、投标保证金

本公司已提交投标保证金35 萬 900 元。

## 二、投标有效期

投标有效期为60日，自投标截止之日起计算。

## 三、交货期

交货期为合同签订后30天。
""",
    "bid_c.md": """# 丙公司投标文件

## 一、投标保证金

本公司已提交投标保证金人民币350,900元。

## 二、投标有效期

投标有效期为90日，自投标截止之日起计算。

## 三、交货期

交货期为合同签订后30天。
""",
}
CHECKLIST = """name = "bids"
title = "投标比对"

[[items]]
id = "bond"
label = "投标保证金"
section = "金额"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金"]

[[items]]
id = "validity"
label = "投标有效期"
section = "期限"
kind = "duration"
question.hans = "投标有效期是多久？"
hints = ["投标有效期"]

[[items]]
id = "delivery"
label = "交货期"
section = "期限"
kind = "duration"
question.hans = "交货期是多久？"
hints = ["交货期"]

[[items]]
id = "performance"
label = "履约保证金"
section = "金额"
kind = "amount"
question.hans = "履约保证金是多少？"
hints = ["履约保证金"]
"""
# Each question's term: the model quotes the first source line holding it with a figure, and answers the figure.
TERMS = {"投标保证金是": "投标保证金", "投标有效期是": "投标有效期", "交货期是": "交货期", "履约保证金是": "履约保证金"}
_FIGURE = re.compile(r"(?:人民币)?\d[\d,\s萬万]*?(?:元|日|天)")
_NUMBER = re.compile(r"^\[\d+\]\s*")


def quote_figure(messages: Sequence[Message], _params: GenParams) -> str:
    prompt = messages[-1].content
    for asked, term in TERMS.items():
        if asked not in prompt:
            continue
        for line in prompt.splitlines():
            line = _NUMBER.sub("", line).strip()
            if term in line and asked not in line and (m := _FIGURE.search(line)) is not None:
                return f"原文：{line}\n答案：{m.group(0)}"
    return "原文：无\n答案：文档中没有说明"


def bids_kb(root: Path, settings: api.Settings) -> tuple[Path, Path]:
    """The three bids ingested into ``root/bids.kb`` and the checklist written to ``root/bids.toml``."""
    docs = root / "bids"
    docs.mkdir()
    for name, text in BIDS.items():
        (docs / name).write_text(text, encoding="utf-8")
    path = root / "bids.kb"
    with api.open_kb(path, settings, encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    checklist = root / "bids.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    return path, checklist
