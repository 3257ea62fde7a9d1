"""The script a question is written in (simplified Chinese, traditional Chinese or not Chinese), and conversion of
answer text into it with OpenCC.

A 1.5B model asked in traditional Chinese over simplified sources often drifts into simplified (or mixes both).
The answer is converted to the question's script with OpenCC's phrase tables, except for quotations that stand
verbatim in the sources: a reviewer must be able to find a quoted clause exactly as the document prints it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Literal

from pikelocal.text.lang import detect_lang

Script = Literal["hans", "hant", "en"]  # en: the question is not Chinese (answers stay as written)

# Quotations in an answer: 「…」 『…』 “…” "…" 《…》 (the text between the marks).
_QUOTE = re.compile(r"「([^」]{2,})」|『([^』]{2,})』|“([^”]{2,})”|\"([^\"]{2,})\"|《([^》]{2,})》")


@cache
def _converter(config: str) -> object:
    import opencc  # imported late: the CLI's start-up does not pay for it

    return opencc.OpenCC(config)


def to_simplified(text: str) -> str:
    return _converter("t2s").convert(text)  # type: ignore[attr-defined,no-any-return]


def to_traditional(text: str) -> str:
    """Traditional characters in Taiwan's standard forms (OpenCC s2tw: 台 → 臺, 为 → 為).

    文档 (document) is 文件 in Taiwan: the fixed phrase "文件中沒有說明" comes out the same from either script.
    """
    return _converter("s2tw").convert(text).replace("文檔", "文件")  # type: ignore[attr-defined,no-any-return]


def _changed(a: str, b: str) -> int:
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True))
    return abs(len(set(a) - set(b)))


def detect_script(text: str) -> Script:
    """hant when more of the text's characters are traditional-only than simplified-only; ties go to hans."""
    if detect_lang(text) != "zh":
        return "en"
    traditional_only = _changed(text, to_simplified(text))
    simplified_only = _changed(text, to_traditional(text))
    return "hant" if traditional_only > simplified_only else "hans"


def convert(text: str, script: Script, keep: Iterable[str] = ()) -> str:
    """``text`` in ``script`` (en: unchanged); a quotation standing verbatim in a ``keep`` text is left as is."""
    if script == "en" or not text:
        return text
    to = to_traditional if script == "hant" else to_simplified
    kept = [k for k in keep if k]
    out: list[str] = []
    last = 0
    for m in _QUOTE.finditer(text):
        quoted = next(g for g in m.groups() if g is not None)
        if any(_squash(quoted) in _squash(k) for k in kept):
            out.append(to(text[last : m.start()]))
            out.append(m.group(0))
            last = m.end()
    out.append(to(text[last:]))
    return "".join(out)


def in_script(text: str, script: Script, keep: Iterable[str] = ()) -> bool:
    """True when ``text`` has nothing to convert for ``script``, quotations of ``keep`` aside (a script match)."""
    if script == "en":
        return True
    return convert(text, script, keep) == text


def _squash(text: str) -> str:
    return "".join(text.split())
