"""The PDF reading process: ``python -m pikelocal.ingest.pdf_child MEMORY_MB``, started by ``pdf_worker.py``.

Reads requests from stdin (a JSON header, then the file's bytes) one after another until stdin ends, and
answers each on stdout: ``{"open": pages}``, ``{"page": n, "text": …}`` per page, then ``{"done": …}`` or
``{"error": reason, "detail": …}``. Its address space is limited to MEMORY_MB (``RLIMIT_AS``) and each document's
CPU time to what the request allows (``RLIMIT_CPU``, so a child whose parent died still ends). Ctrl-C is the
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
from pikelocal.ingest.parse import MIB, PdfPages
from pikelocal.ingest.pdf_worker import EXIT_MEMORY, PDFLOG, decode_message, encode_message, frame, read_frame
from pikelocal.ingest.pdflog import pypdf_log

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
                os._exit(EXIT_MEMORY)  # the heap may be in any state: a fresh process reads the next PDF


def serve(request: dict[str, Any], data: bytes, answers: Answers) -> None:
    """Read one PDF and answer, page by page."""
    path = Path(str(request["path"]))
    max_pages, max_chars = int(request["max_pages"]), int(request["max_chars"])
    if resource is not None:
        used = resource.getrusage(resource.RUSAGE_SELF)
        _limit(resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime + float(request["cpu_s"])) + 1)
    with pypdf_log() as problems:
        try:
            pdf = PdfPages(path, data, request.get("password"))
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
                text = pdf.text(index)
                if chars + len(text) > max_chars:
                    text, cut = _cut(text, max_chars - chars), True
                chars += len(text)
                answers.send({"page": index + 1, "text": text})
                if cut:
                    break
            title = pdf.title()
        except DocumentError as err:
            detail = str(err.args[0]).removeprefix(f"{err.path}: ")
            answers.send({"error": err.reason, "detail": detail})
            return
        except MemoryError:
            raise
        except Exception as exc:  # a bug in a library: the file's failure, the process reads on
            said = " ".join(str(exc).split())[:200]
            detail = f"unexpected {type(exc).__name__}" + (f": {said}" if said else "")
            answers.send({"error": "unexpected", "detail": detail})
            return
    done = {"done": True, "title": title, "problems": problems.count, "first": problems.first, "cut": cut}
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
    if resource is None:
        return 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return peak / MIB if sys.platform == "darwin" else peak / 1024


if __name__ == "__main__":
    sys.exit(main(sys.argv))
