"""OCR of PDF pages in the PDF reading process: when a page is OCR'd, what OCR did, and the pages rendered by
PDFium (the only module importing pypdfium2).

A page is OCR'd when its text layer is empty or garbled (``auto``), or always, or never (:func:`wanted`). It is
rendered by PDFium (which honours the page's /Rotate) at ``OcrOptions.dpi``, never more than ``max_side`` pixels on
its longer side, and read by the process's one engine (``ocr_engine.py``, rapidocr); a blank page is told from a
72-dpi preview and needs no engine. One page rendered at a time and freed before the next.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pikelocal.config import available_cpus, default_of
from pikelocal.domain.kinds import OcrMode
from pikelocal.ingest.read.ocr_engine import engine, first_line
from pikelocal.ingest.read.textcheck import GARBLED_PAGE_SHARE, garbled_share, page_list

MAX_THREADS = 2  # onnxruntime threads when ``threads`` is 0: the machine's cores, at most this many
PREVIEW_DPI = 72  # a blank page is told from a preview this fine (a few ms), before any engine is loaded
INK = 160  # a preview pixel darker than this (0 black, 255 white) is something printed
# PDFium keeps every object it has loaded until the document closes: +135 MB over a 94 MB, 300-page scan. Opened
# again after this many pages, it holds at most theirs.
REOPEN_EVERY = 32


@dataclass(frozen=True)
class OcrOptions:
    """When and how pages are OCR'd (``ingest.ocr*`` settings, whose declared defaults are these)."""

    mode: OcrMode = default_of("ingest.ocr")
    dpi: int = default_of("ingest.ocr_dpi")
    max_side: int = default_of("ingest.ocr_max_side")  # pixels on a rendered page's longer side, whatever its size
    threads: int = default_of("ingest.ocr_threads")  # onnxruntime's; 0: the machine's cores, at most MAX_THREADS
    page_timeout_s: float = default_of("ingest.ocr_page_timeout_s")  # added to the time limit per page OCR'd
    memory_mb: int = default_of("ingest.ocr_memory_mb")  # the reading process's address space with OCR loaded
    models_dir: str = ""  # the model manifest's folder; empty: the default one


DEFAULT_OCR = OcrOptions()


def threads_of(options: OcrOptions) -> int:
    return options.threads or min(MAX_THREADS, available_cpus())


@dataclass(frozen=True)
class OcrReport:
    """What OCR did to one PDF: the pages whose text it gave, and the pages it could not read, with why."""

    mode: OcrMode = "never"
    pages: tuple[int, ...] = ()  # 1-based
    failed: tuple[tuple[int, str], ...] = ()  # (page, one-line reason); the page keeps its text layer

    @classmethod
    def from_message(cls, mode: OcrMode, raw: Any) -> OcrReport:
        """The reading process's account (``{"pages": […], "failed": [[page, reason], …]}``)."""
        if not isinstance(raw, dict):
            return cls(mode)
        failed = tuple((int(page), str(reason)) for page, reason in raw.get("failed", ()))
        return cls(mode, tuple(int(p) for p in raw.get("pages", ())), failed)

    def warnings(self, path: Path, n_pages: int) -> list[str]:
        """One line for the OCR'd pages (their text may hold recognition errors), one per reason of failure."""
        out = []
        if self.pages:
            why = "every page" if self.mode == "always" else "no text layer or a garbled one"
            out.append(
                f"{path}: the text of {len(self.pages)} of {n_pages} page(s) ({page_list(self.pages)}) is OCR'd"
                f" ({why}); it may hold recognition errors"
            )
        reasons: dict[str, list[int]] = {}
        for page, reason in self.failed:
            reasons.setdefault(reason, []).append(page)
        for reason, pages in reasons.items():
            where = f"page {pages[0]}" if len(pages) == 1 else f"{len(pages)} pages ({page_list(pages)})"
            out.append(f"{path}: OCR failed on {where}: {reason}; the text layer is kept as it is")
        return out

    def image_only(self, n_pages: int) -> str:
        """The failure message of a PDF left without any text."""
        if self.mode == "never":
            return f"no text layer in its {n_pages} page(s): an image-only scan? (OCR is off; --ocr auto reads it)"
        if self.failed:
            return f"no text layer in its {n_pages} page(s), and OCR failed: {self.failed[0][1]}"
        return f"no text in its {n_pages} page(s): no text layer, and OCR found no text either (a blank scan?)"


def wanted(text: str, mode: OcrMode) -> bool:
    """Whether a page whose text layer reads ``text`` is OCR'd: ``auto`` when that layer is empty or garbled."""
    if mode == "never":
        return False
    return mode == "always" or not text.strip() or garbled_share(text) > GARBLED_PAGE_SHARE


class OcrPageError(Exception):
    """One page could not be rendered or read: one line."""


class PdfOcr:
    """One PDF's pages, rendered and read one at a time (in the reading process)."""

    def __init__(self, data: bytes, password: str | None, options: OcrOptions) -> None:
        self.data, self.password, self.options = data, password, options
        self._pdf: Any = None
        self._opened_for = 0  # pages loaded since the document was opened

    def _page(self, index: int) -> Any:
        if self._opened_for >= REOPEN_EVERY:
            self.close()
        if self._pdf is None:
            import pypdfium2 as pdfium

            self._pdf = pdfium.PdfDocument(self.data, password=self.password)
        self._opened_for += 1
        return self._pdf[index]

    def blank(self, index: int) -> bool:
        """Whether page ``index`` prints nothing at all (an empty page needs no OCR, nor an engine); a page that
        cannot be rendered is not blank (OCR then says what is wrong with it)."""
        bitmap = page = None
        try:
            page = self._page(index)
            bitmap = page.render(scale=PREVIEW_DPI / 72, grayscale=True)
            return bool(bitmap.to_numpy().min() >= INK)
        except MemoryError:
            raise
        except Exception:
            return False
        finally:
            if bitmap is not None:
                bitmap.close()
            if page is not None:
                page.close()

    def text(self, index: int) -> str:
        """The OCR'd text of page ``index`` (0-based): :class:`OcrUnavailable` when there is no engine,
        :class:`OcrPageError` when this page cannot be rendered or read."""
        reader = engine(self.options.models_dir, threads_of(self.options))
        bitmap = page = None
        try:
            page = self._page(index)
            bitmap = page.render(scale=self.scale(*page.get_size()))
            return reader.read(bitmap.to_numpy())
        except MemoryError:
            raise
        except Exception as exc:  # PDFium's and rapidocr's many kinds of failure: this page's, not the file's
            raise OcrPageError(first_line(exc)) from None
        finally:
            if bitmap is not None:
                bitmap.close()
            if page is not None:
                page.close()

    def scale(self, width_pt: float, height_pt: float) -> float:
        """Pixels per point: ``dpi``, unless that makes the longer side more than ``max_side`` pixels."""
        longest = max(width_pt, height_pt, 1.0)
        return min(self.options.dpi / 72, self.options.max_side / longest) if math.isfinite(longest) else 1.0

    def close(self) -> None:
        if self._pdf is not None:
            self._pdf.close()
            self._pdf, self._opened_for = None, 0
