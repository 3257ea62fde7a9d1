"""Where an entity's name occurs in a text, by whole units: a Han, kana or Hangul character is a unit, and so is a
word (a run of other letters and digits) or one mark of punctuation. A name occurs where its units follow one
another in the text's, case, width, spacing and quote marks aside.

Whole units matter for alphabetic scripts: by characters alone 'red' occurs in "Where did" once spaces are
dropped, and a 1.5B model's stray names 'ra' and 'an' occur in nearly every English paragraph. Those matches
seeded graph retrieval on 2Wiki with words no question named (docs/BENCHMARKS.md). Chinese has no spaces, so
there every character is a unit and the test is a plain substring test, as before.
"""

from __future__ import annotations

import re
import unicodedata

# CJK ideographs (and compatibility ones), kana, Hangul syllables: each character a unit of its own.
_CJK = "\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_UNIT = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+|[^\s]")
_DROPPED = re.compile(r"[\s\"'“”‘’《》「」]+")
_SEP = "\x1f"  # between units in a unit string; never in a unit


def entity_key(name: str) -> str:
    """What two entity names must share to be one node: NFKC, case folded, spaces and quote marks dropped."""
    return _DROPPED.sub("", unicodedata.normalize("NFKC", name).casefold())


def units(text: str) -> list[str]:
    """The text's units, each as its key; quote marks (empty keys) left out."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return [key for key in (_DROPPED.sub("", u) for u in _UNIT.findall(folded)) if key]


def unit_string(text: str) -> str:
    """The text's units joined by a separator that also opens and closes it, for :func:`occurs`."""
    return _SEP + _SEP.join(units(text)) + _SEP


def occurs(name: str, text_units: str) -> bool:
    """Whether ``name``'s units follow one another in a text (``text_units`` = :func:`unit_string` of it)."""
    mine = units(name)
    return bool(mine) and (_SEP + _SEP.join(mine) + _SEP) in text_units


def name_pieces(text: str, min_chars: int, max_chars: int) -> set[str]:
    """The keys of every run of consecutive units of ``text`` whose key is ``min_chars`` to ``max_chars`` long:
    what an entity the text names would be stored under (its :func:`entity_key`)."""
    found = units(text)
    pieces: set[str] = set()
    for i in range(len(found)):
        piece = ""
        for unit in found[i:]:
            piece += unit
            if len(piece) > max_chars:
                break
            if len(piece) >= min_chars:
                pieces.add(piece)
    return pieces
