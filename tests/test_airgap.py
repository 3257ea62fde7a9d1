"""No packet leaves: ingest (with OCR), search, ask and the TUI's start-up on the real models make no network call
(connect, send, bind) to any address but loopback, and no name lookup, seen by strace over the whole process tree
(the PDF reading child included). The probe is shown to see one: onnxruntime with its telemetry allowed, outside
pikelocal, looks up its telemetry host on the same machine. ``doctor --network`` reports from the same probe.

Slow: the real encoder, the OCR models and the real LLM.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from pikelocal import NO_PHONE_HOME, api, doctor, network_probe
from tests.support.paths import REPO, installed_model

pytestmark = pytest.mark.slow

SAMPLE = Path(api.__file__).parent / "samples" / "道路改造工程招标文件（示例）.md"
SCANNED = REPO / "tests" / "data" / "ocr" / "zh_hant_tender_horizontal.pdf"


def internet_sockets(args: list[str], env: dict[str, str] | None = None) -> list[str]:
    """Every network call ``args`` made (children followed) to an internet address other than loopback, and every
    name lookup; run without a build server's variables unless ``env`` is given (network_probe.user_environment)."""
    if network_probe.strace_path() is None:
        if os.environ.get("CI"):
            pytest.fail("strace is needed for the network test (Debian's strace package)")
        pytest.skip("strace is not installed")
    probe = network_probe.trace(args, env=env)
    assert probe.returncode == 0, probe.output
    return list(probe.calls)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "pikelocal", *args]


def test_ingest_search_ask_and_the_tui_open_no_internet_socket(tmp_path: Path) -> None:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    kb = str(tmp_path / "kb.sqlite")
    seen = {
        "ingest": internet_sockets(cli("ingest", kb, str(SAMPLE), str(SCANNED), "--ocr", "always")),
        "search": internet_sockets(cli("search", kb, "投标保证金是多少？")),
        "ask": internet_sockets(cli("ask", kb, "投标保证金是多少？", "--mode", "naive")),
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
    seen["tui"] = internet_sockets([sys.executable, "-c", tui])
    assert seen == {"ingest": [], "search": [], "ask": [], "tui": []}


def test_the_probe_sees_onnxruntime_telemetry_when_it_is_allowed() -> None:
    """Without pikelocal's switches, onnxruntime's own start-up reaches for the network: the test above can fail."""
    model = installed_model("embeddinggemma-300m/model.onnx")
    env = {k: v for k, v in network_probe.user_environment().items() if k not in NO_PHONE_HOME}
    # its telemetry reports when a session ends; seen here within 10 s of that
    code = f"import onnxruntime as ort, time; s = ort.InferenceSession({str(model)!r}); del s; time.sleep(10)"
    assert internet_sockets([sys.executable, "-c", code], env=env)
    assert not internet_sockets([sys.executable, "-c", f"import pikelocal; {code}"], env=env)


def telemetry_run() -> list[str]:
    """onnxruntime alone, outside pikelocal (so its telemetry is on): what the doctor must catch."""
    model = installed_model("embeddinggemma-300m/model.onnx")
    code = f"import onnxruntime as ort, time; s = ort.InferenceSession({str(model)!r}); del s; time.sleep(10)"
    return [sys.executable, "-c", code]


def test_doctor_reports_no_network_from_the_same_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    installed_model("embeddinggemma-300m/model.onnx")
    network_probe.strace_path() or pytest.skip("strace is not installed")
    section = doctor.network(traced=True)
    assert [(c.name, c.ok) for c in section.checks] == [("telemetry switches", True), ("network", True)]
    assert section.checks[1].value.startswith("none opened")
    # the same check on a run that phones home fails, naming the call
    clean = {k: v for k, v in network_probe.user_environment().items() if k not in NO_PHONE_HOME}
    monkeypatch.setattr(network_probe, "encoder_run", lambda: telemetry_run())
    monkeypatch.setattr(network_probe, "user_environment", lambda environ=None: clean)
    failed = doctor.network(traced=True).checks[1]
    assert failed.ok is False and "internet call(s)" in failed.value and "htons(53)" in failed.value
