"""Run by test_onnx_rewrite.py in the build-only venv (onnx + onnxruntime): prints one JSON line of results.

A toy graph with the three patterns build/onnx_rewrite.py rewrites, exported the way torch.onnx (dynamo) writes
them: an embedding Gather from a float table, a Gemma RMSNorm (Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, Mul)
and gelu_pytorch_tanh (Pow, Mul, Add, Mul, Tanh, Add, Mul, Mul). Compares the rewritten graph's outputs with the
original's and with numpy.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "build"))
import onnx_rewrite  # noqa: E402

VOCAB, HIDDEN = 50, 16


def const(name: str, value: float) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(value, dtype=np.float32), name)


def toy_model(rng: np.random.Generator, cube: float = 0.044715) -> onnx.ModelProto:
    table = rng.normal(size=(VOCAB, HIDDEN)).astype(np.float32)
    table[7] = 0.0  # an all-zero row must not divide by zero
    weight = rng.normal(size=(HIDDEN,)).astype(np.float32)
    inits = [
        numpy_helper.from_array(table, "embed.weight"),
        numpy_helper.from_array(weight, "norm.weight"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "axes"),
        const("two", 2.0),
        const("eps", 1e-6),
        const("three", 3.0),
        const("c_cube", cube),
        const("c_sqrt", math.sqrt(2 / math.pi)),
        const("one", 1.0),
        const("half", 0.5),
    ]
    nodes = [
        helper.make_node("Gather", ["embed.weight", "ids"], ["emb"], name="embedding"),
        # RMSNorm: emb * 1/sqrt(mean(emb^2) + eps) * w
        helper.make_node("Pow", ["emb", "two"], ["sq"]),
        helper.make_node("ReduceMean", ["sq", "axes"], ["ms"], keepdims=1),
        helper.make_node("Add", ["ms", "eps"], ["ms_eps"]),
        helper.make_node("Sqrt", ["ms_eps"], ["rms"]),
        helper.make_node("Reciprocal", ["rms"], ["inv"]),
        helper.make_node("Mul", ["emb", "inv"], ["normed"]),
        helper.make_node("Mul", ["normed", "norm.weight"], ["x"]),
        # gelu tanh: 0.5 * (1 + tanh(c * (x + 0.044715 x^3))) * x
        helper.make_node("Pow", ["x", "three"], ["x3"]),
        helper.make_node("Mul", ["x3", "c_cube"], ["x3c"]),
        helper.make_node("Add", ["x", "x3c"], ["inner"]),
        helper.make_node("Mul", ["inner", "c_sqrt"], ["scaled"]),
        helper.make_node("Tanh", ["scaled"], ["t"]),
        helper.make_node("Add", ["t", "one"], ["t1"]),
        helper.make_node("Mul", ["half", "t1"], ["t1h"]),
        helper.make_node("Mul", ["x", "t1h"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "toy",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["b", "s"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "s", HIDDEN])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def run(model: onnx.ModelProto, ids: np.ndarray) -> np.ndarray:
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return np.asarray(sess.run(["y"], {"ids": ids})[0])


def numpy_reference(table: np.ndarray, weight: np.ndarray, ids: np.ndarray) -> np.ndarray:
    emb = table[ids].astype(np.float64)
    x = emb / np.sqrt((emb**2).mean(-1, keepdims=True) + 1e-6) * weight
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def fused_with_wrong_constant(rng: np.random.Generator) -> dict:
    """A GELU-like chain with 0.05 for 0.044715 is not FastGelu: nothing may be fused, and the check refuses."""
    model = toy_model(rng, cube=0.05)
    try:
        onnx_rewrite.fuse_elementwise(model, norms=1, gelus=1)
        refused = ""
    except ValueError as exc:
        refused = str(exc)
    return {"gelus": onnx_rewrite.fuse_tanh_gelu(toy_model(rng, cube=0.05)), "refused": refused}


def main() -> None:
    rng = np.random.default_rng(0)
    model = toy_model(rng)
    table = numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == "embed.weight"))
    weight = numpy_helper.to_array(next(i for i in model.graph.initializer if i.name == "norm.weight"))
    ids = np.array([[1, 7, 49, 3], [0, 2, 2, 48]], dtype=np.int64)
    before = run(model, ids)

    fused_only = copy(model)
    fused = onnx_rewrite.fuse_elementwise(fused_only, norms=1, gelus=1)
    both = copy(model)
    tables = onnx_rewrite.quantize_embedding_rows(both)
    onnx_rewrite.fuse_elementwise(both, norms=1, gelus=1)
    q = numpy_helper.to_array(next(i for i in both.graph.initializer if i.name.endswith("_int8_rows")))
    scales = numpy_helper.to_array(next(i for i in both.graph.initializer if i.name.endswith("_row_scales")))
    dequantized = q.astype(np.float32) * scales
    row_error = np.abs(dequantized - table).max(axis=1)
    print(
        json.dumps(
            {
                "tables": tables,
                "fused": fused,
                "ops_fused": sorted({n.op_type for n in fused_only.graph.node}),
                "initializers_after": sorted(i.name for i in both.graph.initializer),
                "fused_max_diff_vs_original": float(np.abs(run(fused_only, ids) - before).max()),
                "original_max_diff_vs_numpy": float(np.abs(before - numpy_reference(table, weight, ids)).max()),
                "both_max_diff_vs_numpy_on_dequantized_table": float(
                    np.abs(run(both, ids) - numpy_reference(dequantized, weight, ids)).max()
                ),
                "rows_within_half_step": bool(np.all(row_error <= scales[:, 0] / 2 * (1 + 1e-5))),
                "zero_row": [float(scales[7, 0]), int(np.abs(q[7]).max())],
                "int8_range": [int(q.min()), int(q.max())],
                "fused_with_wrong_constant": fused_with_wrong_constant(rng),
            }
        )
    )


def copy(model: onnx.ModelProto) -> onnx.ModelProto:
    out = onnx.ModelProto()
    out.CopyFrom(model)
    return out


if __name__ == "__main__":
    main()
