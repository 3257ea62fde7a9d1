"""Parse PDF, plain-text and Markdown files into pages with line positions: the only module importing pypdf.

Word (.docx) and Excel (.xlsx) files are read by ``parse_docx.py`` and ``parse_xlsx.py`` (the package checked in
``ooxml.py``); a workbook, and a .docx with no stored page breaks, is unpaged (``ParsedDocument.paged``).

A PDF is read in a child process within limits on time, memory, pages and characters (``pdf_worker.py``);
:class:`PdfPages` here is what that process runs.

Every failure is a :class:`DocumentError` whose message is one line naming the file and the reason, so a
batch can record it and go on. A garbled extraction is not a failure but a warning on the result.
"""

from __future__ import annotations

import io
import logging
import re
import stat
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.ooxml import OfficeText
from pikelocal.ingest.parse_docx import read_docx
from pikelocal.ingest.parse_xlsx import read_xlsx
from pikelocal.ingest.pdf_worker import PageProgress, PdfWorker
from pikelocal.ingest.textcheck import decode_text, garbled_share, line_offsets

if TYPE_CHECKING:
    from pypdf import PdfReader

log = logging.getLogger(__name__)

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
_PUBSEC = re.compile(rb"/Filter\s*/Adobe\.PubSec")  # the certificate (public-key) security handler
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
PAGE_TEXTS_KEPT = 256  # page texts kept for pages that share what they draw (PdfPages)
PARENT_DEPTH = 32  # page-tree levels searched for inherited /Resources
SHAPE_BUDGET = 256  # PDF objects looked at to tell whether two pages draw the same
PAGE_MAX_CHARS = 100_000  # a dense real page holds some 5,000 characters (see _unflood)
REPEAT_MIN_CHARS = 200  # a page repeating an earlier one's text is kept once from this length on


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
    """
    path = Path(path)
    if (unsupported := unsupported_error(path)) is not None:
        raise unsupported
    kind = KINDS[path.suffix.lower()]
    data = read_file(path, max_bytes=max_bytes) if data is None else data
    if not data:
        raise DocumentError(path, "empty", "the file is empty (0 bytes)")
    warnings: list[str] = []
    paged = True
    if kind == "pdf":
        pages, meta_title, pdf_warnings = _read_pdf(path, data, password, pdf_worker, progress)
        encoding = None
        warnings += pdf_warnings
    elif kind in ("docx", "xlsx"):
        office = read_docx(path, data) if kind == "docx" else read_xlsx(path, data)
        pages, meta_title, encoding, paged = _office_pages(office), _office_title(office), None, office.paged
        warnings += office.warnings
    else:
        text, encoding = _decode(path, data)
        pages, meta_title = (ParsedPage(1, text, line_offsets(text)),), None
    if not any(page.text.strip() for page in pages):
        if kind == "pdf":
            raise DocumentError(
                path,
                "image-only",
                f"no text in its {len(pages)} page(s): an image-only scan?",  # (_read_pdf says what OCR did)
            )
        raise DocumentError(path, "empty", "the file holds no text")
    garbled = [page.page_no for page in pages if garbled_share(page.text) > GARBLED_WARNING_SHARE]
    # A broken font in a stamp or running header garbles one line per page: too little to flag the page.
    # One such line on a page or two is a formula in a symbol font: not worth a warning.
    with_lines = [page.page_no for page in pages if page.page_no not in garbled and _has_garbled_line(page.text)]
    if len(with_lines) < max(2, len(pages) // 10):
        with_lines = []
    blanked = 0
    if with_lines and kind == "pdf":  # a stamp's noise in every chunk only misleads search: its lines are blanked
        pages, blanked = _blank_garbled_lines(pages, set(with_lines))
    if garbled or with_lines:
        parts = []
        if garbled:
            parts.append(f"on {len(garbled)} of {len(pages)} page(s) ({_pages(garbled)})")
        if with_lines:
            parts.append(f"in some lines of {len(with_lines)} more page(s) ({_pages(with_lines)})")
        left_out = f"; those {blanked} line(s) are left blank" if blanked else ""
        warnings.append(
            f"{path}: extracted text looks garbled {' and '.join(parts)}: control, private-use or replacement "
            f"characters; the PDF's font map may be broken{left_out}"
        )
    title = _title(path, kind, meta_title, pages)
    return ParsedDocument(path, kind, title, pages, encoding, tuple(warnings), paged=paged)


def _office_pages(office: OfficeText) -> tuple[ParsedPage, ...]:
    return tuple(ParsedPage(number, text, line_offsets(text)) for number, text in enumerate(office.pages, 1))


def _office_title(office: OfficeText) -> str | None:
    return clean_pdf_title(office.title) if office.title else None  # "Microsoft Word - x.doc" is no title


def _pages(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:10])) + (" …" if len(numbers) > 10 else "")


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


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


class PdfPages:
    """One PDF open in pypdf, read a page at a time (in the reading process, ``pdf_child.py``): its page count,
    each page's text and its title; every failure a :class:`DocumentError`.

    Pages that draw the same content stream with the same resources have the same text (pypdf's plain extraction
    reads nothing else of a page), so it is extracted once: issue 17's 2,000 pages sharing one 3 MB stream cost
    one page's work, not 2,000.
    """

    def __init__(self, path: Path, data: bytes, password: str | None) -> None:
        import pypdf  # lazily: `import pikelocal.api` must stay light
        from pypdf.errors import DependencyError, PyPdfError

        self.path = path
        self._texts: dict[Hashable, str] = {}  # page text by what it is drawn from (see _page_key)
        try:
            self._reader = pypdf.PdfReader(io.BytesIO(data))
            if self._reader.is_encrypted:
                _decrypt(path, self._reader, password)
            self._pages = self._reader.pages
            self.n_pages = len(self._pages)
        except DocumentError:
            raise
        except NotImplementedError as exc:  # pypdf opens only the standard (password) security handler
            raise _not_implemented(path, data, exc) from None
        except DependencyError as exc:
            raise _dependency_error(path, exc) from None
        except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
            raise DocumentError(path, "corrupt", f"not a readable PDF ({_first_line(exc)})") from None

    def text(self, index: int) -> str:
        """The text of page ``index`` (0-based), line ends as ``\\n``."""
        from pypdf.errors import DependencyError

        try:
            page = self._pages[index]
            key = _page_key(page)
            if key is not None and key in self._texts:
                return self._texts[key]
            text = page.extract_text() or ""
        except DependencyError as exc:
            raise _dependency_error(self.path, exc) from None
        except MemoryError:  # the reading process's memory limit: its own reason, not a broken page
            raise
        except Exception as exc:  # pypdf raises many kinds on broken content streams
            detail = type(exc).__name__
            raise DocumentError(self.path, "corrupt", f"page {index + 1} cannot be read ({detail})") from None
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if key is not None:
            if len(self._texts) >= PAGE_TEXTS_KEPT:
                del self._texts[next(iter(self._texts))]
            self._texts[key] = text
        return text

    def title(self) -> str | None:
        return _pdf_title(self._reader)


class _TooMuch(Exception):
    """A page's resources too big to fingerprint cheaply."""


