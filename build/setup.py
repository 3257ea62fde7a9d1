#!/usr/bin/env python3
"""Set-up for `make setup` / `make demo` / `make test`: one line per stage on the terminal, everything in a log.

    python3 build/setup.py [--gpu cuda] [--only packages|models] [--log build/setup.log] [--json docs/results.json]

Stages: the virtual environment (.venv), the Python packages (llama.cpp compiles here), then each model
(build/models.py; EmbeddingGemma's export reports its own sub-stages), then the LLM's batch width on this machine
(`pikelocal calibrate`, once). Each stage runs as a child process whose
output goes to the log; the terminal gets its name, elapsed time and peak memory (the largest process of the
stage, from wait4), and at the end a summary with the disk used. A stage that fails prints the log's last lines
and the log's path, and set-up stops with exit 1. Finished stages are skipped next time: the packages stage
when .venv/.deps-installed is newer than pyproject.toml (and, on a CPU with AMX, records that llama.cpp was built
without AMX: see NO_AMX_FLAGS), a model when it is installed and verified.

With ``--json`` (for a fresh clone, where every stage runs) the whole set-up's time, its largest process and the
disk it used are also recorded in that results file (benchmark "setup"), through the project's own
helper in the environment just made.

Runs with the system Python (standard library only): the project's environment does not exist yet.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
PY = VENV / "bin" / "python"
STAGE_PREFIX = "[stage] "  # lines of the form "[stage] NAME|SECONDS|PEAK_MB|NOTE" are echoed as stages


def fmt_secs(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.1f} min"


def fmt_bytes(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if abs(n) >= 1e8 else f"{n / 1e6:.0f} MB"


class DiskWatch:
    """Peak and current use of the filesystem holding the project, relative to the start (sampled each second)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.start = self.used()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def used(self) -> int:
        st = os.statvfs(self.path)
        return (st.f_blocks - st.f_bfree) * st.f_frsize

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.peak = max(self.peak, self.used())

    def stop(self) -> tuple[int, int]:
        self._stop.set()
        self._thread.join()
        now = self.used()
        self.peak = max(self.peak, now)
        return self.peak - self.start, now - self.start


class Setup:
    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log = log_path.open("a", encoding="utf-8")
        self.log.write(f"\n===== set-up started {time.strftime('%Y-%m-%d %H:%M:%S')} =====\n")
        self.rows: list[tuple[str, float, int | None, str]] = []

    def line(self, name: str, seconds: float, peak_mb: int | None, note: str = "") -> None:
        self.rows.append((name, seconds, peak_mb, note))
        peak = f", peak {fmt_bytes(peak_mb * 1e6)}" if peak_mb else ""
        dots = "." * max(2, 46 - len(name))
        print(f"[setup] {name} {dots} {fmt_secs(seconds)}{peak}{f'  ({note})' if note else ''}", flush=True)

    def run(self, name: str, cmd: list[str], env: dict[str, str] | None = None, note: str = "") -> None:
        """Run one stage; its output goes to the log, its '[stage]' lines to the terminal."""
        self.log.write(f"\n--- {name}: {' '.join(cmd)}\n")
        self.log.flush()
        t = time.monotonic()
        proc = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
        )
        tail: list[str] = []
        assert proc.stdout is not None
        for raw in proc.stdout:
            self.log.write(raw)
            tail = (tail + [raw.rstrip()])[-15:]
            if raw.startswith(STAGE_PREFIX):
                sub, secs, peak, sub_note = (raw[len(STAGE_PREFIX) :].rstrip("\n").split("|") + ["", "", ""])[:4]
                self.line(sub, float(secs or 0), int(peak) if peak else None, sub_note)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        self.log.flush()
        if proc.returncode != 0:
            print("\n".join(f"  | {ln}" for ln in tail), file=sys.stderr)
            raise SystemExit(
                f"Error: set-up stage '{name}' failed (exit {proc.returncode}); the full log is {self.log_path}"
            )
        self.line(name, time.monotonic() - t, round(usage.ru_maxrss / 1024), note)


