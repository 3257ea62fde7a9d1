"""Which language a text is in, as far as prompts care: Chinese or English (the fallback)."""

from __future__ import annotations

import re
from typing import Literal

Lang = Literal["zh", "en"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def cjk_count(text: str) -> int:
    return len(_CJK.findall(text))


def detect_lang(text: str) -> Lang:
    """'zh' when Chinese characters carry at least a third of the words (a CJK character counts as a word).

    Tender and legal documents mix in English terms, numbers and codes; those should not flip a Chinese text.
    """
    cjk = cjk_count(text)
    words = len(_LATIN_WORD.findall(text))
    if cjk == 0:
        return "en"
    return "zh" if cjk >= 0.5 * words else "en"


def is_chinese(text: str) -> bool:
    """A question counts as Chinese when it holds Chinese characters and they dominate its words."""
    return detect_lang(text) == "zh"
