"""Issue 44's small gaps: a name under .localhost is not this machine by its spelling, a server reached through a
name that counts as this machine is checked by the address it connected to, a server's error body cannot drive the
terminal, file names print on one line, and --json escapes what a terminal would obey."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.domain.errors import BackendError, ConfigError
from pikelocal.domain.shown import escape_hidden_json, shown_name
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.openai_compat import OpenAICompatLLM
from tests.support.cli import run_cli
from tests.support.hostile_server import HostileServer, head, send

MESSAGES = [Message("user", "the tender's bid bond is 5 %")]
PARAMS = GenParams(max_tokens=8, tag="test")


def test_a_name_under_localhost_needs_the_opt_in_like_any_name() -> None:
    env = {"PIKELOCAL_LLM_BACKEND": "openai", "PIKELOCAL_LLM_BASE_URL": "http://gpu.localhost:8080/v1"}
    with pytest.raises(ConfigError, match="is not on this machine.*llm.allow_remote = true"):
        load_settings(environ=env)
    assert load_settings(environ={**env, "PIKELOCAL_LLM_ALLOW_REMOTE": "true"}).llm.allow_remote


def this_machines_outside_address() -> str:
    """An address of this machine that is not loopback (a UDP connect sends nothing; it only picks a route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))
        except OSError:
            pytest.skip("no route off loopback on this machine")
        address = str(s.getsockname()[0])
    if address.startswith("127."):
        pytest.skip("this machine has no address off loopback")
    return address


class Listener:
    """A TCP listener on every interface that records what arrives."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("0.0.0.0", 0))
        self.sock.listen(4)
        self.sock.settimeout(5)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(2)
            try:
                while data := conn.recv(65536):
                    self.received += data
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()
        self.thread.join(5)


@pytest.mark.parametrize("loopback_only", [True, False])
def test_localhost_that_resolves_off_this_machine_is_sent_nothing(
    monkeypatch: pytest.MonkeyPatch, loopback_only: bool
) -> None:
    outside = this_machines_outside_address()
    listener = Listener()
    real = socket.getaddrinfo

    def hosts_file_edited(host: object, *args: object, **kw: object) -> object:  # "localhost" → an outside address
        return real(outside if host == "localhost" else host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", hosts_file_edited)
    llm = OpenAICompatLLM(f"http://localhost:{listener.port}/v1", "m", timeout_s=3, loopback_only=loopback_only)
    try:
        with pytest.raises(BackendError) as info:
            llm.complete(MESSAGES, PARAMS)
    finally:
        listener.close()
    if loopback_only:  # what llm.allow_remote = false builds: refused before a byte is sent
        assert f"led to {outside}, which is not this machine; nothing was sent" in str(info.value)
        assert listener.received == b""
    else:  # the probe sees a request where one is allowed (it then times out: the listener never answers)
        assert b"bid bond" in listener.received


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


def test_a_name_is_shown_on_one_line_with_its_controls_escaped() -> None:
    assert shown_name("a\nb\tc\x1b[2J\u202efdp.exe") == "a\\nb\\tc\\x1b[2J\\u202efdp.exe"
    assert shown_name("招标文件 v2.pdf") == "招标文件 v2.pdf"


def test_json_output_escapes_c1_controls_and_bidi_marks_and_stays_the_same_data() -> None:
    data = {"path": "x\u202egpj.exe", "title": "a\x9b31mb", "text": "第一条\n"}
    encoded = escape_hidden_json(json.dumps(data, ensure_ascii=False))
    assert "\u202e" not in encoded and "\x9b" not in encoded and "第一条" in encoded
    assert json.loads(encoded) == data


@pytest.mark.slow  # the real MiniLM encoder, through the CLI
def test_docs_and_search_print_a_file_name_with_a_newline_on_one_line(tmp_path: Path) -> None:
    doc = tmp_path / "fake\n  99  ready  1  1  forged.txt"  # a second row, were the newline printed
    doc.write_text("The bid deposit is due on 1 June.\n")
    evil = tmp_path / "report\u202etxt.exe\x9b.txt"
    evil.write_text("Deposit refunds follow within 30 days.\n")
    kb = tmp_path / "kb.kb"
    ingested = run_cli("--encoder", "minilm", "ingest", str(kb), str(doc), str(evil), "--no-late")
    assert ingested.returncode == 0, ingested.stderr
    listed = run_cli("docs", str(kb))
    assert "fake\\n  99  ready" in listed.stdout, listed.stdout
    assert not any(line.lstrip().startswith("99  ready") for line in listed.stdout.splitlines()), listed.stdout
    found = run_cli("search", str(kb), "deposit", "--mode", "bm25")
    assert "fake\\n" in found.stdout and "\u202e" not in found.stdout
    as_json = run_cli("docs", str(kb), "--json")
    assert "\u202e" not in as_json.stdout and "\x9b" not in as_json.stdout and "\\u202e" in as_json.stdout
    assert str(evil) in json.dumps(json.loads(as_json.stdout), ensure_ascii=False)
