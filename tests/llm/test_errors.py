"""Every failure of an LLM backend is a one-line PikeError that names the file or URL."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.domain.errors import BackendError, ConfigError, ModelError, PikeError
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.cached import CachedLLM
from pikelocal.llm.llama_cpp import LlamaCppLLM
from pikelocal.llm.openai_compat import OpenAICompatLLM
from tests.support.hostile_server import HostileServer, head, send
from tests.support.llm_cache import DictCache
from tests.support.standin_server import StandinServer

MESSAGES = (Message("user", "Hello?"),)
PARAMS = GenParams(tag="errors", max_tokens=8)


def one_line(err: PikeError) -> str:
    text = str(err)
    assert text and "\n" not in text
    assert "Traceback" not in text
    return text


# -- model files ---------------------------------------------------------------------------------


def test_missing_model_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.gguf"
    with pytest.raises(ModelError) as info:
        LlamaCppLLM(path)
    assert str(path) in one_line(info.value) and "does not exist" in str(info.value)


def test_directory_instead_of_model(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as info:
        LlamaCppLLM(tmp_path)
    assert str(tmp_path) in one_line(info.value)


def test_non_gguf_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_text("these are not the weights you are looking for\n" * 100)
    with pytest.raises(ModelError) as info:
        LlamaCppLLM(path)
    assert str(path) in one_line(info.value) and "not a valid GGUF file" in str(info.value)


def test_gguf_magic_then_garbage(tmp_path: Path) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + bytes(range(256)) * 64)
    with pytest.raises(ModelError) as info:
        LlamaCppLLM(path)
    assert str(path) in one_line(info.value) and "not a valid GGUF file" in str(info.value)


@pytest.mark.slow
def test_truncated_gguf(tmp_path: Path, smollm2_path: Path) -> None:
    path = tmp_path / "truncated.gguf"
    with smollm2_path.open("rb") as f:
        path.write_bytes(f.read(1024 * 1024))
    with pytest.raises(ModelError) as info:
        LlamaCppLLM(path)
    message = one_line(info.value)
    assert str(path) in message and "truncated or corrupt" in message


@pytest.mark.slow
def test_prompt_longer_than_context(smollm2_path: Path) -> None:
    llm = LlamaCppLLM(smollm2_path, n_ctx=64, n_threads=2)
    try:
        with pytest.raises(BackendError) as info:
            llm.complete((Message("user", "word " * 200),), PARAMS)
        assert smollm2_path.name in one_line(info.value)
    finally:
        llm.close()


# -- HTTP backend --------------------------------------------------------------------------------


def test_bad_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        OpenAICompatLLM("localhost:8080", "m")
    assert "localhost:8080" in one_line(info.value)


@pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
def test_server_down(dead_url: str, streaming: bool) -> None:
    llm = OpenAICompatLLM(dead_url, "m", timeout_s=5)
    with pytest.raises(BackendError) as info:
        _call(llm, streaming)
    message = one_line(info.value)
    assert dead_url in message and "connection refused" in message


@pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
@pytest.mark.parametrize("mode", ["garbage", "no_choices"])
def test_garbage_reply(standin: StandinServer, mode: str, streaming: bool) -> None:
    standin.mode = mode
    llm = OpenAICompatLLM(standin.url, "m", timeout_s=5)
    with pytest.raises(BackendError) as info:
        _call(llm, streaming)
    message = one_line(info.value)
    assert standin.url in message and "garbage" in message


def test_http_error_status(standin: StandinServer) -> None:
    standin.mode = "http_error"
    with pytest.raises(BackendError) as info:
        OpenAICompatLLM(standin.url, "m", timeout_s=5).complete(MESSAGES, PARAMS)
    message = one_line(info.value)
    assert standin.url in message and "HTTP 500" in message and "model exploded" in message


@pytest.mark.parametrize("streaming", [False, True], ids=["complete", "stream"])
def test_timeout(standin: StandinServer, streaming: bool) -> None:
    standin.latency_s = 3.0
    llm = OpenAICompatLLM(standin.url, "m", timeout_s=0.3)
    with pytest.raises(BackendError) as info:
        _call(llm, streaming)
    message = one_line(info.value)
    assert standin.url in message and "did not answer within 0.3 s" in message


def test_stream_cut_off_is_an_error_and_not_cached(standin: StandinServer) -> None:
    standin.mode = "cut_stream"
    cache = DictCache()
    llm = CachedLLM(OpenAICompatLLM(standin.url, "m", timeout_s=5), cache)
    with pytest.raises(BackendError) as info:
        list(llm.stream((Message("user", "one two three four five six"),), PARAMS))
    assert "ended early" in one_line(info.value) and standin.url in str(info.value)
    assert cache.rows == {}


def _call(llm: OpenAICompatLLM, streaming: bool) -> None:
    if streaming:
        list(llm.stream(MESSAGES, PARAMS))
    else:
        llm.complete(MESSAGES, PARAMS)


def test_a_servers_error_body_reaches_the_terminal_without_its_controls() -> None:
    body = b'{"error": {"message": "\\u001b]0;owned\\u0007boom \\u009b2J\\u202eevil"}}'
    raw = b"\x1b]0;owned\x07 raw body"
    for sent in (body, raw):
        script = send(head("500 Internal Server Error", len(sent)) + sent)
        with HostileServer(script) as server, pytest.raises(BackendError) as info:
            OpenAICompatLLM(server.url, "m", timeout_s=5).complete(MESSAGES, PARAMS)
        message = str(info.value)
        assert "HTTP 500" in message and not any(ch in message for ch in "\x1b\x07\x9b\u202e"), repr(message)
        assert "owned" in message  # the text stays; only what a terminal would obey is gone