def _page_key(page: Any) -> Hashable | None:
    """What a page's plain text is drawn from: its content stream(s) and its resources (fonts, forms), each as
    the PDF object it refers to, or None when that cannot be told cheaply (then the page is simply extracted)."""
    try:
        node, resources = page, None
        for _ in range(PARENT_DEPTH):  # /Resources may be inherited from the page tree
            if "/Resources" in node:
                resources = node.raw_get("/Resources")
                break
            if "/Parent" not in node:
                break
            node = node.raw_get("/Parent").get_object()
        contents = page.raw_get("/Contents") if "/Contents" in page else None
        budget = [SHAPE_BUDGET]
        return (_shape(contents, budget), _shape(resources, budget))
    except Exception:  # a malformed page tree: not worth a guess
        return None


def _shape(obj: Any, budget: list[int]) -> Hashable:
    """A hashable picture of a PDF object that names other objects by reference (``(number, generation)``)."""
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject, StreamObject

    budget[0] -= 1
    if budget[0] < 0:
        raise _TooMuch
    if isinstance(obj, IndirectObject):
        return ("ref", obj.idnum, obj.generation)
    if isinstance(obj, StreamObject):  # a stream held directly (not in files, where streams are objects)
        raise _TooMuch
    if isinstance(obj, DictionaryObject):
        return ("dict", tuple(sorted((str(k), _shape(v, budget)) for k, v in dict.items(obj))))
    if isinstance(obj, ArrayObject):
        return ("array", tuple(_shape(v, budget) for v in list.__iter__(obj)))
    return (type(obj).__name__, repr(obj))


def _read_pdf(
    path: Path, data: bytes, password: str | None, worker: PdfWorker | None, progress: PageProgress | None
) -> tuple[tuple[ParsedPage, ...], str | None, list[str]]:
    """The PDF's pages, title and warnings, read in a child process within the worker's limits."""
    if worker is None:
        with PdfWorker() as own:
            return _read_pdf(path, data, password, own, progress)
    read = worker.read(path, data, password, progress)
    texts, flood_warnings = _unflood(path, read.pages)
    pages = tuple(ParsedPage(number, text, line_offsets(text)) for number, text in enumerate(texts, 1))
    warnings = [read.problems.warning(path)] if read.problems.count else []
    warnings += flood_warnings + read.ocr.warnings(path, read.n_pages)
    if not any(page.text.strip() for page in pages):  # after OCR, when it was on: its message says what it did
        raise DocumentError(path, "image-only", read.ocr.image_only(len(pages)))
    if read.cut:
        left = read.n_pages - len(pages)
        warnings.append(
            f"{path}: text cut at ingest.pdf_max_chars = {worker.limits.max_chars:,} characters, on page"
            f" {len(pages):,} of {read.n_pages:,}" + (f"; the last {left:,} page(s) are left out" if left else "")
        )
    return pages, read.title, warnings


