"""Collect diagnostics for `pikelocal doctor`: versions, CPU and GPU, models, and a KB file's health."""

from __future__ import annotations

import importlib.metadata as metadata
import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from pikelocal.assets import check_artifact, load_manifest, resolve_gguf
from pikelocal.config import Settings
from pikelocal.cpu import CPU_FLAGS, cpu_info
from pikelocal.domain.errors import PikeError

PACKAGES = (
    "llama-cpp-python",
    "onnxruntime",
    "tokenizers",
    "apsw-sqlite3mc",
    "sqlite-vec",
    "textual",
    "pypdf",
    "rapidocr",
    "pypdfium2",
    "numpy",
)


@dataclass(frozen=True)
class Check:
    name: str
    value: str
    ok: bool | None = None  # None: information only


@dataclass(frozen=True)
class Section:
    title: str
    checks: tuple[Check, ...]

    @property
    def failed(self) -> bool:
        return any(c.ok is False for c in self.checks)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions() -> Section:
    from pikelocal import __version__

    checks = [Check("python", platform.python_version()), Check("pikelocal", __version__)]
    checks += [Check(p, v, v != "not installed") for p in PACKAGES for v in [_version(p)]]
    return Section("Versions", tuple(checks))


def hardware() -> Section:
    model, flags = cpu_info()
    checks = [
        Check("cpu", f"{model}, {os.cpu_count()} logical cores"),
        Check("cpu features", " ".join(f for f in CPU_FLAGS if f in flags) or "unknown"),
    ]
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            out = subprocess.run(
                [smi, "--query-gpu=name,memory.total", "--format=csv,noheader"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        checks.append(Check("nvidia gpu", out or "nvidia-smi found but reported no GPU"))
    else:
        checks.append(Check("nvidia gpu", "none (nvidia-smi not found)"))
    try:
        from pikelocal.llm.llama_cpp import gpu_offload_supported

        offload = gpu_offload_supported()
        checks.append(Check("llama.cpp gpu offload", "built with GPU support" if offload else "CPU-only build"))
    except Exception as exc:  # a broken llama.cpp build must not hide the rest of the report
        checks.append(Check("llama.cpp", f"cannot load: {exc}", False))
    try:
        from pikelocal.embed.onnx import available_providers

        checks.append(Check("onnxruntime providers", ", ".join(available_providers())))
    except Exception as exc:
        checks.append(Check("onnxruntime", f"cannot load: {exc}", False))
    return Section("Hardware", tuple(checks))


def models(settings: Settings, *, full: bool = False) -> Section:
    try:
        manifest = load_manifest(settings.models_path())
    except PikeError as exc:
        return Section("Models", (Check("manifest", str(exc), False),))
    checks = [Check("folder", str(manifest.folder))]
    for art in manifest.artifacts:
        status = check_artifact(manifest, art, full=full)
        checks.append(Check(f"{art.role} {art.id}", status.detail, status.state == "verified"))
    checks.append(Check("llm batch width", _batch_width(settings)))
    return Section("Models", tuple(checks))


def _batch_width(settings: Settings) -> str:
    """What llm.batch means for the configured in-process model here (``pikelocal calibrate`` measures it)."""
    if settings.llm.backend != "llama_cpp":
        return f"server: {settings.llm.parallel} requests at a time (llm.parallel)"
    if settings.llm.batch:
        return f"{settings.llm.batch} (llm.batch)"
    try:
        from pikelocal.llm.batch_width import read_width
        from pikelocal.llm.factory import width_key

        width = read_width(width_key(settings.llm, resolve_gguf(settings.llm.model, settings.models_path())))
    except PikeError as exc:
        return f"unknown ({exc})"
    return f"{width} (measured)" if width is not None else "1 (not measured on this machine: pikelocal calibrate)"


def knowledge_base(path: Path, key: str | None = None) -> Section:
    from pikelocal.store.store import Store

    try:
        with Store.open_existing(path, key=key, check=False) as store:  # integrity_check below reports damage
            meta = store.meta()
            problems = store.integrity_check()
            counts = store.counts()
    except PikeError as exc:
        return Section(f"Knowledge base {path}", (Check("open", str(exc), False),))
    checks = [
        Check("encoder", f"{meta.get('encoder_id')} ({meta.get('encoder_dim')}-d)"),
        Check("schema version", str(meta.get("schema_version"))),
        Check("integrity", "ok" if not problems else "; ".join(problems[:5]), not problems),
    ]
    checks += [Check(name, f"{n:,}") for name, n in counts.items()]
    return Section(f"Knowledge base {path}", tuple(checks))


def network(*, traced: bool = False) -> Section:
    """The libraries' phone-home switches, and with ``traced`` the same check as tests/test_airgap.py: the
    configured encoder loaded, used and closed under strace, every internet call counted (none is the promise)."""
    from pikelocal import NO_PHONE_HOME
    from pikelocal.network_probe import encoder_run, strace_path, trace

    off = [name for name, value in NO_PHONE_HOME.items() if os.environ.get(name) != value]
    checks = [
        Check(
            "telemetry switches",
            "all set (" + ", ".join(NO_PHONE_HOME) + ")" if not off else "not set: " + ", ".join(off),
            not off,
        )
    ]
    if not traced:
        checks.append(Check("network", "not traced (pikelocal doctor --network traces an encoder run, ~15 s)"))
    elif strace_path() is None:
        checks.append(Check("network", "not traced: strace is not installed (Debian's strace package)"))
    else:
        probe = trace(encoder_run(), timeout=300)
        if probe.returncode != 0:
            tail = " ".join(probe.output.split())[-200:]
            checks.append(Check("network", f"the traced encoder run failed (exit {probe.returncode}): {tail}", False))
        elif probe.calls:
            checks.append(Check("network", f"{len(probe.calls)} internet call(s): {probe.calls[0][:160]}", False))
        else:
            checks.append(Check("network", "none opened (encoder loaded, used and closed under strace)", True))
    return Section("Network", tuple(checks))


def run_doctor(
    settings: Settings,
    kb: Path | None = None,
    *,
    full: bool = False,
    key: str | None = None,
    network_traced: bool = False,
) -> list[Section]:
    sections = [versions(), hardware(), models(settings, full=full), network(traced=network_traced)]
    if kb is not None:
        sections.append(knowledge_base(kb, key))
    return sections
