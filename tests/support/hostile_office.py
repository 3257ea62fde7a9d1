"""Hostile Word and Excel packages, written with zipfile: small on disk, costly to read carelessly.

Each is a minimal package Word or Excel would open: the parts a reader needs, nothing else. Sizes are arguments,
so a test can take a size that costs minutes when read in quadratic time and milliseconds in linear time, and the
reliability bench can take the sizes of the security review.
"""

from __future__ import annotations

import io
import zipfile

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
S = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
OFFICE_DOCUMENT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
WORKSHEET = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
XML_DECL = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def _zip(parts: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    return out.getvalue()


def _rels(target: str) -> bytes:
    return (
        XML_DECL
        + f'<Relationships xmlns="{PKG_RELS}"><Relationship Id="rId1" Type="{OFFICE_DOCUMENT}"'
        f' Target="{target}"/></Relationships>'.encode()
    )


def docx(body: bytes, *, prolog: bytes = XML_DECL) -> bytes:
    """A .docx whose ``w:body`` holds ``body`` (raw WordprocessingML), its document part opened by ``prolog``."""
    types = (
        XML_DECL + b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        b'wordprocessingml.document.main+xml"/></Types>'
    )
    document = prolog + f'<w:document xmlns:w="{W}"><w:body>'.encode() + body + b"</w:body></w:document>"
    return _zip(
        {"[Content_Types].xml": types, "_rels/.rels": _rels("word/document.xml"), "word/document.xml": document}
    )


def paragraph(text: str) -> bytes:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode()


def docx_of_runs(runs: int, piece: str = "a") -> bytes:
    """One paragraph of ``runs`` runs, each holding ``piece``; a closing paragraph "the end" after it."""
    run = f"<w:r><w:t>{piece}</w:t></w:r>".encode()
    return docx(b"<w:p>" + run * runs + b"</w:p>" + paragraph("the end"))


def docx_of_one_text(chars: int, unit: str = "tender ") -> bytes:
    """One paragraph whose one ``w:t`` holds ``chars`` characters (``unit`` repeated)."""
    text = (unit * (chars // len(unit) + 1))[:chars]
    return docx(f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode() + paragraph("the end"))


def docx_with_doctype(comment_bytes: int) -> bytes:
    """A .docx whose document part declares a DTD (an internal entity used in its text) after a comment of
    ``comment_bytes`` bytes, so the declaration starts past the first ``comment_bytes`` bytes of the part."""
    prolog = (
        XML_DECL
        + b"<!--"
        + b"x" * comment_bytes
        + b'-->\n<!DOCTYPE w:document [<!ENTITY boom "expanded entity text">]>\n'
    )
    return docx(b"<w:p><w:r><w:t>&boom;</w:t></w:r></w:p>", prolog=prolog)


def column_name(number: int) -> str:
    """1 → A, 16384 → XFD."""
    name = ""
    while number:
        number, rest = divmod(number - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def xlsx(rows: bytes, *, prolog: bytes = XML_DECL) -> bytes:
    """An .xlsx of one sheet whose ``sheetData`` holds ``rows`` (raw SpreadsheetML ``<row>`` elements)."""
    types = (
        XML_DECL + b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        b'<Default Extension="xml" ContentType="application/xml"/>'
        b'<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        b'spreadsheetml.sheet.main+xml"/>'
        b'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
        b'officedocument.spreadsheetml.worksheet+xml"/></Types>'
    )
    workbook = (
        XML_DECL
        + f'<workbook xmlns="{S}" xmlns:r="{R}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/>'
        "</sheets></workbook>".encode()
    )
    workbook_rels = (
        XML_DECL
        + f'<Relationships xmlns="{PKG_RELS}"><Relationship Id="rId1" Type="{WORKSHEET}"'
        ' Target="worksheets/sheet1.xml"/></Relationships>'.encode()
    )
    sheet = prolog + f'<worksheet xmlns="{S}"><sheetData>'.encode() + rows + b"</sheetData></worksheet>"
    return _zip(
        {
            "[Content_Types].xml": types,
            "_rels/.rels": _rels("xl/workbook.xml"),
            "xl/workbook.xml": workbook,
            "xl/_rels/workbook.xml.rels": workbook_rels,
            "xl/worksheets/sheet1.xml": sheet,
        }
    )


def xlsx_rows(rows: int, column: int = 1) -> bytes:
    """A sheet of ``rows`` rows, each holding one number (its row number) in column ``column`` only."""
    letters = column_name(column)
    return xlsx(b"".join(f'<row r="{r}"><c r="{letters}{r}"><v>{r}</v></c></row>'.encode() for r in range(1, rows + 1)))


def xlsx_of_one_cell(chars: int, unit: str = "tender ") -> bytes:
    """A sheet whose cell A1 holds an inline string of ``chars`` characters, and A2 the word "end"."""
    text = (unit * (chars // len(unit) + 1))[:chars]
    return xlsx(
        f'<row r="1"><c r="A1" t="inlineStr"><is><t>{text}</t></is></c></row>'
        '<row r="2"><c r="A2" t="inlineStr"><is><t>end</t></is></c></row>'.encode()
    )
