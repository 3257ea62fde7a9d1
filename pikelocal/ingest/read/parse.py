"""Parse PDF, Word, Excel, plain-text and Markdown files into pages with line positions.

PDFs are read by ``parse_pdf.py`` (pypdf in a child process within limits on time, memory, pages and
characters, ``pdf_worker.py``), Word (.docx) and Excel (.xlsx) files by ``parse_docx.py`` and ``parse_xlsx.py``
(the package checked in ``ooxml.py``), in the same child within the same limits when a worker is given (as
ingestion always gives); a workbook, and a .docx with no stored page breaks, is unpaged
(``ParsedDocument.paged``). Here: which files are read at all, text decoding, the garble check, titles.

Every failure is a :class:`DocumentError` whose message is one line naming the file and the reason, so a
batch can record it and go on. A garbled extraction is not a failure but a warning on the result; a broken
font's lines in an otherwise good PDF page are left blank (``_blank_garbled_lines``).
"""

from __future__ import annotations

import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.read import ooxml
from pikelocal.ingest.read.ooxml import OfficeText
from pikelocal.ingest.read.parse_docx import read_docx
from pikelocal.ingest.read.parse_pdf import clean_pdf_title, read_pdf
from pikelocal.ingest.read.parse_xlsx import read_xlsx
from pikelocal.ingest.read.pdf_worker import PageProgress, PdfWorker
from pikelocal.ingest.read.textcheck import decode_text, garbled_share, line_offsets, page_list
from pikelocal.text.unicode_forms import fold_lookalikes

KINDS = {
    ".pdf": "pdf",
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".docx": "docx",
    ".xlsx": "xlsx",
}
READ_TYPES = ".pdf, .txt, .md, .docx, .xlsx"  # what the unsupported message says pikelocal reads
LEGACY_OFFICE = {  # Office formats not read (the binary .doc/.xls, slides): refused by name, with what to do
    ".doc": "a legacy Word .doc file: save it as .docx in Word",
    ".xls": "a legacy Excel .xls file: save it as .xlsx in Excel",
    ".ppt": "a PowerPoint file: save or print it as PDF",
    ".pptx": "a PowerPoint file: save or print it as PDF",
}
GARBLED_WARNING_SHARE = 0.05  # a real text has next to no control or private-use characters
GARBLED_LINE_MIN = 8  # characters; shorter lines (a lone bullet glyph) are not judged
GARBLED_LINE_SHARE = 0.2  # a line with more of its characters garbled than this is noise (a stamp's broken font)
CONTROL_LINE_SHARE = 0.05  # ... or with more than this, control characters among them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 and C1 controls; tab and line feed are text
MIB = 1 << 20
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ParsedPage:
    page_no: int  # 1-based
    text: str
    line_offsets: tuple[int, ...]  # character offset of each line start within ``text``


@dataclass(frozen=True)
class ParsedDocument:
    path: Path
    kind: str  # "pdf" | "text" | "markdown" | "docx" | "xlsx"
    title: str
    pages: tuple[ParsedPage, ...]
    encoding: str | None  # text files only
    warnings: tuple[str, ...]
    paged: bool = True  # False: the format has no pages (a workbook, a .docx with no stored page breaks): one
    # page holds the text and chunks get no page number ("page unknown", never an invented "p. 1")


def unsupported_error(path: Path) -> DocumentError | None:
    """The failure of a file whose name says it is no document pikelocal reads (judged without reading it)."""
    if path.suffix.lower() in KINDS:
        return None
    if (legacy := LEGACY_OFFICE.get(path.suffix.lower())) is not None:
        return DocumentError(path, "unsupported", f"{legacy} (pikelocal reads {READ_TYPES})")
    shown = f"'{path.suffix}'" if path.suffix else "a file without extension"
    return DocumentError(path, "unsupported", f"unsupported file type {shown} (pikelocal reads {READ_TYPES})")


def size_error(path: Path, size: int, max_bytes: int | None) -> DocumentError | None:
    """The failure of a file bigger than ``max_bytes`` (``ingest.max_file_mb``), refused before it is read."""
    if max_bytes is None or size <= max_bytes:
        return None
    return DocumentError(
        path,
        "too-large",
        f"{size / MIB:,.0f} MB is over the limit of {max_bytes / MIB:,.0f} MB (ingest.max_file_mb); not read",
    )


