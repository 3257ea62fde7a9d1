"""Fixtures for store tests: real KB files under tmp_path (never :memory:)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.store.store import Store
from tests.support.store_kb import DIM, ENCODER  # noqa: F401 - the fixtures below use them


@pytest.fixture
def kb_path(tmp_path: Path) -> Path:
    return tmp_path / "kb.sqlite"


@pytest.fixture
def store(kb_path: Path) -> Iterator[Store]:
    with Store.open(kb_path, encoder_id=ENCODER, dim=DIM, settings={"chunk_tokens": 256}) as s:
        yield s
