"""The strace log reader behind the air-gap test and ``doctor --network``: what counts as reaching past this
machine. Lines as strace 6 writes them."""

from __future__ import annotations

import pytest

from pikelocal import doctor, network_probe
from pikelocal.network_probe import internet_calls, user_environment

LOG = """\
101 connect(8, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)
101 bind(5, {sa_family=AF_INET6, sin6_port=htons(0), inet_pton(AF_INET6, "::1", &sin6_addr)}, 28) = 0
102 connect(9, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("127.0.0.1")}, 16) = 0
102 sendto(9, "POST /v1/chat/completions", 25, MSG_NOSIGNAL, NULL, 0) = 25
103 connect(8, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("127.0.0.53")}, 16) = 0
104 connect(7, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("13.69.116.104")}, 16) = -1 EINPROGRESS
105 connect(7, {sa_family=AF_INET6, sin6_port=htons(443), inet_pton(AF_INET6, "2603:1030::1", &sin6_addr)}, 28) = 0
"""


def test_loopback_and_unix_sockets_pass_and_lookups_and_internet_addresses_are_caught() -> None:
    found = internet_calls(LOG)
    assert [line.split()[0] for line in found] == ["103", "104", "105"]  # a lookup via a loopback resolver counts


def test_a_build_servers_variables_are_left_out_of_the_users_environment() -> None:
    env = user_environment({"CI": "true", "GITHUB_ACTIONS": "true", "HOME": "/root", "PATH": "/bin"})
    assert env == {"HOME": "/root", "PATH": "/bin"}


def test_the_doctor_says_what_it_did_not_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    untraced = doctor.network(traced=False)
    assert [c.name for c in untraced.checks] == ["telemetry switches", "network"]
    assert untraced.checks[0].ok is True and untraced.checks[1].ok is None
    assert "doctor --network" in untraced.checks[1].value
    monkeypatch.setattr(network_probe, "strace_path", lambda: None)
    (_, check) = doctor.network(traced=True).checks
    assert check.ok is None and "strace is not installed" in check.value  # not traced is not a pass
