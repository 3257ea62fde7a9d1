"""HTTP connections with one deadline per request: every socket step of the request (connect, TLS handshake, each
send, each receive) gets only the time left, so a server that dribbles bytes cannot hold a caller past it.

Used by the OpenAI-compatible backend (``llm/openai_compat.py``); standard library only.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import socket
import time
from typing import Any, cast


class Deadline:
    """The end of one HTTP request: ``timeout_s`` after it starts, whatever the server does.

    A socket timeout bounds one wait for data only, so a server that sends a byte every few seconds would never
    trip it (one such server kept a request going 100 s and counting with a 5 s timeout). Instead every socket
    operation of the request (the connect, the TLS handshake, each send, each receive) is given only the time left
    before this deadline.

    A stream has the same deadline as a whole reply: ``timeout_s`` from the first byte sent to the last byte read,
    however steadily the deltas come (time the caller spends between deltas counts too). A non-streamed reply
    already had to be generated within ``timeout_s``; a streamed one is no different, and a server that keeps a
    stream alive with tiny events can no longer hold a caller forever. A caller that wants longer answers from a
    slow server raises ``llm.timeout_s``.
    """

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; raises :class:`TimeoutError` (reported as the request's timeout) when none are."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request's deadline has passed")
        return left


class NotLoopbackError(ConnectionError):
    """The server's name led to an address off this machine, and only loopback was allowed: nothing was sent."""

    def __init__(self, address: str) -> None:
        super().__init__(f"connected to {address}, which is not this machine")
        self.address = address


class DeadlineConnection(http.client.HTTPConnection):
    """One request's connection, every socket operation of it bounded by the request's :class:`Deadline`.

    With ``loopback_only`` the connected peer's address is checked before a byte is sent: a name that counted as
    this machine (``localhost``) but resolves elsewhere (an edited hosts file) is refused, not written to."""

    def __init__(self, host: str, port: int | None, deadline: Deadline, *, loopback_only: bool = False) -> None:
        super().__init__(host, port, timeout=deadline.left())
        self.deadline = deadline
        self.loopback_only = loopback_only
        # http.client connects through this attribute; a TLS handshake after it gets only the time left.
        self._create_connection = self._connect_socket

    def _connect_socket(
        self, address: tuple[str, int], timeout: float, source_address: tuple[str, int] | None = None
    ) -> socket.socket:
        sock = socket.create_connection(address, self.deadline.left(), source_address)
        if self.loopback_only:
            peer = str(sock.getpeername()[0])
            if not ipaddress.ip_address(peer.split("%")[0]).is_loopback:
                sock.close()
                raise NotLoopbackError(peer)
        sock.settimeout(self.deadline.left())
        return sock

    def connect(self) -> None:
        super().connect()  # TCP, and for https the TLS handshake
        self.sock = cast(socket.socket, DeadlineSocket(self.sock, self.deadline))


class DeadlineTLSConnection(DeadlineConnection, http.client.HTTPSConnection):
    """:class:`DeadlineConnection` over TLS: ``HTTPSConnection.connect`` wraps the socket, then it is bounded."""


class DeadlineSocket:
    """What http.client does with a connection's socket (``sendall``, ``makefile("rb")``, ``close``), each
    given only the time left before the deadline. Reading goes through :class:`DeadlineReader`, so a receive
    that has to wait for more bytes (a header line, the body, an SSE line) gets the time left, not a fresh timeout.
    """

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def sendall(self, data: bytes | bytearray | memoryview) -> None:
        self._sock.settimeout(self._deadline.left())
        self._sock.sendall(data)  # since Python 3.5 the timeout bounds the whole sendall

    def makefile(self, mode: str = "rb") -> io.BufferedReader:
        if mode != "rb":
            raise ValueError(f"unsupported mode {mode!r}")
        # socket.makefile counts its files, so http.client closing the socket (it does once a response that
        # ends by closing has begun) leaves the connection open until the response is read.
        return io.BufferedReader(DeadlineReader(self._sock, self._deadline))

    def close(self) -> None:
        self._sock.close()

    def __getattr__(self, name: str) -> Any:  # anything else http.client might ask of a socket
        return getattr(self._sock, name)


class DeadlineReader(io.RawIOBase):
    """A socket's raw reader that sets the socket's timeout to the time left before each receive."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(self._deadline.left())
        return self._raw.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()
