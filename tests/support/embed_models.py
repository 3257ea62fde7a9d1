"""Shared checks for the real-model encoder tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pikelocal.embed.base import TokenVectors
from tests.support.paths import MODELS  # noqa: E402

MINILM_DIR = MODELS / "minilm-l6-v2"
GEMMA_DIR = MODELS / "embeddinggemma-300m"


def require_model(model_dir: Path) -> None:
    if not (model_dir / "encoder.json").is_file():
        pytest.skip(f"encoder not installed: {model_dir} (run the model set-up first)")


def load_encoder(model_dir: Path, **options: Any):
    require_model(model_dir)
    from pikelocal.embed.onnx import OnnxEncoder

    return OnnxEncoder(model_dir, threads=2, **options)


def assert_offsets_cover(tv: TokenVectors) -> None:
    """Offsets are in bounds, ordered, and every non-space character lies inside some token."""
    text, offs = tv.text, tv.offsets
    assert offs.dtype == np.int64 and offs.shape == (len(tv.vectors), 2)
    assert np.all(offs[:, 0] >= 0) and np.all(offs[:, 1] <= len(text)) and np.all(offs[:, 0] <= offs[:, 1])
    assert np.all(np.diff(offs[:, 0]) >= 0), "token starts go backwards"
    assert np.all(np.diff(offs[:, 1]) >= 0), "token ends go backwards"
    covered = np.zeros(len(text) + 1, dtype=np.int64)
    np.add.at(covered, offs[:, 0], 1)
    np.add.at(covered, offs[:, 1], -1)
    inside = np.cumsum(covered)[: len(text)] > 0
    missing = [k for k, ch in enumerate(text) if not ch.isspace() and not inside[k]]
    assert not missing, f"characters outside every token: {[text[k] for k in missing[:10]]} at {missing[:10]}"


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
