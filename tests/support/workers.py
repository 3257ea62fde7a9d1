"""Python scripts started as child processes by a test, killed if still running."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO


class PythonWorkers:
    """Starts Python scripts as child processes (stderr kept in a file per worker) and kills any left running."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, script: Path, *args: str | Path) -> subprocess.Popen[bytes]:
        with (self.logs / f"worker{len(self.procs)}.err").open("wb") as err:
            proc = subprocess.Popen(
                [sys.executable, str(script), *map(str, args)], cwd=REPO, stdout=subprocess.DEVNULL, stderr=err
            )
        self.procs.append(proc)
        return proc

    def kill_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
