"""Characters that look like others: CJK compatibility ideographs and Kangxi radicals read as the ideographs they
stand for, one character for one (offsets unchanged).

Some PDF producers write common characters (年, 金, 不, 數 …) as their compatibility ideographs (U+F900–U+FAFF,
U+2F800–U+2FA1F) or as Kangxi radicals (U+2F00–U+2FDF): they look the same on the page, but a search for 押標金 or a
date reader finds nothing. Unicode maps each to one unified ideograph (canonically, or for the radicals by NFKC);
this folds them at reading, before the text is stored.
"""

from __future__ import annotations

import unicodedata
from functools import cache

_RANGES = ((0xF900, 0xFAFF), (0x2F800, 0x2FA1F), (0x2F00, 0x2FDF), (0x2E80, 0x2EFF))


@cache
def _table() -> dict[int, int]:
    out: dict[int, int] = {}
    for low, high in _RANGES:
        for code in range(low, high + 1):
            folded = unicodedata.normalize("NFKC", chr(code))
            if len(folded) == 1 and ord(folded) != code:
                out[code] = ord(folded)
    return out


def fold_lookalikes(text: str) -> str:
    """``text`` with every compatibility ideograph and Kangxi radical as its unified ideograph; the same length."""
    return text.translate(_table())
