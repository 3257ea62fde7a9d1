"""OnnxEncoder refuses missing or corrupt model files with a one-line ModelError naming the file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from pikelocal.domain.errors import ModelError
from tests.support.embed_models import MINILM_DIR, require_model

pytest.importorskip("onnxruntime")
tokenizers = pytest.importorskip("tokenizers")

from pikelocal.embed.onnx import OnnxEncoder  # noqa: E402

CONFIG = {
    "id": "tiny",
    "dim": 4,
    "max_tokens": 16,
    "onnx": "model.onnx",
    "tokenizer": "tokenizer.json",
    "query_prompt": "",
    "passage_prompt": "",
    "projection": None,
    "output": "last_hidden_state",
}


def _tiny_tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    tok = Tokenizer(models.WordLevel({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)]
    )
    tok.save(str(path))


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    """A folder whose files are all present; the ONNX file is garbage unless a test replaces it."""
    d = tmp_path / "enc"
    d.mkdir()
    (d / "encoder.json").write_text(json.dumps(CONFIG))
    (d / "model.onnx").write_bytes(b"\x08\x07garbage, not a protobuf" * 10)
    _tiny_tokenizer(d / "tokenizer.json")
    return d


def _error(model_dir: Path) -> str:
    with pytest.raises(ModelError) as info:
        OnnxEncoder(model_dir)
    msg = str(info.value)
    assert "\n" not in msg and msg == msg.strip()
    assert info.value.exit_code == 3
    return msg


def _set_config(model_dir: Path, **changes: object) -> None:
    (model_dir / "encoder.json").write_text(json.dumps({**CONFIG, **changes}))


def test_missing_folder(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert str(missing) in _error(missing)


def test_missing_config(model_dir: Path) -> None:
    (model_dir / "encoder.json").unlink()
    assert str(model_dir / "encoder.json") in _error(model_dir)


def test_malformed_config(model_dir: Path) -> None:
    (model_dir / "encoder.json").write_text("{not json")
    assert str(model_dir / "encoder.json") in _error(model_dir)


def test_config_missing_key(model_dir: Path) -> None:
    cfg = dict(CONFIG)
    del cfg["dim"]
    (model_dir / "encoder.json").write_text(json.dumps(cfg))
    msg = _error(model_dir)
    assert str(model_dir / "encoder.json") in msg and "dim" in msg


@pytest.mark.parametrize("name", ["model.onnx", "tokenizer.json"])
def test_missing_file(model_dir: Path, name: str) -> None:
    (model_dir / name).unlink()
    assert str(model_dir / name) in _error(model_dir)


def test_corrupt_tokenizer(model_dir: Path) -> None:
    (model_dir / "tokenizer.json").write_text('{"version": "1.0", "model": ')
    msg = _error(model_dir)
    assert str(model_dir / "tokenizer.json") in msg and "not a valid tokenizer" in msg


def test_corrupt_onnx(model_dir: Path) -> None:
    msg = _error(model_dir)
    assert str(model_dir / "model.onnx") in msg and "is not a valid ONNX model" in msg


def test_missing_projection(model_dir: Path) -> None:
    _set_config(model_dir, projection="dense.npy")
    assert str(model_dir / "dense.npy") in _error(model_dir)


def test_projection_of_wrong_shape(model_dir: Path) -> None:
    _set_config(model_dir, projection="dense.npy")
    np.save(model_dir / "dense.npy", np.zeros((4, 3), dtype=np.float32))
    msg = _error(model_dir)
    assert str(model_dir / "dense.npy") in msg and "shape" in msg


def test_corrupt_projection(model_dir: Path) -> None:
    _set_config(model_dir, projection="dense.npy")
    (model_dir / "dense.npy").write_bytes(b"not numpy")
    assert str(model_dir / "dense.npy") in _error(model_dir)


@pytest.mark.slow
def test_truncated_real_onnx(tmp_path: Path) -> None:
    require_model(MINILM_DIR)
    d = tmp_path / "minilm"
    shutil.copytree(MINILM_DIR, d)
    data = (d / "model.onnx").read_bytes()
    (d / "model.onnx").write_bytes(data[: len(data) // 2])
    msg = _error(d)
    assert str(d / "model.onnx") in msg and "is not a valid ONNX model" in msg


@pytest.mark.slow
def test_dim_that_disagrees_with_the_model(tmp_path: Path) -> None:
    require_model(MINILM_DIR)
    d = tmp_path / "minilm"
    d.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (d / name).symlink_to(MINILM_DIR / name)
    config = json.loads((MINILM_DIR / "encoder.json").read_text())
    (d / "encoder.json").write_text(json.dumps({**config, "dim": 768}))
    msg = _error(d)
    assert str(d / "encoder.json") in msg and "384" in msg