def deps_stamp(gpu: str) -> Path:
    return VENV / f".deps-installed{'-' + gpu if gpu else ''}"


# llama.cpp built with -march=native on a CPU with AMX (Sapphire Rapids and later) repacks the weights for its AMX
# kernels, and the first decode then dies with SIGSEGV in ggml_backend_amx_mul_mat (seen here on a 2-core Xeon VM
# with llama-cpp-python 0.3.36; llama.cpp issue #20824, closed unfixed; ollama and dspy dropped AMX for it). The
# compiler's explicit -mno-amx-* win over -march=native whatever their order, so the build keeps AVX-512/VNNI.
NO_AMX_FLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
NO_AMX_KEY = "llama.cpp built without AMX"


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return False
    return any(ln.startswith("flags") and "amx_int8" in ln.split() for ln in text.splitlines())


def without_amx(env: dict[str, str]) -> dict[str, str]:
    """``env`` with C and C++ flags that keep the AMX kernels out of llama.cpp (CMake reads CFLAGS/CXXFLAGS)."""
    return {
        **env,
        "CFLAGS": f"{env.get('CFLAGS', '')} {NO_AMX_FLAGS}".strip(),
        "CXXFLAGS": f"{env.get('CXXFLAGS', '')} {NO_AMX_FLAGS}".strip(),
    }


def llama_requirement() -> str:
    return next(
        ln.split('"')[1]
        for ln in (ROOT / "pyproject.toml").read_text().splitlines()
        if ln.strip().startswith('"llama-cpp-python==')
    )


def packages(setup: Setup, gpu: str, jobs: str) -> None:
    stamp = deps_stamp(gpu)
    amx = cpu_has_amx()
    if (
        stamp.exists()
        and stamp.stat().st_mtime >= (ROOT / "pyproject.toml").stat().st_mtime
        and (not amx or NO_AMX_KEY in stamp.read_text())  # a stamp from before the AMX fix: rebuild llama.cpp
    ):
        print("[setup] python packages: installed (.venv)", flush=True)
        return
    if not PY.exists():
        setup.run("python environment (.venv)", [sys.executable, "-m", "venv", str(VENV)])
    pip = [str(PY), "-m", "pip", "--disable-pip-version-check"]
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": jobs}
    setup.run("pip itself", [*pip, "install", "-q", "--upgrade", "pip"])
    # A forced build of its own (no wheel from pip's cache, which may hold one built another way); the packages'
    # install below then finds llama-cpp-python in place.
    forced = [*pip, "install", "-q", "--no-deps", "--force-reinstall", "--no-cache-dir", llama_requirement()]
    if gpu == "cuda":
        if shutil.which("nvcc") is None:
            raise SystemExit("Error: GPU=cuda needs the CUDA compiler nvcc on PATH")
        cuda_env = {**env, "CMAKE_ARGS": "-DGGML_CUDA=on"}
        setup.run("llama.cpp with CUDA (compiles)", forced, env=without_amx(cuda_env) if amx else cuda_env)
    elif amx:
        setup.run("llama.cpp without AMX (compiles)", forced, env=without_amx(env))
    drop_plain_apsw(setup, pip)
    built = gpu == "cuda" or amx  # llama.cpp was compiled just above
    label = "python packages" if built else "python packages (llama.cpp compiles)"
    setup.run(label, [*pip, "install", "-q", "-e", ".[dev]"], env=env)
    for old in VENV.glob(".deps-installed*"):
        old.unlink()
    stamp.write_text(f"{NO_AMX_KEY}\n" if amx else "")


def drop_plain_apsw(setup: Setup, pip: list[str]) -> None:
    """Remove plain ``apsw`` from a .venv made before the switch to ``apsw-sqlite3mc`` (encryption at rest).

    Both install the same ``apsw/`` folder: the last installed wins, and uninstalling one deletes the other's
    files. So when plain apsw is there, both go, and the install that follows puts apsw-sqlite3mc back whole.
    """
    shown = subprocess.run([*pip, "show", "-q", "apsw"], cwd=ROOT, capture_output=True)
    if shown.returncode == 0:
        setup.run("replace apsw by apsw-sqlite3mc", [*pip, "uninstall", "-y", "-q", "apsw", "apsw-sqlite3mc"])


