"""build/onnx_rewrite.py on a toy graph with the exporter's patterns, run in the build-only venv (onnx, ORT).

That venv exists wherever set-up has run (``make test`` runs set-up first); without it the test is skipped.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXPORT_PYTHON = REPO / "build" / ".venv-export" / "bin" / "python"
CHECK = Path(__file__).with_name("onnx_rewrite_check.py")


@pytest.fixture(scope="module")
def results() -> dict:
    if not EXPORT_PYTHON.is_file():
        pytest.skip(f"{EXPORT_PYTHON} not built (run `make setup`)")
    proc = subprocess.run([str(EXPORT_PYTHON), str(CHECK)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_norm_and_gelu_are_fused_with_the_same_outputs(results: dict) -> None:
    assert results["fused"] == {"rms_norms": 1, "tanh_gelus": 1}
    assert "Reciprocal" not in results["ops_fused"] and "Tanh" not in results["ops_fused"]
    assert {"Div", "FastGelu"} <= set(results["ops_fused"])
    assert results["original_max_diff_vs_numpy"] < 1e-5  # the toy graph computes what numpy computes
    assert results["fused_max_diff_vs_original"] < 1e-5


def test_embedding_rows_are_int8_with_a_scale_each(results: dict) -> None:
    assert results["tables"] == 1
    names = results["initializers_after"]
    assert "embed.weight" not in names
    assert {"embed.weight_int8_rows", "embed.weight_row_scales"} <= set(names)
    # the GELU's constants go with it; the norm's stay
    assert not {"three", "c_cube", "c_sqrt", "one", "half"} & set(names)
    assert results["int8_range"] == [-127, 127]
    assert results["rows_within_half_step"]
    assert results["zero_row"] == [1.0, 0]  # an all-zero row: scale 1, no division by zero
    # the graph computes the dequantized table's embeddings exactly as numpy does
    assert results["both_max_diff_vs_numpy_on_dequantized_table"] < 1e-5


def test_a_near_miss_pattern_is_not_fused_and_the_count_check_refuses(results: dict) -> None:
    wrong = results["fused_with_wrong_constant"]
    assert wrong["gelus"] == 0
    assert "expected 1 RMSNorms and 1 GELUs" in wrong["refused"]
