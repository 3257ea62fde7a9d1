"""Shared fixtures: where the repository, its installed models and ../shared/ are."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"
SHARED_DATA = REPO.parent / "shared" / "data"


def installed_model(path: str) -> Path:
    """The installed model file or folder under models/, or skip the test saying how to install it."""
    target = MODELS / path
    if not target.exists():
        pytest.skip(f"{target} is not installed (run `make models`)")
    return target


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (tests that read shared data need ../shared beside the checkout)")
    return SHARED_DATA


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


@pytest.fixture
def python_workers(tmp_path: Path) -> Iterator[PythonWorkers]:
    workers = PythonWorkers(tmp_path)
    yield workers
    workers.kill_all()  # never leave a worker behind, whatever failed
