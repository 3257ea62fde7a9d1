"""Shared fixtures: where the repository, its installed models and ../shared/ are."""

from __future__ import annotations

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
