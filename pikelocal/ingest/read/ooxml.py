"""Office Open XML packages (.docx, .xlsx) opened with care, for ``parse_docx`` and ``parse_xlsx``.

Before any part is read, the package is judged whole: an OLE compound file (a password-protected Office file, or a
legacy .doc/.xls under a new name), a zip that is not one, a zip that declares more than ``MAX_UNZIPPED_MB`` of
content or ``MAX_MEMBERS`` members (a zip bomb), or members packed other than stored or deflated: each a
:class:`DocumentError` with a one-line reason. The zip module never inflates a member past its declared size, so
the declared total bounds what is read. XML parts are read with the standard library's expat, which refuses entity
expansion bombs; a part with a document type declaration anywhere before its root element (Word and Excel never
write one) is refused outright.

Elements are matched by local name, so the transitional and the strict (ISO) namespaces read alike.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal
from xml.etree import ElementTree as ET
from xml.parsers import expat

from pikelocal.domain.errors import DocumentError

MAX_UNZIPPED_MB = 200  # declared uncompressed size of all members together
MAX_MEMBERS = 10_000
MAX_CHARS = 20_000_000  # characters of text taken from one file (as ingest.pdf_max_chars for a PDF)
MAX_XML_PART_MB = 64  # a part read whole into a tree (a .docx's styles, numbering, headers; not its body)
_MIB = 1 << 20
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_INFO = "EncryptionInfo".encode("utf-16-le")  # the stream an encrypted OOXML file keeps its keys in
_DOCTYPE = re.compile(rb"<!DOCTYPE", re.IGNORECASE)
_OFFICE_DOCUMENT = "/officeDocument"  # relationship type suffix of a package's main part

App = Literal["Word", "Excel"]
_SUFFIX = {"Word": ".docx", "Excel": ".xlsx"}
_LEGACY = {"Word": ".doc", "Excel": ".xls"}
_A = {"Word": "a Word", "Excel": "an Excel"}


@dataclass(frozen=True)
class OfficeText:
    """What a format reader gives ``parse.py``: page texts, whether they are real pages, a title, warnings."""

    pages: tuple[str, ...]
    paged: bool
    title: str | None
    warnings: tuple[str, ...]


def local(tag: object) -> str:
    """An element's name without its namespace (``{ns}p`` → ``p``); "" for comments and processing instructions."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def attr(el: ET.Element, name: str) -> str | None:
    """The attribute ``name`` of ``el`` in any namespace (``w:val``, ``r:id``, or none)."""
    for key, value in el.attrib.items():
        if key == name or key.endswith("}" + name):
            return value
    return None


def child(el: ET.Element, name: str) -> ET.Element | None:
    return next((c for c in el if local(c.tag) == name), None)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:160] if text else type(exc).__name__


def open_package(path: Path, data: bytes, app: App) -> zipfile.ZipFile:
    """The package as a zip, or a DocumentError: encrypted, a legacy binary file, not a zip, too large."""
    if data.startswith(OLE_MAGIC):
        if _ENCRYPTION_INFO in data:
            raise DocumentError(
                path, "encrypted", f"password-protected {app} file; remove the password in {app} and ingest again"
            )
        raise DocumentError(
            path,
            "unsupported",
            f"a legacy {app} {_LEGACY[app]} file under a {_SUFFIX[app]} name; save it as {_SUFFIX[app]} in {app}",
        )
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        members = zf.infolist()
    except Exception as exc:  # BadZipFile, EOFError, and NotImplementedError for a version byte flipped
        raise DocumentError(path, "corrupt", f"not a readable {app} file: damaged zip ({first_line(exc)})") from None
    if len(members) > MAX_MEMBERS:
        raise DocumentError(
            path, "too-large", f"the zip holds {len(members):,} members (limit {MAX_MEMBERS:,}): not read"
        )
    total = sum(m.file_size for m in members)
    if total > MAX_UNZIPPED_MB * _MIB:
        raise DocumentError(
            path,
            "too-large",
            f"the zip declares {total / _MIB:,.0f} MB uncompressed (limit {MAX_UNZIPPED_MB} MB; a zip bomb?): not read",
        )
    odd = next((m for m in members if m.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)), None)
    if odd is not None or any(m.flag_bits & 0x1 for m in members):
        raise DocumentError(path, "corrupt", f"not {_A[app]} file: zip members encrypted or packed in an odd way")
    return zf


def has(zf: zipfile.ZipFile, name: str) -> bool:
    try:
        zf.getinfo(name)
    except KeyError:
        return False
    return True


class _Root(Exception):
    """The root element began: the prolog is over."""


def _refuse_dtd(path: Path, name: str) -> DocumentError:
    return DocumentError(path, "corrupt", f"{name} declares a DTD, which Word and Excel never write: not read")


