"""The HTTP backend against a hostile or broken server: every failure ends within the deadline as a
one-line BackendError naming the server and the reason.

The server (tests/support/hostile_server.py) writes raw bytes (status line and all), so a test can drip a header,
lie about a length or answer with a redirect. Every script stops when the test ends, and the server stops itself
after a minute.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from pikelocal.domain.errors import BackendError
from pikelocal.llm import openai_compat
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.openai_compat import OpenAICompatLLM
from pikelocal.prompts.base import Prompt, run_prompt
from tests.support.hostile_server import (
    HostileServer,
    Script,
    delta,
    drip,
    event,
    events_forever,
    flood,
    head,
    reply,
    send,
)

pytestmark = pytest.mark.timeout(60)  # the old code ran for as long as the server dripped

MESSAGES = (Message("user", "Hello?"),)
PARAMS = GenParams(tag="hostile", max_tokens=8)
MIB = 1024 * 1024
TIMEOUT_S = 1.0


# -- helpers -------------------------------------------------------------------------------------


def call(url: str, streaming: bool, timeout_s: float = 5.0) -> str:
    llm = OpenAICompatLLM(url, "m", timeout_s=timeout_s)
    if streaming:
        return "".join(llm.stream(MESSAGES, PARAMS))
    return llm.complete(MESSAGES, PARAMS).text


def failure(script: Script, streaming: bool, timeout_s: float = 5.0) -> str:
    """The one-line message of the BackendError the call must end in; it names the server."""
    with HostileServer(script) as server, pytest.raises(BackendError) as info:
        call(server.url, streaming, timeout_s)
    message = str(info.value)
    assert message and "\n" not in message and server.url in message
    return message


BOTH = pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
PADDED = reply()[:-1] + b" " * (17 * MIB) + b"}"  # valid JSON, 17 MiB of it whitespace


# -- 1. the deadline is for the whole request -----------------------------------------------------

_BODY = reply()
_DRIPS = {
    "status-line": drip(b"", head(length=len(_BODY)) + _BODY),
    "headers": drip(b"HTTP/1.1 200 OK\r\n", b"X-Slow: " + b"a" * 200 + b"\r\n"),
    "body": drip(head(length=len(_BODY)), _BODY),
    "body-no-length": drip(head(), _BODY),
    "stream-line": drip(head(kind="text/event-stream"), event(delta("x" * 100))),
    "stream-events": events_forever,
}


@BOTH
@pytest.mark.parametrize("where", list(_DRIPS))
def test_a_dripping_server_fails_at_the_deadline(where: str, streaming: bool) -> None:
    start = time.monotonic()
    message = failure(_DRIPS[where], streaming, timeout_s=TIMEOUT_S)
    elapsed = time.monotonic() - start
    # a bound on a failure, not a benchmark: the old code went on for as long as the server dripped (DRIP_FOR_S)
    assert elapsed < 3 * TIMEOUT_S and "did not answer within 1 s" in message, (round(elapsed, 1), message)


def test_the_deadline_leaves_a_prompt_server_alone() -> None:
    with HostileServer(send(head(length=len(_BODY)) + _BODY)) as server:
        assert call(server.url, False, timeout_s=TIMEOUT_S) == "hi"
    with HostileServer(send(head(kind="text/event-stream") + event(delta("hi")) + b"data: [DONE]\n\n")) as server:
        assert call(server.url, True, timeout_s=TIMEOUT_S) == "hi"


# -- 2. JSON that Python cannot decode ------------------------------------------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000


_DEEP_REPLY = send(head(length=len(DEEP)) + DEEP)
_DEEP_EVENT = send(head(kind="text/event-stream") + b"data: " + DEEP + b"\n\n")
_DEEP_ERROR = send(head(status="500 Internal Server Error") + DEEP[:3000] + DEEP[-3000:])


@pytest.mark.parametrize(
    ("script", "streaming", "expected"),
    [
        (_DEEP_REPLY, False, "sent a garbage reply (JSON nested too deeply): '[[[["),
        (_DEEP_REPLY, True, "sent a garbage reply (JSON nested too deeply): '[[[["),
        (_DEEP_EVENT, True, "sent a garbage stream event (JSON nested too deeply): '[[[["),
        (_DEEP_ERROR, False, "answered HTTP 500: [[[["),  # the error body is shown as it is
        (_DEEP_ERROR, True, "answered HTTP 500: [[[["),
    ],
    ids=["reply", "reply-to-stream", "stream-event", "error-body", "error-body-to-stream"],
)
def test_deeply_nested_json_is_a_backend_error(script: Script, streaming: bool, expected: str) -> None:
    assert expected in failure(script, streaming)


def test_an_integer_past_the_digit_limit_is_a_backend_error() -> None:
    # (json.loads raises ValueError here, which the old code caught too: a guard, not a fix)
    body = reply(1, usage={"prompt_tokens": int("9" * 4000)}).replace(b"9" * 4000, b"9" * 5000)
    message = failure(send(head(length=len(body)) + body), streaming=False)
    assert "garbage reply" in message and "digits" in message


def test_an_absurd_token_count_counts_as_unknown() -> None:
    # 4000 digits decode; stored in the completion cache, such a number would overflow SQLite's integer
    body = reply("hi", usage={"prompt_tokens": int("9" * 4000), "completion_tokens": -3})
    with HostileServer(send(head(length=len(body)) + body)) as server:
        done = OpenAICompatLLM(server.url, "m", timeout_s=5).complete(MESSAGES, PARAMS)
    assert (done.text, done.prompt_tokens, done.completion_tokens) == ("hi", 0, 0)


def test_a_deeply_nested_model_reply_is_a_failed_prompt_not_an_exception() -> None:
    prompt: Prompt[Any] = Prompt(
        "hostile", {"en": "s", "zh": "s"}, {"en": "u", "zh": "u"}, {"type": "object"}, lambda d, lang, f: d
    )
    body = reply("[" * 100_000)  # the model's text, not the HTTP reply, is nested
    with HostileServer(send(head(length=len(body)) + body)) as server:
        result = run_prompt(OpenAICompatLLM(server.url, "m", timeout_s=5), prompt, "en", {})
    assert not result.ok and result.error == "invalid JSON: nested too deeply" and len(result.completions) == 2


# -- 3. redirects are reported, not followed -------------------------------------------------------


@BOTH
def test_a_redirect_is_reported_with_its_location(streaming: bool) -> None:
    where = "http://elsewhere.example/v1/chat/completions"
    message = failure(send(head("302 Found", length=0, more=f"Location: {where}\r\n")), streaming)
    assert f"answered 302 (redirect to {where}); pikelocal does not follow redirects" in message
    assert message.endswith("set llm.base_url to the final address")


# -- 4. the size of a reply is capped --------------------------------------------------------------

_HUGE = {
    "content-length": send(head(length=17 * MIB)),  # says so up front: nothing is read
    "padded": send(head(length=len(PADDED)) + PADDED),
    "padded-no-length": send(head() + PADDED),  # ends when the server closes
}


@BOTH
@pytest.mark.parametrize("kind", list(_HUGE))
def test_an_oversize_reply_is_refused(kind: str, streaming: bool) -> None:
    assert "sent a reply larger than 16 MiB" in failure(_HUGE[kind], streaming)


def test_an_oversize_stream_event_is_refused() -> None:
    line = event(delta("x" * (2 * MIB)))
    message = failure(send(head(kind="text/event-stream") + line + b"data: [DONE]\n\n"), streaming=True)
    assert "sent a stream event larger than 1 MiB" in message


def test_an_oversize_stream_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the real cap is 64 MiB of whole, valid events; (raising=False: the old code has no cap, and must fail below)
    monkeypatch.setattr(openai_compat, "MAX_STREAM", MIB, raising=False)
    message = failure(flood(head(kind="text/event-stream"), event(delta("y" * 1000)), 4 * MIB), streaming=True)
    assert "sent a reply larger than 1 MiB" in message
