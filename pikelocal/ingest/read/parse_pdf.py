"""The PDF reader: a PDF's page texts and title, read with pypdf in a child process within limits (the only
module importing pypdf).

:class:`PdfPages` is what the reading process (``pdf_child.py``) runs; :func:`read_pdf` is what ``parse.py``
calls: the texts come back through ``pdf_worker.py``, with what only floods the KB taken out (``_unflood``).
Every failure is a :class:`DocumentError` whose message is one line naming the file and the reason.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.read.pdf_worker import PageProgress, PdfWorker
from pikelocal.ingest.read.textcheck import decode_text, first_line, page_list

if TYPE_CHECKING:
    from pypdf import PdfReader

log = logging.getLogger(__name__)

_PUBSEC = re.compile(rb"/Filter\s*/Adobe\.PubSec")  # the certificate (public-key) security handler
PAGE_TEXTS_KEPT = 256  # page texts kept for pages that share what they draw (PdfPages)
PARENT_DEPTH = 32  # page-tree levels searched for inherited /Resources
SHAPE_BUDGET = 256  # PDF objects looked at to tell whether two pages draw the same
PAGE_MAX_CHARS = 100_000  # a dense real page holds some 5,000 characters (see _unflood)
REPEAT_MIN_CHARS = 200  # a page repeating an earlier one's text is kept once from this length on


class PdfPages:
    """One PDF open in pypdf, read a page at a time (in the reading process, ``pdf_child.py``): its page count,
    each page's text and its title; every failure a :class:`DocumentError`.

    Pages that draw the same content stream with the same resources have the same text (pypdf's plain extraction
    reads nothing else of a page), so it is extracted once: a hostile PDF's 2,000 pages sharing one 3 MB stream cost
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
            raise DocumentError(path, "corrupt", f"not a readable PDF ({first_line(exc)})") from None

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


def read_pdf(
    path: Path, data: bytes, password: str | None, worker: PdfWorker | None, progress: PageProgress | None
) -> tuple[list[str], str | None, list[str]]:
    """The PDF's page texts, title and warnings, read in a child process within the worker's limits."""
    if worker is None:
        with PdfWorker() as own:
            return read_pdf(path, data, password, own, progress)
    read = worker.read(path, data, password, progress)
    texts, flood_warnings = _unflood(path, read.pages)
    warnings = [read.problems.warning(path)] if read.problems.count else []
    warnings += flood_warnings + read.ocr.warnings(path, read.n_pages)
    if not any(text.strip() for text in texts):  # after OCR, when it was on: its message says what it did
        raise DocumentError(path, "image-only", read.ocr.image_only(len(texts)))
    if read.cut:
        left = read.n_pages - len(texts)
        warnings.append(
            f"{path}: text cut at ingest.pdf_max_chars = {worker.limits.max_chars:,} characters, on page"
            f" {len(texts):,} of {read.n_pages:,}" + (f"; the last {left:,} page(s) are left out" if left else "")
        )
    return texts, read.title, warnings


def _unflood(path: Path, texts: Sequence[str]) -> tuple[list[str], list[str]]:
    """Page texts with what only floods the KB taken out, and a warning for each kind of cut.

    - A page over ``PAGE_MAX_CHARS`` is cut there: a real page holds a few thousand characters; hundreds of
      thousands are a page drawn to flood the KB (a hostile PDF's 2,000 pages sharing one 3 MB stream).
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
            f"{path}: text of {len(cut)} page(s) cut at {PAGE_MAX_CHARS:,} characters a page ({page_list(cut)}):"
            " far more than a page holds"
        )
    if repeats:
        warnings.append(
            f"{path}: {len(repeats)} page(s) repeat an earlier page's text exactly ({page_list(repeats)});"
            " it is kept once, on its first page"
        )
    return out, warnings


def _not_implemented(path: Path, data: bytes, exc: NotImplementedError) -> DocumentError:
    """pypdf refused a feature while opening the file: in practice a security handler other than passwords."""
    if _PUBSEC.search(data):
        return DocumentError(path, "encrypted", "encrypted (certificate security handler, not supported)")
    if b"/Encrypt" in data:
        return DocumentError(path, "encrypted", f"encrypted in a way that is not supported ({first_line(exc)})")
    return DocumentError(path, "corrupt", f"not a readable PDF ({first_line(exc)})")


def _dependency_error(path: Path, exc: Exception) -> DocumentError:
    """pypdf lacks an optional package (``cryptography`` for AES, a pikelocal dependency): a broken install."""
    return DocumentError(path, "encrypted", f"cannot be decrypted: {first_line(exc)} (pip install cryptography)")


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
# Titles an editor or a template leaves behind: a document listed by one of these is listed by its text or file
# name instead ("範本檔" is "template file": the review guidelines of a Taiwanese tender carry it).
_PLACEHOLDER = re.compile(
    r"(?:untitled|no title|title|document\s*\d*|doc\d*|template|slide\s*\d*|presentation\d*|powerpoint presentation"
    r"|new microsoft (?:word|excel|powerpoint) document|(?:新建\s*)?microsoft\s*(?:word|excel|powerpoint)\s*文[档檔件]"
    r"|文[档檔]\s*\d*|无标题|無標題|未命名|标题|標題|范本|範本|范本档|範本檔|模板|模版|样本|樣本|空白文[档檔件]|[范範]例|示例文件"
    r"|sample|test|draft|temp|tmp|new document|[a-z]:\\.*)",
    re.IGNORECASE,
)


def clean_pdf_title(raw: str) -> str | None:
    """A usable title from PDF metadata, or None for junk.

    Some producers store the title as an undecoded hex string (``<4D6963…>``, often GBK bytes) or as
    "Microsoft Word - file.doc"; control characters and replacement characters mean it is not worth showing, and a
    placeholder ("Untitled", "範本檔", "Document1") says nothing of the document.
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
    if len(title) < 2 or not any(ch.isalnum() for ch in title) or _PLACEHOLDER.fullmatch(title):
        return None
    if any(ch == "\ufffd" or ord(ch) < 32 for ch in title):
        return None
    return title
