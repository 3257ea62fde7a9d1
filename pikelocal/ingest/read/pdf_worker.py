"""PDF, Word and Excel text read in a child process with limits on time, memory, pages and characters; cancellable
mid-file.

Why: a 321 KB PDF whose 2,000 pages all draw one 3 MB content stream kept pypdf busy for hours, and
nothing could stop it short of killing pikelocal. pypdf is pure Python with no way to interrupt a page, so the
only bound that holds whatever a file does is another process, which can be given a memory ceiling and be killed.

Design (the choices and why):

- **A child process that reads one PDF at a time** (``python -m pikelocal.ingest.read.pdf_child``, started with
  :mod:`subprocess`) and is **reused for the next PDF** while it behaves. The parent sends the file's bytes (the
  ones it hashed, so what is parsed is what is recorded) and gets back each page's text as it is read. Starting
  a fresh interpreter with pypdf costs 0.2-0.4 s, which a batch of small PDFs would pay per file; one reused child
  pays it once. A child that was killed (time limit, cancel), died (memory, crash) or peaked above a quarter of
  its memory limit is not reused: the next PDF gets a fresh one, so one file's limits never depend on the file
  read before it. ``multiprocessing`` was not used: 'spawn' pays the start-up per process as well, and both
  'spawn' and 'forkserver' re-run the ``pikelocal`` console script as ``__mp_main__`` in every child, importing
  the CLI there; a plain module behind a pipe is also simpler to kill and to reason about.
- **Time** (``ingest.pdf_timeout_s``, default 300 s): the parent's own deadline per document; past it the child
  is killed and the file fails with "… took longer than ingest.pdf_timeout_s = N s after P of Q pages". The
  default fits a 3,000-page document on a slow CPU (pypdf read 116 pages of a tender in 12 s on a loaded
  2-core machine); the child also gets that much CPU time (``RLIMIT_CPU``), so it ends even if the parent dies.
- **Memory** (``ingest.pdf_memory_mb``, default 1,536 MB): ``RLIMIT_AS`` in the child, where pypdf's
  ``MemoryError`` becomes "… needed more than ingest.pdf_memory_mb = N MB …" (the child measured 46 MB with pypdf
  loaded, real PDFs peak under 50 MB). Any other death of the child (a signal, an exit) is a one-line reason too.
- **Pages** (``ingest.pdf_max_pages``, default 5,000): counted before a page is read; over it the file fails.
- **Characters** (``ingest.pdf_max_chars``, default 20 M): the child stops reading once the text reaches it; the
  document is kept, cut at a line start on the page where it ran over, with a warning.
- **Progress and cancel**: while it waits, the parent calls ``progress(pages read, pages)`` after pages arrive
  and at least every :data:`PROGRESS_EVERY_S` (``progress(pages read, pages, True)`` while the next page is OCR'd);
  whatever that raises (the Ingestor's cancellable sink raising ``Cancelled``, Ctrl-C's ``KeyboardInterrupt``)
  kills the child before it propagates, so no child outlives it.
- **OCR** (``ingest.ocr``, ``ocr.py``): the child OCRs a page without a usable text layer where it reads it. Each
  page OCR'd adds ``ingest.ocr_page_timeout_s`` to the document's time (and CPU time) limit, and the first one
  raises the child's memory limit to ``ingest.ocr_memory_mb`` (the engine needs some 1.5 GB of address space); a
  child that OCR'd is not given another PDF.

Word (.docx) and Excel (.xlsx) files are read by the same child (:meth:`PdfWorker.read_office`: a
paragraph of millions of runs, a sheet with a cell in Excel's last column on every row, each kept pikelocal busy
for many minutes with no way to stop it) under the same time, memory and character limits (``ingest.pdf_*``), and
a cancel kills it the same way. ``parse_docx.py`` and ``parse_xlsx.py`` bound their own work as well (characters
counted while the XML is read, rows, cells); the child is what holds when a file finds a cost they did not foresee.
Their pages come back as a PDF's do; the last message carries whether they are real pages, the title and warnings.

Messages are JSON (text as UTF-8 with lone surrogates passed through, as pypdf may return them), framed by an
8-byte length; nothing from the child is unpickled. The child's stderr goes to a temporary file (never over the
TUI), whose last line is quoted when the child fails to start; pypdf's lines at DEBUG come back with the messages
when this process logs at DEBUG.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Protocol

from pikelocal.config import default_of
from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.read.ocr import DEFAULT_OCR, OcrOptions, OcrReport
from pikelocal.ingest.read.ooxml import OfficeText
from pikelocal.ingest.read.pdflog import PdfProblems

log = logging.getLogger(__name__)
PDFLOG = "pikelocal.ingest.read.pdflog"  # the logger with a DEBUG line for every pypdf record (pdflog.py)


class PageProgress(Protocol):
    """Told (pages read so far, pages in the document (0 while opening), whether the next page is being OCR'd)."""

    def __call__(self, done: int, total: int, ocr: bool = False, /) -> None: ...


CHILD_MODULE = "pikelocal.ingest.read.pdf_child"
PROGRESS_EVERY_S = 0.25  # the longest a cancel waits while a page is being read
EXIT_MEMORY = 3  # the child's exit status after a MemoryError it could not report
REUSE_SHARE = 4  # a child that peaked above 1/REUSE_SHARE of its memory limit is not given another PDF
OFFICE_KINDS = {"docx": "the Word file", "xlsx": "the Excel file"}  # what the child reads besides PDFs, as named
_LENGTH = struct.Struct(">Q")
_MAX_FRAME = 1 << 32


@dataclass(frozen=True)
class PdfLimits:
    """The bounds on reading one PDF (``ingest.pdf_*`` settings, whose declared defaults are these)."""

    timeout_s: float = default_of("ingest.pdf_timeout_s")
    memory_mb: int = default_of("ingest.pdf_memory_mb")
    max_pages: int = default_of("ingest.pdf_max_pages")
    max_chars: int = default_of("ingest.pdf_max_chars")


@dataclass(frozen=True)
class PdfText:
    """What the child read: the text of pages 1 … len(pages) (all of them unless ``cut``)."""

    n_pages: int
    pages: tuple[str, ...]
    title: str | None
    problems: PdfProblems  # what pypdf logged while reading
    cut: bool  # the text reached ``max_chars``: the last page is cut and the pages after it are not read
    ocr: OcrReport = OcrReport()  # the pages OCR'd, and those OCR could not read


# --- framing (both sides) --------------------------------------------------------------------------------


def encode_message(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")


def decode_message(payload: bytes) -> dict[str, Any]:
    message = json.loads(payload.decode("utf-8", "surrogatepass"))
    if not isinstance(message, dict):
        raise ValueError("not a message")
    return message


def frame(payload: bytes) -> bytes:
    return _LENGTH.pack(len(payload)) + payload


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame from a blocking stream; None at its end."""
    head = _read_exact(stream, _LENGTH.size)
    if head is None:
        return None
    body = _read_exact(stream, _LENGTH.unpack(head)[0])
    if body is None:
        raise EOFError("the stream ended inside a frame")
    return body


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    parts, left = [], size
    while left:
        part = stream.read(left)
        if not part:
            if left == size:
                return None
            raise EOFError("the stream ended inside a frame")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


# --- the parent's side -----------------------------------------------------------------------------------


class _Stopped(Exception):
    """The child ended without a final message (killed by a signal, exited)."""


class _Reading:
    """The state of one document being read: pages so far, and when progress was last reported."""

    def __init__(self, path: Path, progress: PageProgress | None, what: str = "the PDF") -> None:
        self.path, self.progress, self.what = path, progress, what
        self.n_pages = 0
        self.opened = False
        self.pages: list[str] = []
        self.last_report = time.monotonic()
        self.ocr_page = 0  # the page being OCR'd (1-based), 0 when none has been

    def report(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if self.progress is not None and (force or now - self.last_report >= PROGRESS_EVERY_S):
            self.last_report = now
            if self.ocr_page > len(self.pages):
                self.progress(len(self.pages), self.n_pages, True)
            else:  # a two-argument callable still works for text PDFs
                self.progress(len(self.pages), self.n_pages)

    def process(self) -> str:
        return "the PDF reading process" if self.what == "the PDF" else f"the process reading {self.what}"

    def where(self) -> str:
        """Where the reading was, after a space ("" for a Word or Excel file: it is read whole, then sent)."""
        if self.what != "the PDF":
            return ""
        return f" after {len(self.pages):,} of {self.n_pages:,} pages" if self.opened else " while opening it"


class PdfWorker:
    """A child process that reads PDFs within :class:`PdfLimits`; started at the first PDF, reused, and killed
    whenever a document ends abnormally. Use as a context manager (or call :meth:`close`)."""

    def __init__(self, limits: PdfLimits = PdfLimits(), ocr: OcrOptions = DEFAULT_OCR) -> None:
        self.limits, self.ocr = limits, ocr
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._buffer = bytearray()
        self._last_stderr = ""  # the last line the latest child wrote to stderr

    def __enter__(self) -> PdfWorker:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The running child's process id (None when none runs)."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def read(self, path: Path, data: bytes, password: str | None, progress: PageProgress | None = None) -> PdfText:
        """The text of the PDF ``data`` (from ``path``), or a :class:`DocumentError` with a one-line reason."""
        limits = self.limits
        reading = _Reading(path, progress)
        request: dict[str, Any] = {"path": str(path), "password": password, "max_pages": limits.max_pages}
        request |= {"max_chars": limits.max_chars, "cpu_s": limits.timeout_s + 5, "ocr": dataclasses.asdict(self.ocr)}
        message = self._exchange(reading, request, data)
        title = message.get("title")
        return PdfText(
            reading.n_pages,
            tuple(reading.pages),
            title if isinstance(title, str) else None,
            PdfProblems(int(message.get("problems", 0)), list(message.get("first", []))),
            bool(message.get("cut")),
            OcrReport.from_message(self.ocr.mode, message.get("ocr")),
        )

    def read_office(self, path: Path, data: bytes, kind: str, progress: PageProgress | None = None) -> OfficeText:
        """The text of the Word or Excel file ``data`` (``kind`` "docx" or "xlsx", from ``path``) within the same
        limits as a PDF, or a :class:`DocumentError` with a one-line reason. ``progress`` is called as for a PDF
        (no pages are known while it is read), and whatever it raises stops the reading."""
        if kind not in OFFICE_KINDS:
            raise ValueError(f"not a kind the reading process reads: {kind!r}")
        reading = _Reading(path, progress, OFFICE_KINDS[kind])
        request: dict[str, Any] = {
            "kind": kind,
            "path": str(path),
            "max_chars": self.limits.max_chars,
            "cpu_s": self.limits.timeout_s + 5,
        }
        message = self._exchange(reading, request, data)
        title = message.get("title")
        return OfficeText(
            tuple(reading.pages),
            bool(message.get("paged")),
            title if isinstance(title, str) else None,
            tuple(str(w) for w in message.get("warnings", ())),
        )

    def _exchange(self, reading: _Reading, request: dict[str, Any], data: bytes) -> dict[str, Any]:
        """Send one document to the child and gather its pages into ``reading``; the child's last message."""
        limits = self.limits
        deadline = time.monotonic() + limits.timeout_s
        pdflog = logging.getLogger(PDFLOG)
        request["debug"] = pdflog.isEnabledFor(logging.DEBUG)
        finished = False
        try:
            proc = self._start()
            try:
                assert proc.stdin is not None
                proc.stdin.write(frame(encode_message(request)))
                proc.stdin.write(_LENGTH.pack(len(data)))
                proc.stdin.write(data)
                proc.stdin.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the child is gone: reading its output finds the end and says why
            reading.report(force=True)
            while True:
                message = self._next(deadline, reading)
                for line in message.get("log", ()):
                    pdflog.debug("%s", line)
                if "page" in message:
                    reading.pages.append(str(message["text"]))
                    reading.report()
                elif "open" in message:
                    reading.n_pages, reading.opened = int(message["open"]), True
                    reading.report(force=True)
                elif "ocr_page" in message:
                    reading.ocr_page = int(message["ocr_page"])
                    deadline += self.ocr.page_timeout_s
                    reading.report(force=True)
                elif "error" in message:
                    finished = message["error"] != "memory"  # after a MemoryError the child exits
                    raise self._error(reading, str(message["error"]), str(message.get("detail", "")))
                else:
                    finished = True
                    if float(message.get("peak_mb", 0)) > limits.memory_mb / REUSE_SHARE:
                        self.close()  # a fresh child for the next document: its limit is then all its own
                    return message
        except _Stopped:
            raise self._stopped(reading) from None
        finally:
            if not finished:
                self._kill()
            elif reading.ocr_page:
                self.close()  # its memory limit was raised for OCR: the next PDF gets a fresh child

    def close(self) -> None:
        """End the child (it exits when its input ends; killed if it does not within a second)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            self._release(proc)

    # --- the child ---------------------------------------------------------------------------------------

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._kill()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - the child's, closed in _release
        # The child imports this very pikelocal: its folder first on the path, and not the current folder (-P),
        # where another checkout's pikelocal may be.
        root = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        # glibc's malloc makes an arena per thread, each reserving address space that RLIMIT_AS counts: OCR's
        # threads took the peak from 1.7 to 2.2 GB over 60 pages; two arenas keep it at 1.7 GB, as fast
        env["MALLOC_ARENA_MAX"] = "2"
        self._proc = subprocess.Popen(
            [sys.executable, "-P", "-m", CHILD_MODULE, str(self.limits.memory_mb)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
        )
        self._buffer.clear()
        return self._proc

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            self._release(proc)

    def _release(self, proc: subprocess.Popen[bytes]) -> None:
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._buffer.clear()
        self._last_stderr = self._stderr_tail()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(max(0, self._stderr.seek(0, os.SEEK_END) - 4096))
            text = self._stderr.read().decode("utf-8", "replace")
        except OSError:
            return ""
        if text.strip():
            log.debug("PDF reading process stderr:\n%s", text)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:200] if lines else ""

    def _next(self, deadline: float, reading: _Reading) -> dict[str, Any]:
        """The child's next message, waiting at most until ``deadline``; reports progress while waiting."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            if len(self._buffer) >= _LENGTH.size:
                size = _LENGTH.unpack_from(self._buffer)[0]
                if size > _MAX_FRAME:
                    raise _Stopped
                if len(self._buffer) >= _LENGTH.size + size:
                    payload = bytes(self._buffer[_LENGTH.size : _LENGTH.size + size])
                    del self._buffer[: _LENGTH.size + size]
                    return decode_message(payload)
            left = deadline - time.monotonic()
            if left <= 0:
                raise DocumentError(
                    reading.path,
                    "timeout",
                    f"reading {reading.what} took longer than ingest.pdf_timeout_s = {self.limits.timeout_s:g} s"
                    f"{self._ocr_time(reading)}{reading.where()}; stopped",
                )
            ready, _, _ = select.select([fd], [], [], min(left, PROGRESS_EVERY_S))
            if ready:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    raise _Stopped
                self._buffer += chunk
            reading.report()

    def _error(self, reading: _Reading, reason: str, detail: str) -> DocumentError:
        if reason == "memory":
            return self._memory_error(reading)
        return DocumentError(reading.path, reason, detail)

    def _memory_error(self, reading: _Reading) -> DocumentError:
        limit = f"ingest.pdf_memory_mb = {self.limits.memory_mb:,} MB"
        if reading.ocr_page:
            limit = f"ingest.ocr_memory_mb = {max(self.ocr.memory_mb, self.limits.memory_mb):,} MB (with OCR)"
        return DocumentError(
            reading.path, "memory", f"reading {reading.what} needed more than {limit}{reading.where()}; stopped"
        )

    def _ocr_time(self, reading: _Reading) -> str:
        """What OCR added to the time limit, for its message."""
        if not reading.ocr_page:
            return ""
        return f" plus ingest.ocr_page_timeout_s = {self.ocr.page_timeout_s:g} s per page OCR'd"

    def _stopped(self, reading: _Reading) -> DocumentError:
        """Why the child ended without a final message, as the document's failure."""
        proc, code = self._proc, None
        if proc is not None:
            try:
                code = proc.wait(timeout=2.0)  # its output ended: it is exiting
            except subprocess.TimeoutExpired:  # it closed its output and lives on: not a child of ours
                proc.kill()
        self._kill()
        if code == EXIT_MEMORY:
            return self._memory_error(reading)
        if code is not None and code < 0:
            name = _signal_name(-code)
            if -code == signal.SIGXCPU:
                return DocumentError(
                    reading.path,
                    "timeout",
                    f"reading {reading.what} used more than ingest.pdf_timeout_s = {self.limits.timeout_s:g} s of CPU"
                    f"{self._ocr_time(reading)}{reading.where()}; stopped",
                )
            hint = " (out of memory?)" if -code == signal.SIGKILL else ""
            return DocumentError(
                reading.path,
                "crashed",
                f"{reading.process()} was killed by {name}{hint}{reading.where()}",
            )
        said = f": {self._last_stderr}" if self._last_stderr else ""
        return DocumentError(
            reading.path,
            "crashed",
            f"{reading.process()} ended (exit status {code}){reading.where()}{said}",
        )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
