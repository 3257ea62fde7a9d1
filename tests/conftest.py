"""Shared fixtures: where the repository, its installed models and ../shared/ are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import SHARED_DATA
from tests.support.workers import PythonWorkers


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent (tests that read shared data need ../shared beside the checkout)")
    return SHARED_DATA


@pytest.fixture
def python_workers(tmp_path: Path) -> Iterator[PythonWorkers]:
    workers = PythonWorkers(tmp_path)
    yield workers
    workers.kill_all()  # never leave a worker behind, whatever failed
