"""Pure text helpers for parsing: encoding detection, line offsets, and a garbled-extraction score."""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence

# Tried in order after UTF-8. Big5 first: GB18030 decodes almost any byte string, Big5 rejects most GBK text
# (GBK trail bytes 0x80–0xA0 are invalid in Big5), so a strict Big5 success is real evidence.
LEGACY_CJK_ENCODINGS = ("big5", "gb18030")

_SPACE = re.compile(r"\s+")  # \s in a str pattern is exactly str.isspace()
# Signs of a broken extraction: U+FFFD and the code points of categories Cc (control), Cs (surrogate) and Co
# (private use). These ranges are fixed by the Unicode standard, so they equal ``unicodedata.category`` in every
# Python (tests/ingest/test_long_blocks.py checks all code points).
_GARBLE = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\ufffd\U000f0000-\U000ffffd\U00100000-\U0010fffd]")
_SLICE_CHARS = 1 << 20  # garbled_share reads a text in slices of this many characters: bounded copies
GARBLED_PAGE_SHARE = 0.05  # above it a page is garbled: a real text has next to no control or private-use characters


def decode_text(data: bytes) -> tuple[str, str]:
    """Decode a text file's bytes; returns (text, encoding). Raises ``UnicodeDecodeError`` if nothing fits."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8"), "utf-8-sig"
    for bom, name in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(name), name
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as first_error:
        for name in LEGACY_CJK_ENCODINGS:
            try:
                text = data.decode(name)
            except UnicodeDecodeError:
                continue
            if garbled_share(text) < 0.05:
                return text, name
        raise first_error


def line_offsets(text: str) -> tuple[int, ...]:
    """Character offset of the start of every line (the first line starts at 0)."""
    offsets = [0]
    i = text.find("\n")
    while 0 <= i < len(text) - 1:
        offsets.append(i + 1)
        i = text.find("\n", i + 1)
    return tuple(offsets)


def garbled_share(text: str) -> float:
    """Share of visible characters that signal a broken extraction.

    Control characters (a broken font map yields e.g. ``\\x03`` for spaces), private-use code points and
    U+FFFD replacement characters; whitespace does not count either way. Counted slice by slice with regular
    expressions, so a text of any length costs a few MB, never an object per character.
    """
    visible = bad = 0
    for at in range(0, len(text), _SLICE_CHARS):
        shown = _SPACE.sub("", text[at : at + _SLICE_CHARS])
        visible += len(shown)
        bad += len(shown) - len(_GARBLE.sub("", shown))
    return bad / visible if visible else 0.0


def page_list(numbers: Sequence[int]) -> str:
    """Page numbers for a message: the first ten, then "…"."""
    return ", ".join(map(str, numbers[:10])) + (" …" if len(numbers) > 10 else "")


def first_line(exc: BaseException) -> str:
    """An exception's message cut to one line for a one-line error (its type's name when it has none)."""
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
