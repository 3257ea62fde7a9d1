"""Text from a document, a checklist or a reviewer's note made safe for the program that opens a report: one
escaper per format, each built on :func:`clean_text`.

A report carries a tender's words into a spreadsheet, a word processor and a browser, so what the document says
must stay text there:

- :func:`csv_cell`: a cell a spreadsheet would read as a formula (``=HYPERLINK(…)``, ``+SUM(…)``, ``@cmd``) gets a
  leading ``'`` (OWASP's advice for CSV injection), so the spreadsheet shows it as text. Any writer of cells (a
  future .xlsx one too) calls it; :func:`cell_text` takes that ``'`` off again when a report's cell is read back.
- :func:`markdown_text`: one line; HTML (``<script>``, ``<img onerror=…>``) written as entities, and
  the characters that would make a link, a code span or a new table cell (``[ ] ` | \\``) escaped, so a title
  holding ``|`` cannot add a column.
- :func:`html_text`: :func:`html.escape` of the cleaned text.
- :func:`xml_text`: what XML 1.0 allows (python-docx refuses the rest with a ValueError).

:func:`clean_text` is the common first step: every character XML 1.0 forbids (C0 controls but tab, newline and
carriage return; lone surrogates, which a file name or an argument decoded with ``surrogateescape`` may hold;
U+FFFE and U+FFFF), and those it allows but no report text needs and a reader's screen may obey (DEL, the C1
controls such as CSI, and the marks that reorder text: a right-to-left override can make "000,5" read "5,000"),
become U+FFFD, so a report never fails on, nor hides, what a document or a note held.
"""

from __future__ import annotations

import html
import re

REPLACEMENT = "\ufffd"
# Characters XML 1.0 forbids (outside its Char production: lone surrogates too), then DEL, the C1 controls and the
# bidi embeddings, overrides and isolates.
_UNSAFE = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What a spreadsheet may take for the start of a formula (OWASP: = + - @, tab and carriage return); the full-width
# forms too, which some spreadsheets fold to ASCII. Looked for after leading whitespace, which some ignore.
_FORMULA_START = frozenset("=+-@\t\r＝＋－＠")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def clean_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids, and DEL, C1 controls and bidi marks, replaced by U+FFFD (see
    the module's docstring)."""
    return _UNSAFE.sub(REPLACEMENT, text)


def csv_cell(text: str) -> str:
    """A cell's text that a spreadsheet shows as text: ``'`` before one that could start a formula."""
    cleaned = clean_text(text)
    if cleaned[:1] in _FORMULA_START or cleaned.lstrip(" \t\r\n")[:1] in _FORMULA_START:
        return "'" + cleaned
    return cleaned


def cell_text(cell: str) -> str:
    """What :func:`csv_cell` was given, from a cell it wrote: its ``'`` taken off again (a cell that starts with
    ``'`` for any other reason is kept as it is), so a note read back from a report is the note that was written."""
    if cell.startswith("'") and csv_cell(cell[1:]) == cell:
        return cell[1:]
    return cell


def markdown_text(text: str) -> str:
    """Text on one Markdown line, inert: whitespace runs (newlines too) as one space, HTML as entities, and the
    characters that make links, code spans, emphasis and table cells escaped with a backslash, so it is safe in a
    table cell, a heading or a paragraph."""
    one_line = " ".join(clean_text(text).split())
    escaped = html.escape(one_line, quote=False)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", escaped)


def html_text(text: str) -> str:
    """Text for an HTML element or attribute value: cleaned, then ``& < > " '`` as entities."""
    return html.escape(clean_text(text))


def xml_text(text: str) -> str:
    """Text python-docx accepts: what XML 1.0 allows (see :func:`clean_text`), each line end (CR LF, CR, LF) one
    newline (python-docx makes a line break of every CR and every LF, so a CR LF would read as two)."""
    return clean_text(text).replace("\r\n", "\n").replace("\r", "\n")
