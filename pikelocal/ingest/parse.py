"""Parse PDF, plain-text and Markdown files into pages with line positions: the only module importing pypdf.

Every failure is a :class:`DocumentError` whose message is one line naming the file and the reason, so a
batch can record it and go on. A garbled extraction is not a failure but a warning on the result.
"""

from __future__ import annotations

import io
import logging
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.pdflog import PdfProblems, pypdf_log
from pikelocal.ingest.textcheck import decode_text, garbled_share, line_offsets

if TYPE_CHECKING:
    from pypdf import PdfReader

log = logging.getLogger(__name__)

KINDS = {".pdf": "pdf", ".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown"}
GARBLED_WARNING_SHARE = 0.05  # a real text has next to no control or private-use characters
GARBLED_LINE_MIN = 8  # characters; shorter lines (a lone bullet glyph) are not judged
MIB = 1 << 20
_PUBSEC = re.compile(rb"/Filter\s*/Adobe\.PubSec")  # the certificate (public-key) security handler
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ParsedPage:
    page_no: int  # 1-based
    text: str
    line_offsets: tuple[int, ...]  # character offset of each line start within ``text``


@dataclass(frozen=True)
class ParsedDocument:
    path: Path
    kind: str  # "pdf" | "text" | "markdown"
    title: str
    pages: tuple[ParsedPage, ...]
    encoding: str | None  # text files only
    warnings: tuple[str, ...]


def unsupported_error(path: Path) -> DocumentError | None:
    """The failure of a file whose name says it is no document pikelocal reads (judged without reading it)."""
    if path.suffix.lower() in KINDS:
        return None
    shown = f"'{path.suffix}'" if path.suffix else "a file without extension"
    return DocumentError(path, "unsupported", f"unsupported file type {shown} (pikelocal reads .pdf, .txt, .md)")


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
    path: Path, *, password: str | None = None, data: bytes | None = None, max_bytes: int | None = None
) -> ParsedDocument:
    """Read ``path`` into pages; raise :class:`DocumentError` with a one-line reason when it cannot be used.

    ``data`` is the file's content when the caller has read it already (to hash it), so it is read once.
    """
    path = Path(path)
    if (unsupported := unsupported_error(path)) is not None:
        raise unsupported
    kind = KINDS[path.suffix.lower()]
    data = read_file(path, max_bytes=max_bytes) if data is None else data
    if not data:
        raise DocumentError(path, "empty", "the file is empty (0 bytes)")
    warnings = []
    if kind == "pdf":
        pages, meta_title, problems = _parse_pdf(path, data, password)
        encoding = None
        if problems.count:
            warnings.append(problems.warning(path))
    else:
        text, encoding = _decode(path, data)
        pages, meta_title = (ParsedPage(1, text, line_offsets(text)),), None
    if not any(page.text.strip() for page in pages):
        if kind == "pdf":
            raise DocumentError(
                path,
                "image-only",
                f"no text layer in its {len(pages)} page(s): an image-only scan? (OCR is not supported)",
            )
        raise DocumentError(path, "empty", "the file holds no text")
    garbled = [page.page_no for page in pages if garbled_share(page.text) > GARBLED_WARNING_SHARE]
    # A broken font in a stamp or running header garbles one line per page: too little to flag the page.
    # One such line on a page or two is a formula in a symbol font: not worth a warning.
    with_lines = [page.page_no for page in pages if page.page_no not in garbled and _has_garbled_line(page.text)]
    if len(with_lines) < max(2, len(pages) // 10):
        with_lines = []
    if garbled or with_lines:
        parts = []
        if garbled:
            parts.append(f"on {len(garbled)} of {len(pages)} page(s) ({_pages(garbled)})")
        if with_lines:
            parts.append(f"in some lines of {len(with_lines)} more page(s) ({_pages(with_lines)})")
        warnings.append(
            f"{path}: extracted text looks garbled {' and '.join(parts)}: control, private-use or replacement "
            "characters; the PDF's font map may be broken"
        )
    return ParsedDocument(path, kind, _title(path, kind, meta_title, pages), pages, encoding, tuple(warnings))


def _pages(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:10])) + (" …" if len(numbers) > 10 else "")


def _has_garbled_line(text: str) -> bool:
    return any(len(line.strip()) >= GARBLED_LINE_MIN and garbled_share(line) > 0.2 for line in text.splitlines())


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


def _parse_pdf(path: Path, data: bytes, password: str | None) -> tuple[tuple[ParsedPage, ...], str | None, PdfProblems]:
    import pypdf  # lazily: `import pikelocal.api` must stay light
    from pypdf.errors import DependencyError, PyPdfError

    with pypdf_log() as problems:
        try:
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                _decrypt(path, reader, password)
            pages = reader.pages
            n_pages = len(pages)
        except DocumentError:
            raise
        except NotImplementedError as exc:  # pypdf opens only the standard (password) security handler
            raise _not_implemented(path, data, exc) from None
        except DependencyError as exc:
            raise _dependency_error(path, exc) from None
        except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
            raise DocumentError(path, "corrupt", f"not a readable PDF ({_first_line(exc)})") from None
        parsed = []
        for index in range(n_pages):
            try:
                text = pages[index].extract_text() or ""
            except DependencyError as exc:
                raise _dependency_error(path, exc) from None
            except Exception as exc:  # pypdf raises many kinds on broken content streams
                detail = type(exc).__name__
                raise DocumentError(path, "corrupt", f"page {index + 1} cannot be read ({detail})") from None
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            parsed.append(ParsedPage(index + 1, text, line_offsets(text)))
        title = _pdf_title(reader)
    return tuple(parsed), title, problems


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
