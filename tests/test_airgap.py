"""No packet leaves: ingest (with OCR), search, ask and the TUI's start-up on the real models make no network call
(connect, send, bind) to any address but loopback, and no name lookup, seen by strace over the whole process tree
(the PDF reading child included). The probe is shown to see one: onnxruntime with its telemetry allowed, outside
pikelocal, looks up its telemetry host on the same machine.

Slow: the real encoder, the OCR models and the real LLM.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pikelocal import NO_PHONE_HOME, api
from tests.support.paths import REPO, installed_model

pytestmark = pytest.mark.slow

SAMPLE = Path(api.__file__).parent / "samples" / "道路改造工程招标文件（示例）.md"
SCANNED = REPO / "tests" / "data" / "ocr" / "zh_hant_tender_horizontal.pdf"
# An address a network call named: strace writes inet_addr("10.0.0.1") and inet_pton(AF_INET6, "::1", …).
ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)"')
NETWORK_CALL = re.compile(r"\b(connect|sendto|sendmsg|bind)\(")
# onnxruntime keeps its telemetry quiet on a build server: it looks for these variables (names read from its
# library's strings; CI is the generic one). The probe's own run must not carry them, or there is nothing to see.
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


def strace() -> str:
    found = shutil.which("strace")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("strace is needed for the network test (Debian's strace package)")
        pytest.skip("strace is not installed")
    return found


def loopback(address: str) -> bool:
    return address.startswith("127.") or address in ("::1", "::ffff:127.0.0.1")


def user_environment() -> dict[str, str]:
    """This process's environment as a user's machine has it: without a build server's markers, which would quiet
    onnxruntime's telemetry by themselves and hide a leak."""
    return {k: v for k, v in os.environ.items() if k not in CI_MARKERS}


def internet_sockets(args: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> list[str]:
    """Run ``args`` under strace (children followed) and return every network call (connect, send, bind) it made
    to an internet address other than loopback (a DNS lookup is a connect to the resolver's port 53).

    A socket that only binds to loopback sends nothing: urllib3 (which rapidocr imports) binds one to ::1 at import
    to learn whether the machine has IPv6."""
    log = tmp_path / f"strace-{len(list(tmp_path.glob('strace-*')))}.log"
    proc = subprocess.run(
        [strace(), "-f", "-qq", "-e", "trace=connect,sendto,sendmsg,bind", "-o", str(log), *args],
        capture_output=True,
        text=True,
        env=env if env is not None else user_environment(),
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = []
    for line in log.read_text(errors="replace").splitlines():
        addresses = [a or b for a, b in ADDRESS.findall(line)]
        dns = "htons(53)" in line  # a name lookup leaves the machine even through a loopback resolver
        if NETWORK_CALL.search(line) and (dns or any(not loopback(a) for a in addresses)):
            out.append(line)
    return out


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "pikelocal", *args]


def test_ingest_search_ask_and_the_tui_open_no_internet_socket(tmp_path: Path) -> None:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    kb = str(tmp_path / "kb.sqlite")
    seen = {
        "ingest": internet_sockets(cli("ingest", kb, str(SAMPLE), str(SCANNED), "--ocr", "always"), tmp_path),
        "search": internet_sockets(cli("search", kb, "投标保证金是多少？"), tmp_path),
        "ask": internet_sockets(cli("ask", kb, "投标保证金是多少？", "--mode", "naive"), tmp_path),
    }
    tui = textwrap.dedent(
        f"""
        import asyncio
        from pikelocal import api
        from pikelocal.tui.app import PikeApp

        async def main() -> None:
            settings = api.load_settings()
            app = PikeApp(settings, api.open_kb({kb!r}, settings))
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.pause(2)

        asyncio.run(main())
        """
    )
    seen["tui"] = internet_sockets([sys.executable, "-c", tui], tmp_path)
    assert seen == {"ingest": [], "search": [], "ask": [], "tui": []}


def test_the_probe_sees_onnxruntime_telemetry_when_it_is_allowed(tmp_path: Path) -> None:
    """Without pikelocal's switches, onnxruntime's own start-up reaches for the network: the test above can fail."""
    model = installed_model("embeddinggemma-300m/model.onnx")
    env = {k: v for k, v in user_environment().items() if k not in NO_PHONE_HOME}
    # its telemetry reports when a session ends; seen here within 10 s of that
    code = f"import onnxruntime as ort, time; s = ort.InferenceSession({str(model)!r}); del s; time.sleep(10)"
    assert internet_sockets([sys.executable, "-c", code], tmp_path, env=env)
    assert not internet_sockets([sys.executable, "-c", f"import pikelocal; {code}"], tmp_path, env=env)