def _unflood(path: Path, texts: Sequence[str]) -> tuple[list[str], list[str]]:
    """Page texts with what only floods the KB taken out, and a warning for each kind of cut.

    - A page over ``PAGE_MAX_CHARS`` is cut there: a real page holds a few thousand characters; hundreds of
      thousands are a page drawn to flood the KB (issue 17's 2,000 pages sharing one 3 MB stream).
    - A page whose text repeats an earlier page's exactly (``REPEAT_MIN_CHARS`` or more) is kept empty: its
      text is in the KB once, on the first page that has it, and searching or citing it finds that page.
    """
    out: list[str] = []
    seen: set[str] = set()
    cut: list[int] = []
    repeats: list[int] = []
    for number, text in enumerate(texts, 1):
        if len(text) > PAGE_MAX_CHARS:
            text = text[:PAGE_MAX_CHARS]
            cut.append(number)
        key = text.strip()
        if len(key) >= REPEAT_MIN_CHARS and key in seen:
            repeats.append(number)
            text = ""
        elif len(key) >= REPEAT_MIN_CHARS:
            seen.add(key)
        out.append(text)
    warnings = []
    if cut:
        warnings.append(
            f"{path}: text of {len(cut)} page(s) cut at {PAGE_MAX_CHARS:,} characters a page ({_pages(cut)}):"
            " far more than a page holds"
        )
    if repeats:
        warnings.append(
            f"{path}: {len(repeats)} page(s) repeat an earlier page's text exactly ({_pages(repeats)});"
            " it is kept once, on its first page"
        )
    return out, warnings


def _not_implemented(path: Path, data: bytes, exc: NotImplementedError) -> DocumentError:
    """pypdf refused a feature while opening the file: in practice a security handler other than passwords."""
    if _PUBSEC.search(data):
        return DocumentError(path, "encrypted", "encrypted (certificate security handler, not supported)")
    if b"/Encrypt" in data:
        return DocumentError(path, "encrypted", f"encrypted in a way that is not supported ({_first_line(exc)})")
    return DocumentError(path, "corrupt", f"not a readable PDF ({_first_line(exc)})")


def _dependency_error(path: Path, exc: Exception) -> DocumentError:
    """pypdf lacks an optional package (``cryptography`` for AES, a pikelocal dependency): a broken install."""
    return DocumentError(path, "encrypted", f"cannot be decrypted: {_first_line(exc)} (pip install cryptography)")


def _decrypt(path: Path, reader: PdfReader, password: str | None) -> None:
    if password is None:
        if reader.decrypt(""):  # an empty user password: readable without asking
            return
        raise DocumentError(path, "encrypted", "the PDF is encrypted; give its password with --password")
    if not reader.decrypt(password):
        raise DocumentError(path, "encrypted", "the PDF is encrypted and the given password does not open it")


def _pdf_title(reader: PdfReader) -> str | None:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:  # broken metadata must not fail a readable document
        return None
    try:
        return clean_pdf_title(title) if isinstance(title, str) else None
    except Exception:  # a title is a nicety: whatever is wrong with it, the document stays readable
        log.debug("unusable PDF title %r", title)
        return None


_HEX_TITLE = re.compile(r"^<([0-9A-Fa-f\s]+)>$")
_EDITOR_PREFIX = re.compile(r"^(?:Microsoft (?:Word|PowerPoint|Excel) - |Word - )", re.IGNORECASE)
_OFFICE_SUFFIX = re.compile(r"\.(?:docx?|xlsx?|pptx?|wps|rtf|pdf)$", re.IGNORECASE)


def clean_pdf_title(raw: str) -> str | None:
    """A usable title from PDF metadata, or None for junk.

    Some producers store the title as an undecoded hex string (``<4D6963…>``, often GBK bytes) or as
    "Microsoft Word - file.doc"; control characters and replacement characters mean it is not worth showing.
    """
    title = raw.strip().strip("\x00").strip()
    hex_match = _HEX_TITLE.match(title)
    if hex_match:
        try:
            data = bytes.fromhex(re.sub(r"\s", "", hex_match.group(1)))
            title = decode_text(data)[0] if not data.startswith((b"\xfe\xff", b"\xff\xfe")) else data.decode("utf-16")
        except (UnicodeDecodeError, ValueError):  # odd digit count, or bytes in no known encoding
            return None
    title = _OFFICE_SUFFIX.sub("", _EDITOR_PREFIX.sub("", title.strip())).strip()
    if len(title) < 2 or not any(ch.isalnum() for ch in title) or title.lower() == "untitled":
        return None
    if any(ch == "\ufffd" or ord(ch) < 32 for ch in title):
        return None
    return title


def _title(path: Path, kind: str, meta_title: str | None, pages: tuple[ParsedPage, ...]) -> str:
    """PDF metadata title, else the first Markdown heading, else the file name without extension."""
    if meta_title:
        return meta_title
    if kind == "markdown":
        match = _HEADING.search(pages[0].text)
        if match:
            return match.group(1)
    return path.stem
