"""The HTTP connection under a deadline (``llm/deadline_http.py``): with ``loopback_only`` (llm.allow_remote off) a
server reached through a name that counts as this machine is checked by the address it connected to, and is sent
nothing when that address is off this machine (a hosts file, or a resolver, can send "localhost"
anywhere)."""

from __future__ import annotations

import socket
import threading

import pytest

from pikelocal.domain.errors import BackendError
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.openai_compat import OpenAICompatLLM

MESSAGES = [Message("user", "the tender's bid bond is 5 %")]
PARAMS = GenParams(max_tokens=8, tag="test")


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
