"""Where the repository, its installed models and ../shared/data are; skipping when a model is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "models"
SHARED_DATA = REPO.parent / "shared" / "data"


def installed_model(path: str) -> Path:
    """The installed model file or folder under models/, or skip the test saying how to install it."""
    target = MODELS / path
    if not target.exists():
        pytest.skip(f"{target} is not installed (run `make models`)")
    return target
