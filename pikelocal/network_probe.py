"""Did a process reach for the network? Run it under ``strace -f`` (its children followed) and list every network
call (connect, send, bind) to an address other than loopback, and every name lookup (a call to port 53, which
leaves the machine even through a loopback resolver).

Used by ``pikelocal doctor --network`` and by ``tests/test_airgap.py``, so that what the doctor reports is what
the test proves. strace is the probe because the phone-home that matters comes from native code (onnxruntime's
telemetry), which no Python-level hook sees.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# An address a network call named: strace writes inet_addr("10.0.0.1") and inet_pton(AF_INET6, "::1", …).
_ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')
_NETWORK_CALL = re.compile(r"\b(connect|sendto|sendmsg|bind)\(")
TRACED_CALLS = "trace=connect,sendto,sendmsg,bind"

# onnxruntime keeps its telemetry quiet on a build server: it looks for these variables (names read from its
# library's strings; CI is the generic one). A probe meant to see what a user's machine does runs without them.
CI_MARKERS = (
    "CI",
    "TF_BUILD",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "CODEBUILD_BUILD_ID",
    "BUILDKITE",
    "TEAMCITY_VERSION",
    "APPVEYOR",
    "BITBUCKET_BUILD_NUMBER",
)


@dataclass(frozen=True)
class Probe:
    """One traced run: the internet calls it made (empty: none), its exit code and its output's tail."""

    calls: tuple[str, ...]
    returncode: int
    output: str


def strace_path() -> str | None:
    return shutil.which("strace")


def loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1")


def internet_calls(strace_log: str) -> list[str]:
    """The lines of an strace log (``-e trace=connect,sendto,sendmsg,bind``) that reached past this machine.

    A socket that only binds to loopback sends nothing: urllib3 (which rapidocr imports) binds one to ::1 at import
    to learn whether the machine has IPv6. Unix sockets (nscd) name no internet address and are not counted."""
    out = []
    for line in strace_log.splitlines():
        addresses = [a or b for a, b in _ADDRESS.findall(line)]
        dns = "htons(53)" in line
        if _NETWORK_CALL.search(line) and (dns or any(not loopback(a) for a in addresses)):
            out.append(line)
    return out


def user_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's) as a user's machine has it: without a build server's markers, which
    would quiet onnxruntime's telemetry by themselves and hide a leak."""
    return {k: v for k, v in (os.environ if environ is None else environ).items() if k not in CI_MARKERS}


def trace(args: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 900) -> Probe:
    """Run ``args`` under strace and return its internet calls. Needs strace (:func:`strace_path`)."""
    strace = strace_path()
    if strace is None:
        raise FileNotFoundError("strace is not installed")
    with tempfile.TemporaryDirectory(prefix="pikelocal-probe-") as tmp:
        log = Path(tmp) / "strace.log"
        proc = subprocess.run(
            [strace, "-f", "-qq", "-e", TRACED_CALLS, "-o", str(log), *args],
            capture_output=True,
            text=True,
            env=dict(env) if env is not None else user_environment(),
            timeout=timeout,
        )
        text = log.read_text(errors="replace") if log.exists() else ""
    return Probe(tuple(internet_calls(text)), proc.returncode, (proc.stdout + proc.stderr)[-2000:])


# What the doctor traces: pikelocal's own encoder opened, used once and closed, then a wait as long as onnxruntime
# takes to report a finished session when its telemetry is allowed (tests/test_airgap.py shows the probe seeing it).
_ENCODER_RUN = """
import time
from pikelocal import api
from pikelocal.embed.factory import open_encoder

encoder = open_encoder(api.load_settings())
encoder.encode(["probe"], role="query")
del encoder
time.sleep({wait})
"""


def encoder_run(wait_s: float = 10) -> list[str]:
    """The command line of the doctor's traced run: the configured encoder loaded, one query encoded, closed."""
    return [sys.executable, "-c", _ENCODER_RUN.format(wait=wait_s)]
