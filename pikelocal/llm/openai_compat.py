"""LLM backend for OpenAI-compatible servers (llama-server, vLLM, Ollama) over plain ``http.client``.

Standard library only: one connection per request, so the backend is thread-safe and a batch can
fan out over ``max_parallel`` requests to a server that runs them side by side.

What a server sends is not trusted: every request has a deadline (see :class:`Deadline`), a reply has a size cap,
redirects are reported rather than followed (a redirect could send the documents in a prompt elsewhere), and JSON
that Python cannot decode (nested too deeply, numbers past the int-digit limit) is a :class:`BackendError` like any
other garbage.
"""

from __future__ import annotations

import http.client
import json
import logging
import re
import socket
import time
from collections.abc import Generator, Iterator, Sequence
from typing import Any
from urllib.parse import urlsplit

from pikelocal.domain.errors import BackendError, ConfigError
from pikelocal.llm.base import Completion, GenParams, Message, json_default
from pikelocal.llm.deadline_http import Deadline, DeadlineConnection, DeadlineTLSConnection, NotLoopbackError
from pikelocal.trace_text import printable

log = logging.getLogger(__name__)

_SNIPPET = 160  # how much of a bad reply goes into an error message
_MIB = 1024 * 1024
MAX_REPLY = 16 * _MIB  # a whole (non-streamed) reply; a chat completion is a few KiB
MAX_EVENT_LINE = 1 * _MIB  # one line of an SSE stream; a delta event is a few hundred bytes
MAX_STREAM = 64 * _MIB  # all the lines of one stream (deltas carry more overhead than text)
_PIECE = 64 * 1024  # a reply is read in pieces of this size, so the cap is checked as it grows
_MAX_COUNT = 10**9  # a token count above this is garbage: treated as unknown (0), never stored


