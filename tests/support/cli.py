"""Running the CLI as a subprocess and checking its one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "pikelocal", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=300,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, code: int, *fragments: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), proc.stderr
    for fragment in fragments:
        assert fragment in lines[0]
