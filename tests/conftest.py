"""Shared fixtures: where the repository, its installed models and ../shared/ are."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.paths import SHARED_DATA
from tests.support.workers import PythonWorkers

# The property tests draw the same examples on every run, so a test run passes or fails by the code alone, never by
# the luck of the draw; PIKELOCAL_FUZZ=random draws new ones each run (to look for what the fixed ones miss: a bug
# found so is kept as a fixed case beside its property test).
settings.register_profile("fixed", derandomize=True)
settings.register_profile("random", derandomize=False)
settings.load_profile("random" if os.environ.get("PIKELOCAL_FUZZ") == "random" else "fixed")


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


@pytest.fixture(autouse=True, scope="session")
def _no_measured_batch_width(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The machine's measured LLM batch width (``pikelocal calibrate``, kept under $XDG_CACHE_HOME) is not read:
    every test runs the one-sequence path unless it asks for a width (llm.batch), on any machine."""
    import os

    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before
