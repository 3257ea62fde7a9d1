"""A name from outside (a file name, a path) as one line of a terminal: every control character, line break and
text-reordering mark written as its escape, so that a file named ``a\\nb`` cannot print as two rows of a listing
and a right-to-left override cannot disguise ``exe.pdf``.

Lowest layer: domain records (``location``) and every front end use it."""

from __future__ import annotations

import re

# C0 controls (newline and tab included), DEL, C1 controls, the line and paragraph separators, and the Unicode
# marks that reorder text (bidi embeddings, overrides, isolates).
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown_name(text: str) -> str:
    """``text`` on one line, with what would move the cursor, break the line or reorder the text escaped."""
    return _HIDDEN.sub(lambda m: _escape(m.group()), text)


def escape_hidden_json(encoded: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with C1 controls, line separators and bidi marks
    written as ``\\uXXXX`` escapes: the same data for a JSON reader, inert for a terminal or a line-based tool.
    (JSON already escapes C0 controls; these characters can stand only inside strings, so the result is valid.)"""
    return re.sub("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", lambda m: f"\\u{ord(m.group()):04x}", encoded)
