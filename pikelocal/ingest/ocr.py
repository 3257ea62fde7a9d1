"""OCR of PDF pages in the PDF reading process: the only module importing rapidocr and pypdfium2.

A page is rendered by PDFium (pypdfium2, which honours the page's /Rotate) at ``OcrOptions.dpi``, never more than
``max_side`` pixels on its longer side, and read by rapidocr's PP-OCRv6 models, whose files are the ones the
model manifest lists and verifies (``assets.resolve_ocr_models``; they ship inside the rapidocr wheel). Boxes become
lines in ``ocr_lines.py``. One engine per reading process, created when the first page needs it; one page rendered
at a time and freed before the next, so memory does not grow with the page count.

Nothing here reaches the network: rapidocr is given each model's path (so it never looks for, nor downloads, its
default models; the recognition model carries its character list) and its download helper is replaced by one that
refuses. onnxruntime (1.32) sends usage telemetry to Microsoft over HTTPS unless ``ORT_DISABLE_TELEMETRY=1`` is set
before it initialises (its Privacy.md; without it the OCR process looked up mobile.events.data.microsoft.com), so
it is set before rapidocr is imported. rapidocr's log goes to pikelocal's PDF log at DEBUG (``pdflog.py``), never
to stdout or stderr.
"""

from __future__ import annotations

import logging
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pikelocal.config import available_cpus
from pikelocal.domain.kinds import OcrMode
from pikelocal.ingest.ocr_lines import TextBox, orientation, page_text
from pikelocal.ingest.textcheck import GARBLED_PAGE_SHARE, garbled_share

log = logging.getLogger(__name__)
PDFLOG = "pikelocal.ingest.pdflog"

MAX_THREADS = 2  # onnxruntime threads when ``threads`` is 0: the machine's cores, at most this many
PREVIEW_DPI = 72  # a blank page is told from a preview this fine (a few ms), before any engine is loaded
INK = 160  # a preview pixel darker than this (0 black, 255 white) is something printed
TURNED_SCORE = 0.9  # the classifier's confidence at which rapidocr turns a crop round (its Cls.cls_thresh)


@dataclass(frozen=True)
class OcrOptions:
    """When and how pages are OCR'd (``ingest.ocr*`` settings)."""

    mode: OcrMode = "auto"
    dpi: int = 200
    max_side: int = 2400  # pixels on a rendered page's longer side, whatever its size in points
    threads: int = 0  # onnxruntime's; 0: the machine's cores, at most MAX_THREADS
    page_timeout_s: float = 60.0  # added to the document's time limit for each page OCR'd
    memory_mb: int = 3072  # the reading process's address space once the OCR engine is loaded
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
                f"{path}: the text of {len(self.pages)} of {n_pages} page(s) ({_pages(self.pages)}) is OCR'd ({why});"
                " it may hold recognition errors"
            )
        reasons: dict[str, list[int]] = {}
        for page, reason in self.failed:
            reasons.setdefault(reason, []).append(page)
        for reason, pages in reasons.items():
            where = f"page {pages[0]}" if len(pages) == 1 else f"{len(pages)} pages ({_pages(pages)})"
            out.append(f"{path}: OCR failed on {where}: {reason}; the text layer is kept as it is")
        return out

    def image_only(self, n_pages: int) -> str:
        """The failure message of a PDF left without any text."""
        if self.mode == "never":
            return f"no text layer in its {n_pages} page(s): an image-only scan? (OCR is off; --ocr auto reads it)"
        if self.failed:
            return f"no text layer in its {n_pages} page(s), and OCR failed: {self.failed[0][1]}"
        return f"no text in its {n_pages} page(s): no text layer, and OCR found no text either (a blank scan?)"


def _pages(numbers: tuple[int, ...] | list[int]) -> str:
    return ", ".join(map(str, numbers[:10])) + (" …" if len(numbers) > 10 else "")


def wanted(text: str, mode: OcrMode) -> bool:
    """Whether a page whose text layer reads ``text`` is OCR'd: ``auto`` when that layer is empty or garbled."""
    if mode == "never":
        return False
    return mode == "always" or not text.strip() or garbled_share(text) > GARBLED_PAGE_SHARE


class OcrUnavailable(Exception):
    """The OCR engine cannot be loaded (models missing or corrupt, a library missing): one line."""


class OcrPageError(Exception):
    """One page could not be rendered or read: one line."""


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[-1][:160]}" if lines else type(exc).__name__


class _ToPdfLog(logging.Handler):
    """rapidocr's records, as DEBUG lines of pikelocal's PDF log (which the reading process forwards)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = " ".join(record.getMessage().split())
        except Exception:  # a record whose arguments do not fit its format
            message = " ".join(str(record.msg).split())
        logging.getLogger(PDFLOG).debug("rapidocr %s: %s", record.levelname.lower(), message[:500])


def _quiet_rapidocr() -> None:
    """rapidocr's logger writes to stderr through its own handler: route it to the PDF log instead."""
    rapid = logging.getLogger("RapidOCR")
    for handler in list(rapid.handlers):
        rapid.removeHandler(handler)
    rapid.addHandler(_ToPdfLog(logging.DEBUG))
    rapid.propagate = False


