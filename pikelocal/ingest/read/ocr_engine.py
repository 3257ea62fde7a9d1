"""rapidocr in the PDF reading process: the only module importing it (and, through it, onnxruntime there).

One engine per process, created when the first page needs it, from the model files the manifest lists and verifies
(``assets.resolve_ocr_models``; they ship inside the rapidocr wheel). rapidocr's own steps are run one by one so that
the orientation classifier decides for the whole page (:meth:`Engine.read`); the boxes become lines in
``ocr_lines.py``.

Nothing here reaches the network: rapidocr is given each model's path (so it never looks for, nor downloads, its
default models; the recognition model carries its character list) and its download helper is replaced by one that
refuses. onnxruntime's usage telemetry is switched off by the package's ``__init__`` (``NO_PHONE_HOME``), which
this child process, like every entry into pikelocal, runs before anything here is imported. rapidocr's log goes
to pikelocal's PDF log at DEBUG (``pdflog.py``), never to stdout or stderr.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pikelocal.ingest.read.ocr_lines import TextBox, orientation, page_text

PDFLOG = "pikelocal.ingest.read.pdflog"
TURNED_SCORE = 0.9  # the classifier's confidence at which rapidocr turns a crop round (its Cls.cls_thresh)


class OcrUnavailable(Exception):
    """The OCR engine cannot be loaded (models missing or corrupt, a library missing): one line."""


def first_line(exc: BaseException) -> str:
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


def _session_options(make: Any) -> Any:
    """rapidocr's onnxruntime session options without the memory pattern: onnxruntime keeps a plan per input
    shape, and the recogniser sees a new width with nearly every batch, so the reading process grew by some 5 MB
    a page (RSS 506 -> 701 MB over 50 scanned pages); without it, it stayed at 330-410 MB over 60, as fast."""

    def options(config: Any) -> Any:
        made = make(config)
        made.enable_mem_pattern = False
        return made

    return options


def _refuse_download(*args: Any, **kwargs: Any) -> None:
    raise OcrUnavailable("rapidocr tried to download a file; pikelocal never downloads at run time")


class Engine:
    """rapidocr with the manifest's model files, ``threads`` onnxruntime threads and no network."""

    def __init__(self, models: dict[str, Path], threads: int) -> None:
        from rapidocr import RapidOCR
        from rapidocr.inference_engine.onnxruntime.main import OrtInferSession
        from rapidocr.utils.download_file import DownloadFile

        DownloadFile.run = classmethod(_refuse_download)  # type: ignore[method-assign,assignment]
        OrtInferSession._init_sess_opts = staticmethod(  # type: ignore[method-assign]
            _session_options(OrtInferSession._init_sess_opts)
        )
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


def engine(models_dir: str, threads: int) -> Engine:
    """This process's engine (``threads`` onnxruntime threads, the OCR models of the manifest in ``models_dir``,
    empty: the default one), created at the first call; :class:`OcrUnavailable` when it cannot be."""
    global _engine, _engine_error
    if _engine is not None:
        return _engine
    if _engine_error is not None:
        raise OcrUnavailable(_engine_error)
    from pikelocal.assets import resolve_ocr_models
    from pikelocal.domain.errors import PikeError

    try:
        models = resolve_ocr_models(Path(models_dir).expanduser() if models_dir else None)
        _engine = Engine(models, threads)
    except MemoryError:
        raise
    except PikeError as exc:
        _engine_error = str(exc)
        raise OcrUnavailable(_engine_error) from None
    except Exception as exc:  # rapidocr or onnxruntime missing or broken
        _engine_error = f"the OCR engine cannot be loaded ({first_line(exc)})"
        raise OcrUnavailable(_engine_error) from None
    return _engine
