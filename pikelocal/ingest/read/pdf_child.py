"""The document reading process: ``python -m pikelocal.ingest.read.pdf_child MEMORY_MB``, started by ``pdf_worker.py``.

It reads PDFs and, when the request names the kind "docx" or "xlsx", Word and Excel files (``parse_docx.py``,
``parse_xlsx.py``; their pages answered as a PDF's are, then ``{"done": …}`` with the title, whether the pages are
real and the warnings), under the same limits.

Reads requests from stdin (a JSON header, then the file's bytes) one after another until stdin ends, and
answers each on stdout: ``{"open": pages}``, ``{"page": n, "text": …}`` per page (``{"ocr_page": n}`` before a
page is OCR'd, ``ocr.py``), then ``{"done": …}`` or ``{"error": reason, "detail": …}``. Its address space is
limited to MEMORY_MB (``RLIMIT_AS``; raised to the OCR limit when a page is OCR'd) and each document's CPU time
to what the request allows (``RLIMIT_CPU``, so a child whose parent died still ends). Ctrl-C is the
parent's to handle: the child ignores SIGINT and is killed by the parent. When the parent logs at DEBUG, the
lines ``pdflog.py`` logs for every pypdf record travel with the answers, into the parent's log.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from pathlib import Path
from typing import IO, Any

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.read.ocr import OcrOptions, OcrPageError, PdfOcr, threads_of, wanted
from pikelocal.ingest.read.ocr_engine import OcrUnavailable
from pikelocal.ingest.read.parse_docx import read_docx
from pikelocal.ingest.read.parse_pdf import PdfPages
from pikelocal.ingest.read.parse_xlsx import read_xlsx
from pikelocal.ingest.read.pdf_worker import EXIT_MEMORY, PDFLOG, decode_message, encode_message, frame, read_frame
from pikelocal.ingest.read.pdflog import pypdf_log

MIB = 1 << 20

try:
    import resource
except ImportError:  # not POSIX: no limits but the parent's deadline
    resource = None  # type: ignore[assignment]


class Answers:
    """The child's stdout: framed messages, each carrying the pypdf log lines written since the last one."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.log: list[str] = []

    def send(self, message: dict[str, Any]) -> None:
        if self.log:
            message, self.log = message | {"log": self.log}, []
        self.out.write(frame(encode_message(message)))
        self.out.flush()


class _Forward(logging.Handler):
    """pdflog's DEBUG lines (every pypdf record), kept for the parent's log when the parent logs at DEBUG."""

    def __init__(self, answers: Answers) -> None:
        super().__init__(logging.DEBUG)
        self.answers = answers

    def emit(self, record: logging.LogRecord) -> None:
        self.answers.log.append(record.getMessage())


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answers = Answers(os.fdopen(os.dup(sys.stdout.fileno()), "wb"))
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print goes to stderr, never into the answers
    pdflog_logger = logging.getLogger(PDFLOG)
    pdflog_logger.addHandler(_Forward(answers))
    pdflog_logger.propagate = False
    _limit(getattr(resource, "RLIMIT_AS", None), int(argv[1]) * MIB if len(argv) > 1 else None)
    source = sys.stdin.buffer
    while True:
        header = read_frame(source)
        if header is None:
            return 0
        data = read_frame(source)
        if data is None:
            return 0
        request = decode_message(header)
        pdflog_logger.setLevel(logging.DEBUG if request.get("debug") else logging.INFO)
        try:
            serve(request, data, answers)
        except MemoryError:
            data = header = b""
            answers.log = []
            try:
                answers.send({"error": "memory"})
            finally:
                os._exit(EXIT_MEMORY)  # the heap may be in any state: a fresh process reads the next document


class _Ocr:
    """The OCR of one PDF's pages in this process: which were read, which failed, and the limits OCR raises."""

    def __init__(self, request: dict[str, Any], data: bytes, cpu_limit: float) -> None:
        self.options = OcrOptions(**request.get("ocr", {"mode": "never"}))
        self.reader = PdfOcr(data, request.get("password"), self.options)
        self.pages: list[int] = []
        self.failed: list[tuple[int, str]] = []
        self.cpu_limit = cpu_limit

    def text(self, index: int, text: str, answers: Answers) -> str:
        """The page's OCR'd text when it needs OCR and OCR reads it; else ``text`` (its text layer)."""
        if not wanted(text, self.options.mode) or self.reader.blank(index):
            return text
        answers.send({"ocr_page": index + 1})
        if resource is not None:  # the engine's address space (first page), and this page's CPU time
            memory = resource.getrlimit(resource.RLIMIT_AS)[0]
            if memory != resource.RLIM_INFINITY and memory < self.options.memory_mb * MIB:
                _limit(resource.RLIMIT_AS, self.options.memory_mb * MIB)
            self.cpu_limit += self.options.page_timeout_s * threads_of(self.options)
            _limit(resource.RLIMIT_CPU, int(self.cpu_limit) + 1)
        try:
            read = self.reader.text(index)
        except (OcrUnavailable, OcrPageError) as exc:
            self.failed.append((index + 1, str(exc)))
            return text
        if read.strip():  # OCR that found nothing leaves the page as it was
            self.pages.append(index + 1)
            return read
        return text

    def report(self) -> dict[str, Any]:
        self.reader.close()
        return {"pages": self.pages, "failed": self.failed}