def _refuse_download(*args: Any, **kwargs: Any) -> None:
    raise OcrUnavailable("rapidocr tried to download a file; pikelocal never downloads at run time")


class Engine:
    """rapidocr with the manifest's model files, ``threads`` onnxruntime threads and no network."""

    def __init__(self, models: dict[str, Path], threads: int) -> None:
        os.environ["ORT_DISABLE_TELEMETRY"] = "1"  # before onnxruntime initialises (see the module's description)
        from rapidocr import RapidOCR
        from rapidocr.utils.download_file import DownloadFile

        DownloadFile.run = classmethod(_refuse_download)  # type: ignore[method-assign,assignment]
        _quiet_rapidocr()
        self.threads = threads
        self._ocr: Any = RapidOCR(
            params={
                "Global.log_level": "info",  # all of it to the PDF log at DEBUG (_ToPdfLog)
                "Global.max_side_len": 1 << 16,  # pages arrive at their size (OcrOptions.max_side): no resizing
                "Det.model_path": str(models["det"]),
                "Cls.model_path": str(models["cls"]),
                "Rec.model_path": str(models["rec"]),
                "EngineConfig.onnxruntime.intra_op_num_threads": threads,
                "EngineConfig.onnxruntime.inter_op_num_threads": 1,
            }
        )
        _quiet_rapidocr()  # RapidOCR() sets its logger's level again

    def read(self, image: Any) -> str:
        """The text of a page image (a BGR ``numpy`` array), one line per visual line.

        rapidocr's steps, but the orientation classifier decides for the page, not line by line: it turns about
        one clear line in thirty round by mistake (score just over its 0.9), and the recogniser then reads
        nothing there. Every crop is read the way the majority of the page's lines (by length) says."""
        import numpy as np
        from rapidocr.main import RapidOCRError

        ocr = self._ocr
        prepared, record = ocr.preprocess_img(image)
        try:
            crops, det = ocr.detect_and_crop(prepared, record)
            cls = ocr.cls_and_rotate(crops)[1]
            shapes = [TextBox.from_points(points, "") for points in det.boxes]
            turned = [label == "180" and score >= TURNED_SCORE for label, score in cls.cls_res]
            lengths = [crop.shape[1] / max(crop.shape[0], 1) for crop in crops]  # about its characters
            turn = orientation(shapes, turned, lengths)
            if turn in (90, 180):  # upside down: every crop turned round, whatever the classifier said of it
                crops = [np.ascontiguousarray(crop[::-1, ::-1]) for crop in crops]
            rec = ocr.recognize_txt(crops)
        except RapidOCRError:  # nothing detected or recognised (a page with no text)
            return ""
        out = ocr.build_final_output(image, det, cls, rec, crops, record)
        if getattr(out, "boxes", None) is None or getattr(out, "txts", None) is None:
            return ""
        boxes = [TextBox.from_points(points, text) for points, text in zip(out.boxes, out.txts, strict=True)]
        height, width = image.shape[:2]
        return page_text(boxes, turn, width, height)


_engine: Engine | None = None
_engine_error: str | None = None


def engine(options: OcrOptions) -> Engine:
    """This process's engine, created at the first call; :class:`OcrUnavailable` when it cannot be."""
    global _engine, _engine_error
    if _engine is not None:
        return _engine
    if _engine_error is not None:
        raise OcrUnavailable(_engine_error)
    from pikelocal.assets import resolve_ocr_models
    from pikelocal.domain.errors import PikeError

    threads = threads_of(options)
    try:
        models = resolve_ocr_models(Path(options.models_dir).expanduser() if options.models_dir else None)
        _engine = Engine(models, threads)
    except MemoryError:
        raise
    except PikeError as exc:
        _engine_error = str(exc)
        raise OcrUnavailable(_engine_error) from None
    except Exception as exc:  # rapidocr or onnxruntime missing or broken
        _engine_error = f"the OCR engine cannot be loaded ({_first_line(exc)})"
        raise OcrUnavailable(_engine_error) from None
    return _engine


def engine_loaded() -> bool:
    return _engine is not None


class PdfOcr:
    """One PDF's pages, rendered and read one at a time (in the reading process)."""

    def __init__(self, data: bytes, password: str | None, options: OcrOptions) -> None:
        self.data, self.password, self.options = data, password, options
        self._pdf: Any = None

    def _page(self, index: int) -> Any:
        if self._pdf is None:
            import pypdfium2 as pdfium

            self._pdf = pdfium.PdfDocument(self.data, password=self.password)
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
        reader = engine(self.options)
        bitmap = page = None
        try:
            page = self._page(index)
            bitmap = page.render(scale=self.scale(*page.get_size()))
            return reader.read(bitmap.to_numpy())
        except MemoryError:
            raise
        except Exception as exc:  # PDFium's and rapidocr's many kinds of failure: this page's, not the file's
            raise OcrPageError(_first_line(exc)) from None
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
            self._pdf = None
