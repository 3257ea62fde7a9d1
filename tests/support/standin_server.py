"""A small OpenAI-compatible stand-in server on 127.0.0.1 for testing the HTTP backend.

Modes (``server.mode`` may be changed while it runs):

* ``canned``: deterministic replies (an echo of the last user message, cut at ``max_tokens``
  words and at ``stop``); a valid instance for a ``json_schema`` request.
* ``real``: answers with a real ``llama_cpp.Llama`` (llama-cpp-python already returns
  OpenAI-format dicts and stream chunks); stands in for llama-cpp-python's own server, which
  would need fastapi / uvicorn.
* ``garbage`` (200, not JSON), ``no_choices`` (200, JSON without ``choices``), ``http_error``
  (500 with an OpenAI-style error body), ``cut_stream`` (a stream that breaks off without its end).

Bounded: request bodies are capped, handler threads are daemons, latency sleeps end at stop, and
the server stops itself after ``lifetime_s`` whatever happens to the test.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.jsonschema_mini import instance

log = logging.getLogger(__name__)

MAX_BODY = 4 * 1024 * 1024
MODES = ("canned", "real", "garbage", "no_choices", "http_error", "cut_stream")


class StandinServer:
    """Start with ``with StandinServer() as server:``; point clients at ``server.url``."""

    def __init__(
        self,
        *,
        mode: str = "canned",
        latency_s: float = 0.0,
        llama: Any = None,
        lifetime_s: float = 600.0,
        json_object_only: bool = False,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}")
        if mode == "real" and llama is None:
            raise ValueError("mode 'real' needs a llama_cpp.Llama")
        self.mode = mode
        self.latency_s = latency_s
        self.llama = llama
        self.lifetime_s = lifetime_s
        # llama-cpp-python's own server accepts response_format {"type": "json_object", "schema": ...} only,
        # and answers 422 to OpenAI's "json_schema" form.
        self.json_object_only = json_object_only
        self.requests: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._llama_lock = threading.Lock()  # one Llama is not thread-safe
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> StandinServer:
        handler = type("Handler", (_Handler,), {"standin": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="standin", daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(self.lifetime_s, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        if self.stopped.is_set():
            return
        self.stopped.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> StandinServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def enter(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)
            self.active += 1
            self.max_active = max(self.max_active, self.active)

    def leave(self) -> None:
        with self._lock:
            self.active -= 1


class _Handler(BaseHTTPRequestHandler):
    standin: StandinServer
    protocol_version = "HTTP/1.0"  # one request per connection; a stream ends when we close

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("standin: " + format, *args)

    def do_POST(self) -> None:
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._send_json(413, {"error": {"message": "request too large"}})
            return
        try:
            body = json.loads(self.rfile.read(length))
        except ValueError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        server = self.standin
        if server.json_object_only and (body.get("response_format") or {}).get("type") == "json_schema":
            server.requests.append(body)
            self._send_json(422, {"detail": [{"msg": "Input should be 'text' or 'json_object'"}]})
            return
        server.enter(body)
        try:
            if server.latency_s:
                server.stopped.wait(server.latency_s)
        finally:
            # Leave before answering: once the client has the answer it may send its next request at once, and
            # that one must not count as a fifth at the same time as this (finished) fourth.
            server.leave()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            self._answer(server, body)

    def _answer(self, server: StandinServer, body: dict[str, Any]) -> None:
        mode, stream = server.mode, bool(body.get("stream"))
        if mode == "garbage":
            self._send(200, "text/html", b"<html>502 Bad Gateway - upstream said nope</html>")
        elif mode == "no_choices":
            self._send_json(200, {"object": "chat.completion", "result": "no choices here"})
        elif mode == "http_error":
            self._send_json(500, {"error": {"message": "model exploded", "type": "server_error"}})
        elif mode == "real":
            with server._llama_lock:
                result = server.llama.create_chat_completion(**_llama_kwargs(body))
                if stream:
                    self._send_events(result)
                else:
                    self._send_json(200, result)
        else:
            text, finish = canned_text(body)
            if not stream:
                self._send_json(200, _reply(body, text, finish))
            elif mode == "cut_stream":
                self._send_events(_chunks(body, text, finish, cut=True), done=False)
            else:
                self._send_events(_chunks(body, text, finish, cut=False))

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send(status, "application/json", json.dumps(obj, ensure_ascii=False).encode("utf-8"))

    def _send_events(self, events: Iterator[dict[str, Any]], *, done: bool = True) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in events:
            self.wfile.write(b"data: " + json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n\n")
            self.wfile.flush()
        if done:
            self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _schema_of(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema":
        return fmt["json_schema"]["schema"]
    if fmt.get("type") == "json_object":
        return fmt.get("schema") or {"type": "object"}
    return None


def _llama_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    """Translate an OpenAI request into ``Llama.create_chat_completion`` arguments."""
    kwargs: dict[str, Any] = {
        "messages": body["messages"],
        "temperature": body.get("temperature", 0.0),
        "max_tokens": body.get("max_tokens"),
        "seed": body.get("seed"),
        "stop": body.get("stop") or [],
        "stream": bool(body.get("stream")),
    }
    schema = _schema_of(body)
    if schema is not None:  # llama-cpp-python understands json_object + schema, not json_schema
        kwargs["response_format"] = {"type": "json_object", "schema": schema}
    return kwargs


def prompt_words(body: dict[str, Any]) -> int:
    return sum(len(str(m.get("content", "")).split()) + 1 for m in body["messages"])


def canned_text(body: dict[str, Any]) -> tuple[str, str]:
    """The deterministic reply and its finish reason ("stop" or "length")."""
    schema = _schema_of(body)
    if schema is not None:
        return json.dumps(instance(schema), ensure_ascii=False), "stop"
    last_user = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
    text = f"Canned reply to: {last_user}"
    for stop in body.get("stop") or []:
        if stop in text:
            text = text[: text.index(stop)]
    words = re.findall(r"\s*\S+\s*", text)
    limit = int(body.get("max_tokens") or len(words))
    if len(words) > limit:
        return "".join(words[:limit]).rstrip(), "length"
    return text, "stop"


def _reply(body: dict[str, Any], text: str, finish: str) -> dict[str, Any]:
    completion = len(text.split())
    return {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "standin"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_words(body),
            "completion_tokens": completion,
            "total_tokens": prompt_words(body) + completion,
        },
    }


def _chunks(body: dict[str, Any], text: str, finish: str, *, cut: bool) -> Iterator[dict[str, Any]]:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-standin",
            "object": "chat.completion.chunk",
            "model": body.get("model", "standin"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason}],
        }

    pieces = re.findall(r"\s*\S+\s*|\s+", text)
    yield chunk({"role": "assistant"})
    for i, piece in enumerate(pieces):
        if cut and i >= max(1, len(pieces) // 2):
            return  # break off: no finish_reason, no [DONE]
        yield chunk({"content": piece})
    yield chunk({}, finish)
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = {"prompt_tokens": prompt_words(body), "completion_tokens": len(text.split())}
        yield {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "choices": [], "usage": usage}
