"""Characters that look like others: CJK compatibility ideographs and Kangxi radicals read as the ideographs they
stand for, one character for one (offsets unchanged).

Some PDF producers write common characters (年, 金, 不, 數 …) as their compatibility ideographs (U+F900–U+FAFF,
U+2F800–U+2FA1F) or as Kangxi radicals (U+2F00–U+2FDF): they look the same on the page, but a search for 押標金 or a
date reader finds nothing. Unicode maps each to one unified ideograph (canonically, or for the radicals by NFKC);
this folds them at reading, before the text is stored.

A form's boxes drawn in a symbol font (Wingdings) come out of a PDF's text, and out of Word's ``w:sym``, as
private-use code points: U+F0FE for a ticked box, U+F0A8 for an empty one ("1.10.1 分包 \uf0fe不允许 □允许"). Read
as noise, they leave neither the system nor the model able to tell which option is ticked, so they are folded to
the boxes they draw (☑, ☒, ✔, □), one character for one as well. Wingdings 2 draws its boxes at other bytes
(R ☑, S and T ☒, P ✔, £ □); a PDF's text does not say which font a private-use character came from, so those are
read only where the font is named, in Word's ``w:sym``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_RANGES = ((0xF900, 0xFAFF), (0x2F800, 0x2FA1F), (0x2F00, 0x2FDF), (0x2E80, 0x2EFF))
# Wingdings' boxes and tick at their private-use code points (U+F000 + the font's byte); in the Symbol font these
# code points draw pieces of a large brace and a diamond, which a text never needs as characters.
SYMBOL_BOXES: dict[int, str] = {0xF0FE: "☑", 0xF0FD: "☒", 0xF0FC: "✔", 0xF0A8: "□"}
# Wingdings 2's, by the font's byte (Word's usual ☑ is Wingdings 2's "R", its empty box "£").
WINGDINGS2_BOXES: dict[int, str] = {0x52: "☑", 0x53: "☒", 0x54: "☒", 0x50: "✔", 0xA3: "□"}


@cache
def _table() -> dict[int, int]:
    out: dict[int, int] = {}
    for low, high in _RANGES:
        for code in range(low, high + 1):
            folded = unicodedata.normalize("NFKC", chr(code))
            if len(folded) == 1 and ord(folded) != code:
                out[code] = ord(folded)
    out.update({code: ord(box) for code, box in SYMBOL_BOXES.items()})
    return out


def fold_lookalikes(text: str) -> str:
    """``text`` with every compatibility ideograph and Kangxi radical as its unified ideograph, and a symbol font's
    box as the box it draws; the same length."""
    return text.translate(_table())


def symbol_box(code: int, font: str = "Wingdings") -> str:
    """The box a Wingdings character draws (Word's ``w:sym w:char="F0FE"``, or ``"00FE"`` in the font's own
    byte; Wingdings 2's ``"0052"`` or ``"F052"`` when ``font`` names Wingdings 2), or "" for another symbol."""
    if re.fullmatch(r"wingdings\s*2", font.strip().lower()):
        return WINGDINGS2_BOXES.get(code - 0xF000 if code >= 0xF000 else code, "")
    return SYMBOL_BOXES.get(code if code >= 0xF000 else 0xF000 + code, "")
