"""A loopback HTTP server that writes raw bytes (status line and all), so a test can drip a header, lie about a
length or answer with a redirect, and the byte scripts it plays: tests/llm/test_hostile_server.py and the tests of a
server's error body. Every script stops when the test ends, and the server stops itself after a minute."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, BinaryIO

DRIP_S = 0.25  # a byte (or an event) this often: never a gap as long as the timeout
DRIP_FOR_S = 8.0  # how long a drip lasts at most: the old code ended only then, and failed the time bound

Script = Callable[[BinaryIO, threading.Event], None]


class HostileServer:
    """A loopback server answering every POST with ``script(out, stopped)``; use as a context manager."""

    def __init__(self, script: Script, *, lifetime_s: float = 60.0) -> None:
        self.script = script
        self.stopped = threading.Event()
        handler = type("Handler", (_Handler,), {"server_side": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._timer = threading.Timer(lifetime_s, self.stop)
        self._timer.daemon = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> HostileServer:
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="hostile", daemon=True
        ).start()
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if not self.stopped.is_set():
            self.stopped.set()
            self._timer.cancel()
            self._httpd.shutdown()
            self._httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    server_side: HostileServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.close_connection = True
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up: what we want
            self.server_side.script(self.wfile, self.server_side.stopped)


# -- scripts -------------------------------------------------------------------------------------


def reply(content: Any = "hi", **extra: Any) -> bytes:
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}], **extra}
    return json.dumps(body).encode()


def head(status: str = "200 OK", length: int | None = None, kind: str = "application/json", more: str = "") -> bytes:
    lines = f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nConnection: close\r\n{more}"
    if length is not None:
        lines += f"Content-Length: {length}\r\n"
    return (lines + "\r\n").encode()


def event(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def delta(text: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}


def send(data: bytes) -> Script:
    def script(out: BinaryIO, stopped: threading.Event) -> None:
        out.write(data)

    return script


def drip(prefix: bytes, data: bytes) -> Script:
    """``prefix`` at once, then ``data`` a byte every DRIP_S, for DRIP_FOR_S at most."""

    def script(out: BinaryIO, stopped: threading.Event) -> None:
        out.write(prefix)
        for i in range(min(len(data), int(DRIP_FOR_S / DRIP_S))):
            out.write(data[i : i + 1])
            if stopped.wait(DRIP_S):
                return

    return script


def events_forever(out: BinaryIO, stopped: threading.Event) -> None:
    """A stream of whole, valid deltas, one every DRIP_S, that never ends (until DRIP_FOR_S)."""
    out.write(head(kind="text/event-stream"))
    end = time.monotonic() + DRIP_FOR_S
    while time.monotonic() < end and not stopped.wait(DRIP_S):
        out.write(event(delta("la ")))


def flood(prefix: bytes, piece: bytes, total: int) -> Script:
    """``prefix``, then ``piece`` over and over up to ``total`` bytes (or until the client hangs up)."""

    def script(out: BinaryIO, stopped: threading.Event) -> None:
        out.write(prefix)
        sent = 0
        while sent < total and not stopped.is_set():
            out.write(piece)
            sent += len(piece)

    return script