def parse_document(
    path: Path,
    *,
    password: str | None = None,
    data: bytes | None = None,
    max_bytes: int | None = None,
    pdf_worker: PdfWorker | None = None,
    progress: PageProgress | None = None,
) -> ParsedDocument:
    """Read ``path`` into pages; raise :class:`DocumentError` with a one-line reason when it cannot be used.

    ``data`` is the file's content when the caller has read it already (to hash it), so it is read once. A PDF
    is read by ``pdf_worker`` (a child process within its limits; a one-off one with the default limits when
    None), which calls ``progress(pages read, pages)`` while it waits: whatever that raises stops the reading.
    A Word or Excel file is read by ``pdf_worker`` the same way when one is given; without one it is read in this
    process, within the readers' own limits on characters, rows and cells but no limit on time or memory.
    """
    path = Path(path)
    if (unsupported := unsupported_error(path)) is not None:
        raise unsupported
    kind = KINDS[path.suffix.lower()]
    data = read_file(path, max_bytes=max_bytes) if data is None else data
    if not data:
        raise DocumentError(path, "empty", "the file is empty (0 bytes)")
    read = _read_pages(path, kind, data, password, pdf_worker, progress)
    # look-alike ideographs (a PDF's 年 as U+F98E) read as the characters they are, offsets unchanged
    pages = tuple(replace(p, text=fold_lookalikes(p.text)) for p in read.pages)
    warnings = list(read.warnings)
    if not any(page.text.strip() for page in pages):
        raise _no_text(path, kind, pages, warnings)
    pages, garble_warning = _garble_check(path, kind, pages)
    if garble_warning:
        warnings.append(garble_warning)
    title = fold_lookalikes(_title(path, kind, read.meta_title, pages))
    return ParsedDocument(path, kind, title, pages, read.encoding, tuple(warnings), paged=read.paged)


@dataclass(frozen=True)
class _Read:
    """A file's pages as its reader gave them, before the checks."""

    pages: tuple[ParsedPage, ...]
    meta_title: str | None
    encoding: str | None
    paged: bool
    warnings: tuple[str, ...]


def _read_pages(
    path: Path,
    kind: str,
    data: bytes,
    password: str | None,
    pdf_worker: PdfWorker | None,
    progress: PageProgress | None,
) -> _Read:
    """The file's pages by its kind's reader: PDF, Word and Excel (in ``pdf_worker`` when given), else text."""
    if kind == "pdf":
        texts, meta_title, pdf_warnings = read_pdf(path, data, password, pdf_worker, progress)
        pages = tuple(ParsedPage(number, text, line_offsets(text)) for number, text in enumerate(texts, 1))
        return _Read(pages, meta_title, None, True, tuple(pdf_warnings))
    if kind in ("docx", "xlsx"):
        office = _read_office(path, data, kind, pdf_worker, progress)
        return _Read(_officepage_list(office), _office_title(office), None, office.paged, tuple(office.warnings))
    text, encoding = _decode(path, data)
    return _Read((ParsedPage(1, text, line_offsets(text)),), None, encoding, True, ())


def _no_text(path: Path, kind: str, pages: tuple[ParsedPage, ...], warnings: list[str]) -> DocumentError:
    """The failure of a file whose pages hold no text."""
    if kind == "pdf":
        return DocumentError(
            path,
            "image-only",
            f"no text in its {len(pages)} page(s): an image-only scan?",  # (parse_pdf.read_pdf says what OCR did)
        )
    cut = [w.removeprefix(f"{path}: ") for w in warnings if "limit" in w]  # a workbook's text past its limits
    return DocumentError(path, "empty", "the file holds no text" + (f"; {cut[0]}" if cut else ""))