def check_prolog(path: Path, name: str, chunks: Iterable[bytes]) -> None:
    """Refuse part ``name`` (its bytes in ``chunks``) when a document type declaration comes before its root element.

    The whole prolog is read, however long: comments and processing instructions may push a DTD past any fixed
    number of bytes. expat reads it and stops at the root's start; a prolog expat cannot read is refused when it
    holds the word DOCTYPE anywhere (whatever reads the part later must not be the first to see it).
    """
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def doctype(*_: object) -> None:
        raise _refuse_dtd(path, name)

    def root(*_: object) -> None:
        raise _Root

    parser.StartDoctypeDeclHandler, parser.StartElementHandler = doctype, root
    seen = bytearray()  # the prolog so far, kept only while expat has not found the root
    try:
        for chunk in chunks:
            seen += chunk
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except _Root:
        return
    except expat.ExpatError:
        if _DOCTYPE.search(seen):
            raise _refuse_dtd(path, name) from None


def chunks(stream: IO[bytes], size: int = 1 << 16) -> Iterator[bytes]:
    while chunk := stream.read(size):
        yield chunk


def check_prologs(path: Path, zf: zipfile.ZipFile) -> None:
    """Refuse a package any of whose XML parts declares a DTD (before a library reads them)."""
    for info in zf.infolist():
        if info.filename.endswith((".xml", ".rels")):
            with zf.open(info) as part:
                check_prolog(path, info.filename, chunks(part))


def parse_part(path: Path, zf: zipfile.ZipFile, name: str) -> ET.Element | None:
    """Part ``name`` as a tree (None when the package has no such part); bounded by ``MAX_XML_PART_MB``."""
    if not has(zf, name):
        return None
    if zf.getinfo(name).file_size > MAX_XML_PART_MB * _MIB:
        raise DocumentError(path, "too-large", f"{name} is over {MAX_XML_PART_MB} MB uncompressed: not read")
    data = zf.read(name)
    check_prolog(path, name, (data,))
    return ET.fromstring(data)


def relationships(path: Path, zf: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """Relationship id → (type, package path of the target) for ``part`` ("" for the package's own)."""
    folder, base = posixpath.split(part)
    rels = parse_part(path, zf, posixpath.join(folder, "_rels", base + ".rels"))
    out: dict[str, tuple[str, str]] = {}
    for rel in rels if rels is not None else ():
        target, kind, rid = attr(rel, "Target"), attr(rel, "Type") or "", attr(rel, "Id")
        if target is None or rid is None or attr(rel, "TargetMode") == "External":
            continue
        full = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        out[rid] = (kind, full)
    return out


def main_part(path: Path, zf: zipfile.ZipFile, app: App, default: str) -> str:
    """The package's main part (``word/document.xml``, ``xl/workbook.xml``), or a DocumentError naming what it is."""
    try:
        found = [t for kind, t in relationships(path, zf, "").values() if kind.endswith(_OFFICE_DOCUMENT)]
    except ET.ParseError:
        found = []
    for name in [*found, default]:
        if has(zf, name) and name.split("/")[0] == default.split("/")[0]:
            return name
    other = {"word/document.xml": "a Word document", "xl/workbook.xml": "an Excel workbook"}
    seen = next((what for part, what in other.items() if has(zf, part)), None)
    if seen is not None:
        raise DocumentError(path, "unsupported", f"{seen}, not {_A[app]} file: rename it to its own extension")
    raise DocumentError(path, "corrupt", f"a zip archive but not {_A[app]} file (no {default})")


def core_title(path: Path, zf: zipfile.ZipFile) -> str | None:
    """The title in the package's core properties (``docProps/core.xml``), if any."""
    try:
        core = parse_part(path, zf, "docProps/core.xml")
    except (ET.ParseError, DocumentError):
        return None  # a title is a nicety: a broken properties part does not make the document unreadable
    title = next((el.text for el in core.iter() if local(el.tag) == "title"), None) if core is not None else None
    return title.strip() if title and title.strip() else None


def library_error(path: Path, app: App, exc: BaseException) -> DocumentError:
    """Whatever a reader raised that it did not foresee, as one line."""
    if isinstance(exc, DocumentError):
        return exc
    if isinstance(exc, MemoryError):
        return DocumentError(path, "too-large", "ran out of memory while reading it")
    if isinstance(exc, (ET.ParseError, expat.ExpatError)) or type(exc).__name__ == "XMLSyntaxError":  # lxml's
        return DocumentError(path, "corrupt", f"not a readable {app} file: broken XML ({first_line(exc)})")
    if isinstance(exc, (zipfile.BadZipFile, EOFError, zlib.error)) or "crc" in str(exc).lower():
        return DocumentError(path, "corrupt", f"not a readable {app} file: damaged zip ({first_line(exc)})")
    return DocumentError(path, "corrupt", f"not a readable {app} file ({type(exc).__name__}: {first_line(exc)})")