class _StatusError(BackendError):
    """An HTTP error status from the server (kept apart so a request can be retried in another form)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _snippet(raw: bytes | str) -> str:
    """The start of what a server sent, on one line and without control characters (a hostile server's error body
    could otherwise retitle or clear the terminal that prints the error)."""
    raw = raw[: _SNIPPET * 16]  # a reply may be megabytes; its start is all an error message shows
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = " ".join(printable(text).split())
    return text if len(text) <= _SNIPPET else text[:_SNIPPET] + "…"


class OpenAICompatLLM:
    """Talks to ``POST {base_url}/chat/completions``; ``base_url`` like ``http://127.0.0.1:8080/v1``.

    ``timeout_s`` bounds each HTTP request as a whole: connecting, sending, and reading the entire reply,
    streamed or not (see :class:`Deadline`).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 120,
        max_parallel: int = 4,
        context_tokens: int = 8192,
        loopback_only: bool = False,
    ) -> None:
        parts = urlsplit(base_url.strip())
        try:
            port = parts.port  # raises ValueError for a port out of range or not a number
        except ValueError:
            raise ConfigError(f"LLM server URL {base_url!r} has an invalid port") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"LLM server URL {base_url!r} is not an http:// or https:// URL")
        if max_parallel < 1:
            raise ConfigError(f"max_parallel for {base_url} must be at least 1, not {max_parallel}")
        self.base_url = base_url.strip().rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.model = model
        self.model_id = f"openai:{self.base_url}#{model}"  # the URL too: "default" on two servers differs
        self.context_tokens = context_tokens
        self.max_parallel = max_parallel
        self.timeout_s = timeout_s
        self._api_key = api_key
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port
        self._path = parts.path.rstrip("/") + "/chat/completions"
        # vLLM, llama-server and OpenAI take "json_schema"; llama-cpp-python's server only "json_object" with a
        # schema. Start with the standard form and switch once for good if the server rejects it.
        self._schema_style = "json_schema"
        self._loopback_only = loopback_only  # llm.allow_remote off: refuse a peer off this machine before sending

    def __repr__(self) -> str:  # never show the API key
        return f"OpenAICompatLLM({self.base_url!r}, {self.model!r})"

    # -- public API ----------------------------------------------------------------------------

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        start = time.perf_counter()
        conn, resp = self._open(messages, params, stream=False)
        try:
            raw = self._read(resp)
        finally:
            conn.close()
        reply = self._parse(raw)
        text = self._message_text(reply, raw)
        prompt_tokens, completion_tokens = _usage(reply)
        seconds = time.perf_counter() - start
        return Completion(text, self.model_id, prompt_tokens, completion_tokens, seconds, False, _evaluated(reply))

    def stream(self, messages: Sequence[Message], params: GenParams) -> Generator[str, None, Completion]:
        """Yield text deltas from the server's SSE stream; return the finished :class:`Completion`.

        Raises :class:`BackendError` when the stream breaks off before its end (no ``[DONE]`` and no
        ``finish_reason``), so a caller never mistakes a cut reply for a whole one.
        """
        start = time.perf_counter()
        conn, resp = self._open(messages, params, stream=True)
        parts: list[str] = []
        usage: tuple[int, int] = (0, 0)
        evaluated: int | None = None
        try:
            if "text/event-stream" not in (resp.getheader("Content-Type") or ""):
                # The server ignored "stream": true and sent one ordinary reply.
                raw = self._read(resp)
                reply = self._parse(raw)
                parts.append(self._message_text(reply, raw))
                usage = _usage(reply)
                evaluated = _evaluated(reply)
                if parts[0]:
                    yield parts[0]
            else:
                finished = False
                for event in self._events(resp):
                    choices = event.get("choices")
                    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
                        delta = choices[0].get("delta") or {}
                        content = delta.get("content") if isinstance(delta, dict) else None
                        if isinstance(content, str) and content:
                            parts.append(content)
                            yield content
                        finished = finished or choices[0].get("finish_reason") is not None
                    if isinstance(event.get("usage"), dict):
                        usage = _usage(event)
                    evaluated = _evaluated(event) if evaluated is None else evaluated
                    if event is _DONE:
                        finished = True
                        break
                if not finished:
                    raise BackendError(f"the reply stream from LLM server at {self.url} ended early")
        finally:
            conn.close()
        seconds = time.perf_counter() - start
        return Completion("".join(parts), self.model_id, *usage, seconds, False, evaluated)

    def close(self) -> None:
        """Nothing to release: every request opens and closes its own connection."""

    # -- request / response --------------------------------------------------------------------

    def _body(self, messages: Sequence[Message], params: GenParams, *, stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "seed": params.seed,
            "stream": stream,
        }
        if params.stop:
            body["stop"] = list(params.stop)
        if params.json_schema is not None and self._schema_style == "json_object":
            body["response_format"] = {"type": "json_object", "schema": params.json_schema}
        elif params.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    # OpenAI allows [a-zA-Z0-9_-]{1,64} here.
                    "name": re.sub(r"[^a-zA-Z0-9_-]", "_", params.tag)[:64] or "output",
                    "schema": params.json_schema,
                    "strict": True,
                },
            }
        if params.grammar is not None:
            body["grammar"] = params.grammar  # llama.cpp's server; vLLM calls it guided_grammar
        if stream:
            body["stream_options"] = {"include_usage": True}
        return body

    def _open(
        self, messages: Sequence[Message], params: GenParams, *, stream: bool
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        try:
            return self._post(self._body(messages, params, stream=stream))
        except _StatusError as exc:
            if params.json_schema is None or exc.status not in (400, 422) or self._schema_style != "json_schema":
                raise
            log.info(
                "%s rejected response_format json_schema (HTTP %d); using json_object + schema", self.url, exc.status
            )
            self._schema_style = "json_object"
            return self._post(self._body(messages, params, stream=stream))

    def _post(self, body: dict[str, Any]) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        data = json.dumps(body, ensure_ascii=False, default=json_default).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        deadline = Deadline(self.timeout_s)
        cls = DeadlineTLSConnection if self._https else DeadlineConnection
        conn = cls(self._host, self._port, deadline, loopback_only=self._loopback_only)
        try:
            conn.request("POST", self._path, body=data, headers=headers)
            resp = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            raise self._transport_error(exc) from exc
        except BaseException:
            conn.close()
            raise
        if resp.status >= 400:
            try:
                raw = resp.read(4096)
            except (OSError, http.client.HTTPException):
                raw = b""
            finally:
                conn.close()
            raise _StatusError(resp.status, f"LLM server at {self.url} answered HTTP {resp.status}: {_error_text(raw)}")
        if 300 <= resp.status < 400:
            # http.client never follows a redirect, and neither do we: the request carries document text, and a
            # redirect could send it to another host. The user points base_url at the final address instead.
            location = _snippet(resp.getheader("Location") or "") or "nowhere: no Location header"
            conn.close()
            raise _StatusError(
                resp.status,
                f"LLM server at {self.url} answered {resp.status} (redirect to {location}); pikelocal does not "
                "follow redirects: set llm.base_url to the final address",
            )
        return conn, resp

    def _transport_error(self, exc: OSError | http.client.HTTPException) -> BackendError:
        if isinstance(exc, NotLoopbackError):
            return BackendError(
                f"LLM server at {self.url}: {self._host!r} led to {exc.address}, which is not this machine; nothing"
                " was sent (set llm.allow_remote = true to send documents' text there)"
            )
        if isinstance(exc, ConnectionRefusedError):
            return BackendError(f"cannot reach LLM server at {self.url}: connection refused — is it running?")
        if isinstance(exc, TimeoutError):  # socket.timeout is TimeoutError since 3.10; so is a passed Deadline
            return BackendError(
                f"LLM server at {self.url} did not answer within {self.timeout_s:g} s "
                "(llm.timeout_s, the limit for a whole request)"
            )
        if isinstance(exc, socket.gaierror):
            return BackendError(f"cannot reach LLM server at {self.url}: unknown host {self._host!r}")
        return BackendError(
            f"connection to LLM server at {self.url} failed: {_snippet(str(exc) or type(exc).__name__)}"
        )

    def _read(self, resp: http.client.HTTPResponse) -> bytes:
        """The whole body, up to :data:`MAX_REPLY` bytes."""
        if resp.length is not None and resp.length > MAX_REPLY:  # said so in Content-Length: do not read it
            resp.close()
            raise self._too_large(MAX_REPLY, "reply")
        pieces: list[bytes] = []
        size = 0
        try:
            while piece := resp.read(_PIECE):
                size += len(piece)
                if size > MAX_REPLY:
                    raise self._too_large(MAX_REPLY, "reply")
                pieces.append(piece)
        except (OSError, http.client.HTTPException) as exc:
            raise self._transport_error(exc) from exc
        return b"".join(pieces)

    def _too_large(self, limit: int, what: str) -> BackendError:
        return BackendError(f"LLM server at {self.url} sent a {what} larger than {limit // _MIB} MiB")

    def _loads(self, raw: bytes | str, what: str) -> Any:
        """``json.loads``, with every way it can fail on hostile input a one-line :class:`BackendError`."""
        try:
            return json.loads(raw)
        except RecursionError:  # "[[[[…" deeper than the interpreter's recursion limit
            reason = "JSON nested too deeply"
        except UnicodeDecodeError:
            reason = "not UTF-8"
        except json.JSONDecodeError:
            reason = "not JSON"
        except ValueError as exc:  # decoded, but an integer past Python's int-digit limit
            reason = f"unusable JSON: {_snippet(str(exc).split(';')[0])}"
        raise BackendError(f"LLM server at {self.url} sent a garbage {what} ({reason}): {_snippet(raw)!r}")

    def _parse(self, raw: bytes) -> dict[str, Any]:
        reply = self._loads(raw, "reply")
        if not isinstance(reply, dict):
            raise BackendError(f"LLM server at {self.url} sent a garbage reply: {_snippet(raw)!r}")
        if "error" in reply and "choices" not in reply:
            raise BackendError(f"LLM server at {self.url} reported an error: {_error_text(raw)}")
        return reply

    def _message_text(self, reply: dict[str, Any], raw: bytes) -> str:
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise BackendError(
                f"LLM server at {self.url} sent a garbage reply (no choices[0].message): {_snippet(raw)!r}"
            ) from None
        if content is None:
            return ""
        if not isinstance(content, str):
            raise BackendError(f"LLM server at {self.url} sent non-text content: {_snippet(raw)!r}")
        return content

    def _events(self, resp: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
        """Parse SSE ``data:`` lines into JSON objects; ``data: [DONE]`` yields :data:`_DONE`.

        A line may hold :data:`MAX_EVENT_LINE` bytes and the stream :data:`MAX_STREAM` in all.
        """
        size = 0
        while True:
            try:
                line = resp.readline(MAX_EVENT_LINE + 1)
            except (OSError, http.client.HTTPException) as exc:
                raise self._transport_error(exc) from exc
            if not line:
                return
            if len(line) > MAX_EVENT_LINE:
                raise self._too_large(MAX_EVENT_LINE, "stream event")
            size += len(line)
            if size > MAX_STREAM:
                raise self._too_large(MAX_STREAM, "reply")
            text = line.decode("utf-8", "replace").strip()
            if not text.startswith("data:"):
                continue  # blank separators, ": keep-alive" comments, "event:" / "id:" fields
            payload = text[5:].strip()
            if payload == "[DONE]":
                yield _DONE
                return
            event = self._loads(payload, "stream event")
            if not isinstance(event, dict):
                raise BackendError(f"LLM server at {self.url} sent a garbage stream event: {_snippet(payload)!r}")
            if "error" in event:
                raise BackendError(f"LLM server at {self.url} reported an error mid-stream: {_error_text(payload)}")
            yield event


_DONE: dict[str, Any] = {}  # sentinel for "data: [DONE]", compared by identity


# -- the deadline ----------------------------------------------------------------------------------


def _usage(reply: dict[str, Any]) -> tuple[int, int]:
    """(prompt_tokens, completion_tokens) from ``usage``; 0 where the server reports none."""
    usage = reply.get("usage")
    if not isinstance(usage, dict):
        return 0, 0
    return _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


def _count(value: Any) -> int:
    """A token count the server reported; 0 (unknown) for anything but a plausible one (a 4000-digit number decodes,
    but would not fit an SQLite integer when the completion is cached)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_COUNT:
        return value
    return 0


def _evaluated(reply: dict[str, Any]) -> int | None:
    """Prompt tokens the server actually ran, where it says: llama.cpp's server reports ``timings.prompt_n``
    (the tokens after its cached prefix); vLLM and OpenAI report ``usage.prompt_tokens_details.cached_tokens``."""
    timings = reply.get("timings")
    if isinstance(timings, dict) and isinstance(timings.get("prompt_n"), int):
        return _count(timings["prompt_n"])
    usage = reply.get("usage")
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        prompt = usage.get("prompt_tokens") if isinstance(usage, dict) else None
        if isinstance(prompt, int):
            return max(0, _count(prompt) - _count(details["cached_tokens"]))
    return None


def _error_text(raw: bytes | str) -> str:
    """The server's own error message where it sent one ({"error": {"message": …}}), else the body."""
    try:
        error = json.loads(raw).get("error")
    except (ValueError, AttributeError, RecursionError):
        return _snippet(raw) or "(empty body)"
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return _snippet(error["message"])
    if isinstance(error, str):
        return _snippet(error)
    return _snippet(raw)