def _garble_check(path: Path, kind: str, pages: tuple[ParsedPage, ...]) -> tuple[tuple[ParsedPage, ...], str | None]:
    """The pages (a PDF's garbled lines blanked where they repeat over pages) and the warning, when any."""
    garbled = [page.page_no for page in pages if garbled_share(page.text) > GARBLED_WARNING_SHARE]
    # A broken font in a stamp or running header garbles one line per page: too little to flag the page.
    # One such line on a page or two is a formula in a symbol font: not worth a warning.
    with_lines = [page.page_no for page in pages if page.page_no not in garbled and _has_garbled_line(page.text)]
    if len(with_lines) < max(2, len(pages) // 10):
        with_lines = []
    blanked = 0
    if with_lines and kind == "pdf":  # a stamp's noise in every chunk only misleads search: its lines are blanked
        pages, blanked = _blank_garbled_lines(pages, set(with_lines))
    if not garbled and not with_lines:
        return pages, None
    parts = []
    if garbled:
        parts.append(f"on {len(garbled)} of {len(pages)} page(s) ({page_list(garbled)})")
    if with_lines:
        parts.append(f"in some lines of {len(with_lines)} more page(s) ({page_list(with_lines)})")
    left_out = f"; those {blanked} line(s) are left blank" if blanked else ""
    return pages, (
        f"{path}: extracted text looks garbled {' and '.join(parts)}: control, private-use or replacement "
        f"characters; the PDF's font map may be broken{left_out}"
    )


def _read_office(
    path: Path, data: bytes, kind: str, worker: PdfWorker | None, progress: PageProgress | None
) -> OfficeText:
    if worker is not None:
        return worker.read_office(path, data, kind, progress)
    try:
        return read_docx(path, data) if kind == "docx" else read_xlsx(path, data)
    except MemoryError as exc:  # in a reading process that process ends; here the file fails, and the batch goes on
        raise ooxml.library_error(path, "Word" if kind == "docx" else "Excel", exc) from None


def _officepage_list(office: OfficeText) -> tuple[ParsedPage, ...]:
    return tuple(ParsedPage(number, text, line_offsets(text)) for number, text in enumerate(office.pages, 1))


def _office_title(office: OfficeText) -> str | None:
    return clean_pdf_title(office.title) if office.title else None  # "Microsoft Word - x.doc" is no title


def _garbled_line(line: str) -> bool:
    """Whether a line is a broken font's noise: many odd characters, or some and a control character among them
    (a font map shifted by a constant reads "Signed by" as "5KIPGF\\x03D[": \\x03 for each space). A symbol-font
    bullet (private use, U+F0B7) before a line of real text is neither."""
    if len(line.strip()) < GARBLED_LINE_MIN:
        return False
    share = garbled_share(line)
    return share > GARBLED_LINE_SHARE or (share > CONTROL_LINE_SHARE and _CONTROL.search(line) is not None)


def _has_garbled_line(text: str) -> bool:
    return any(_garbled_line(line) for line in text.splitlines())


def _blank_garbled_lines(pages: tuple[ParsedPage, ...], numbers: set[int]) -> tuple[tuple[ParsedPage, ...], int]:
    """The pages with each garbled line of the pages ``numbers`` made empty, and how many lines that was.

    The line stays (empty), so every other line keeps its number: citations and the viewer do not move. A page
    judged garbled as a whole is not among ``numbers`` (OCR reads it, or its warning tells the user).
    """
    out, blanked = [], 0
    for page in pages:
        if page.page_no not in numbers:
            out.append(page)
            continue
        lines = page.text.split("\n")
        kept = ["" if _garbled_line(line) else line for line in lines]
        blanked += sum(1 for a, b in zip(lines, kept, strict=True) if a != b)
        text = "\n".join(kept)
        out.append(ParsedPage(page.page_no, text, line_offsets(text)))
    return tuple(out), blanked


def read_file(path: Path, *, max_bytes: int | None = None) -> bytes:
    """The file's bytes, or a DocumentError saying why they cannot be had (vanished, unreadable, empty, too large).

    What the file is and how big comes from ``stat`` first: a named pipe, a device or a file over ``max_bytes``
    is refused without reading (opening a pipe would wait for a writer forever).
    """
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(st.st_mode):
            raise DocumentError(path, "unsupported", "not a regular file (a named pipe, device or socket)")
        if (too_large := size_error(path, st.st_size, max_bytes)) is not None:
            raise too_large
        data = path.read_bytes()
    except FileNotFoundError:
        raise DocumentError(path, "vanished", "the file is gone (moved or deleted while pikelocal ran?)") from None
    except IsADirectoryError:
        raise DocumentError(path, "unreadable", "is a directory, not a file") from None
    except PermissionError:
        raise DocumentError(path, "unreadable", "cannot read the file: permission denied") from None
    except OSError as exc:
        raise DocumentError(path, "unreadable", f"cannot read the file: {exc.strerror or exc}") from None
    if not data:
        raise DocumentError(path, "empty", "the file is empty (0 bytes)")
    return data


def _decode(path: Path, data: bytes) -> tuple[str, str]:
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DocumentError(path, "unsupported", "binary data, not text")
    try:
        text, encoding = decode_text(data)
    except UnicodeDecodeError:
        raise DocumentError(path, "unsupported", "not text in UTF-8, GB18030 or Big5 (a binary file?)") from None
    return text.replace("\r\n", "\n").replace("\r", "\n"), encoding


def _title(path: Path, kind: str, meta_title: str | None, pages: tuple[ParsedPage, ...]) -> str:
    """PDF metadata title, else the first Markdown heading, else the file name without extension."""
    if meta_title:
        return meta_title
    if kind == "markdown":
        match = _HEADING.search(pages[0].text)
        if match:
            return match.group(1)
    return path.stem