def models(setup: Setup) -> None:
    setup.run("models", [str(PY), "build/models.py", "--stage-lines"], note="all of them, see the lines above")


def batch_width(setup: Setup) -> None:
    """``pikelocal calibrate``, once per model and machine: how many LLM calls to decode together (llm.batch = 0).

    Not a stage that can fail set-up: without a measured width, calls go one at a time, as before."""
    probe = "from pikelocal import api; import sys; sys.exit(api.measured_batch_width(api.load_settings()) is None)"
    if subprocess.run([str(PY), "-c", probe], cwd=ROOT, capture_output=True).returncode == 0:
        return
    try:
        setup.run("LLM batch width (pikelocal calibrate)", [str(VENV / "bin" / "pikelocal"), "calibrate"])
    except SystemExit as failed:
        print(f"[setup] LLM batch width not measured, calls go one at a time ({failed})", flush=True)


SETUP_DATASET = "make setup from a fresh clone"
_RECORD = (
    "import json, sys; from pathlib import Path; from pikelocal.eval.results_file import record_result; "
    "record_result(Path(sys.argv[1]), **json.loads(sys.argv[2]))"
)


def cpu_name(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    try:
        lines = cpuinfo.read_text().splitlines()
    except OSError:
        return "unknown CPU"
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "unknown CPU")


def setup_record(
    seconds: float, rows: list[tuple[str, float, int | None, str]], disk: tuple[int, int], gpu: str, command: str
) -> dict[str, object]:
    """The results.json record of a whole set-up: minutes, the largest process (GB), the disk at peak and after."""
    peak_mb = max((r[2] or 0 for r in rows), default=0)
    return {
        "benchmark": "setup",
        "dataset": SETUP_DATASET,
        "mode": f"{'CUDA' if gpu else 'CPU'} build on {cpu_name()}, {os.cpu_count()} cores",
        "n": 1,
        "metrics": {
            "setup_min": seconds / 60,
            "peak_rss_gb": peak_mb / 1000,
            "disk_peak_gb": disk[0] / 1e9,
            "disk_left_gb": disk[1] / 1e9,
        },
        "command": command,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="", choices=["", "cuda"], help="build llama.cpp with CUDA")
    ap.add_argument("--only", choices=["packages", "models"], help="run only this part")
    ap.add_argument("--log", type=Path, default=ROOT / "build" / "setup.log")
    ap.add_argument("--jobs", default=str(os.cpu_count() or 2), help="parallel compile jobs")
    ap.add_argument("--json", type=Path, help="also record the whole set-up here (results.json; a fresh clone)")
    args = ap.parse_args(argv)
    setup = Setup(args.log)
    disk = DiskWatch(ROOT)
    started = time.monotonic()
    try:
        if args.only in (None, "packages"):
            packages(setup, args.gpu, args.jobs)
        if args.only in (None, "models"):
            models(setup)
        if args.only is None:
            batch_width(setup)
    finally:
        peak, now = disk.stop()
    if setup.rows:
        worst = max((r for r in setup.rows if r[2]), key=lambda r: r[2] or 0, default=None)
        print(
            f"[setup] done in {fmt_secs(time.monotonic() - started)}: {len(setup.rows)} stage(s) run"
            + (f"; largest process {fmt_bytes((worst[2] or 0) * 1e6)} ({worst[0]})" if worst else "")
            + f"; disk used by this run {fmt_bytes(now)} (peak {fmt_bytes(peak)}); full log {args.log}",
            flush=True,
        )
    if args.json is not None and setup.rows and args.only is None:
        command = "python3 build/setup.py " + " ".join(sys.argv[1:] if argv is None else argv)
        record = setup_record(time.monotonic() - started, setup.rows, (peak, now), args.gpu, command)
        subprocess.run([str(PY), "-c", _RECORD, str(args.json.resolve()), json.dumps(record)], cwd=ROOT, check=True)
        print(f"[setup] recorded in {args.json}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