def serve(request: dict[str, Any], data: bytes, answers: Answers) -> None:
    """Read one document and answer: a PDF page by page, a Word or Excel file once read."""
    if request.get("kind", "pdf") != "pdf":
        serve_office(request, data, answers)
    else:
        serve_pdf(request, data, answers)


def _cpu_limit(request: dict[str, Any]) -> float:
    """This document's CPU time limit (what the request allows, past what this process used before it), set."""
    cpu_limit = float(request["cpu_s"])
    if resource is not None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        cpu_limit += used.ru_utime + used.ru_stime
        _limit(resource.RLIMIT_CPU, int(cpu_limit) + 1)
    return cpu_limit


def _failure(err: DocumentError) -> dict[str, Any]:
    return {"error": err.reason, "detail": err.detail}


def _unexpected(exc: Exception) -> dict[str, Any]:
    """A bug in a library: the file's failure, and the process reads on."""
    said = " ".join(str(exc).split())[:200]
    return {"error": "unexpected", "detail": f"unexpected {type(exc).__name__}" + (f": {said}" if said else "")}


def serve_office(request: dict[str, Any], data: bytes, answers: Answers) -> None:
    """Read one Word or Excel file and answer with its pages, then its title, pagination and warnings."""
    path, kind = Path(str(request["path"])), str(request.get("kind"))
    _cpu_limit(request)
    try:
        if kind == "docx":
            office = read_docx(path, data, int(request["max_chars"]))
        elif kind == "xlsx":
            office = read_xlsx(path, data, int(request["max_chars"]))
        else:
            raise DocumentError(path, "unsupported", f"the reading process reads no {kind!r} files")
    except DocumentError as err:
        answers.send(_failure(err))
        return
    except MemoryError:
        raise
    except Exception as exc:
        answers.send(_unexpected(exc))
        return
    del data
    for number, text in enumerate(office.pages, 1):
        answers.send({"page": number, "text": text})
    done: dict[str, Any] = {"done": True, "title": office.title, "paged": office.paged}
    answers.send(done | {"warnings": list(office.warnings), "peak_mb": _peak_mb()})


def serve_pdf(request: dict[str, Any], data: bytes, answers: Answers) -> None:
    """Read one PDF and answer, page by page."""
    path = Path(str(request["path"]))
    max_pages, max_chars = int(request["max_pages"]), int(request["max_chars"])
    cpu_limit = _cpu_limit(request)
    with pypdf_log() as problems:
        try:
            pdf = PdfPages(path, data, request.get("password"))
            ocr = _Ocr(request, data, cpu_limit)  # PDFium reads the same bytes (pypdf's buffer shares them)
            del data
            answers.send({"open": pdf.n_pages})
            if pdf.n_pages > max_pages:
                raise DocumentError(
                    path,
                    "too-many-pages",
                    f"{pdf.n_pages:,} pages is over the limit of {max_pages:,} (ingest.pdf_max_pages); not read",
                )
            chars, cut = 0, False
            for index in range(pdf.n_pages):
                text = ocr.text(index, pdf.text(index), answers)
                if chars + len(text) > max_chars:
                    text, cut = _cut(text, max_chars - chars), True
                chars += len(text)
                answers.send({"page": index + 1, "text": text})
                if cut:
                    break
            title = pdf.title()
        except DocumentError as err:
            answers.send(_failure(err))
            return
        except MemoryError:
            raise
        except Exception as exc:  # a bug in a library: the file's failure, the process reads on
            answers.send(_unexpected(exc))
            return
    done: dict[str, Any] = {"done": True, "title": title, "problems": problems.count, "first": problems.first}
    done |= {"cut": cut, "ocr": ocr.report()}
    answers.send(done | {"peak_mb": _peak_mb()})


def _cut(text: str, room: int) -> str:
    """``text`` cut to at most ``room`` characters, at a line start when it has one."""
    head = text[: max(room, 0)]
    end = head.rfind("\n") + 1
    return head[:end] if end else head


def _limit(kind: int | None, soft: int | None) -> None:
    """Lower the soft limit ``kind`` to ``soft`` (never above the hard limit); quietly skipped where unsupported."""
    if resource is None or kind is None or soft is None:
        return
    try:
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(kind, (soft, hard))
    except (ValueError, OSError):
        pass


def _peak_mb() -> float:
    """This process's peak resident memory since it started this program.

    On Linux that is ``VmHWM``: ``ru_maxrss`` survives ``exec``, so a child forked from a parent holding 1 GB of
    models would report the parent's size and be retired after every PDF (``pdf_worker.REUSE_SHARE``).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    if resource is None:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / MIB if sys.platform == "darwin" else peak / 1024


if __name__ == "__main__":
    sys.exit(main(sys.argv))
