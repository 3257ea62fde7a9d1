"""Pure text helpers for parsing: encoding detection, line offsets, and a garbled-extraction score."""

from __future__ import annotations

import codecs
import unicodedata

# Tried in order after UTF-8. Big5 first: GB18030 decodes almost any byte string, Big5 rejects most GBK text
# (GBK trail bytes 0x80–0xA0 are invalid in Big5), so a strict Big5 success is real evidence.
LEGACY_CJK_ENCODINGS = ("big5", "gb18030")


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
    offsets.extend(i + 1 for i, ch in enumerate(text) if ch == "\n" and i + 1 < len(text))
    return tuple(offsets)


def garbled_share(text: str) -> float:
    """Share of visible characters that signal a broken extraction.

    Control characters (a broken font map yields e.g. ``\\x03`` for spaces), private-use code points and
    U+FFFD replacement characters; whitespace does not count either way.
    """
    visible = [ch for ch in text if not ch.isspace()]
    if not visible:
        return 0.0
    bad = sum(1 for ch in visible if ch == "\ufffd" or unicodedata.category(ch) in ("Cc", "Co", "Cs"))
    return bad / len(visible)
