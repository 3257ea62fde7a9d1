"""Graph rewrites of the exported EmbeddingGemma ONNX model (set-up time only; needs onnx and numpy).

Used by build/export_embeddinggemma.py, in the build-only virtual environment.

quantize_embedding_rows
    The 262,144 x 768 float32 embedding table is 805 MB, two thirds of the float model. It is quantized here,
    row by row, before onnxruntime's quantize_dynamic sees the model: the quantizer holds several copies of every
    initializer it is given, so handing it the table costs gigabytes of peak memory. Each row gets its own
    symmetric int8 scale, which is also finer than the quantizer's one uint8 scale for the whole table. At run
    time: Gather the int8 rows and their scales, Cast, Mul. Gather, Cast and one Mul are exact operations, so
    every CPU computes the same embeddings.

fuse_rms_norms
    Gemma's RMSNorm exports as Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, Mul. onnxruntime fuses the pattern
    with Div into one SimplifiedLayerNormalization kernel but not this one, so Reciprocal + Mul is rewritten as
    Div (the same quotient up to one float rounding). 145 norms, 7 nodes each, become 145 kernels.

fuse_tanh_gelu
    gelu_pytorch_tanh exports as eight element-wise nodes; onnxruntime's FastGelu (com.microsoft) computes the
    same formula, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in one pass.

Each function changes a ModelProto in place and returns how many places it rewrote; the caller checks the
counts against the architecture, so an exporter that changes its output shape is caught, not silently missed.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MS_DOMAIN = "com.microsoft"
_ROW_BLOCK = 16_384  # rows quantized at a time (48 MB of float32 temporaries)


def _consumers(nodes: list) -> dict[str, list]:
    out: dict[str, list] = defaultdict(list)
    for node in nodes:
        for name in node.input:
            out[name].append(node)
    return out


def _producers(nodes: list) -> dict[str, object]:
    return {o: node for node in nodes for o in node.output}


def _scalar(name: str, inits: dict, producers: dict) -> float | None:
    """The value of a one-element constant input (initializer or Constant node), else None."""
    if name in inits:
        arr = numpy_helper.to_array(inits[name])
    elif name in producers and producers[name].op_type == "Constant":
        attr = next((a for a in producers[name].attribute if a.name == "value"), None)
        if attr is None:
            return None
        arr = numpy_helper.to_array(attr.t)
    else:
        return None
    return float(arr.reshape(-1)[0]) if arr.size == 1 else None


def _replace_nodes(graph, nodes: list, new: dict[int, list]) -> None:
    """Rebuild ``graph.node`` from ``nodes`` (a list taken before the edits), node ``k`` replaced by ``new[k]``.

    Positions, not ``id()``: protobuf hands out a fresh Python wrapper each time a repeated field is read, so
    the id of a node read twice need not be the same, and a dead wrapper's id is reused.
    """
    rebuilt = []
    for k, node in enumerate(nodes):
        rebuilt.extend(new.get(k, [node]))
    del graph.node[:]
    graph.node.extend(rebuilt)


def _float_table(init) -> np.ndarray:
    """A float32 initializer as an array, without a copy when it holds raw bytes."""
    if init.raw_data:
        return np.frombuffer(init.raw_data, dtype="<f4").reshape(tuple(init.dims))
    return numpy_helper.to_array(init)


def quantize_embedding_rows(model, *, bits: int = 8) -> int:
    """Replace each Gather from a float32 2-D initializer by a per-row symmetric int8 Gather (see module doc)."""
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    qmax = 2 ** (bits - 1) - 1
    nodes = list(graph.node)
    new_nodes: dict[int, list] = {}
    done: set[str] = set()  # tables already quantized (a second Gather from one reuses it)
    for k, node in enumerate(nodes):
        if node.op_type != "Gather" or node.input[0] not in inits:
            continue
        if any(a.name == "axis" and a.i != 0 for a in node.attribute):
            continue  # rows only
        init = inits[node.input[0]]
        base, ids, out = init.name, node.input[1], node.output[0]
        if init.data_type != TensorProto.FLOAT or len(init.dims) != 2:
            continue
        if base not in done:
            _quantize_rows(graph, init, qmax)
            done.add(base)
        new_nodes[k] = [
            helper.make_node("Gather", [f"{base}_int8_rows", ids], [f"{out}_int8"], name=f"{node.name}_int8", axis=0),
            helper.make_node("Cast", [f"{out}_int8"], [f"{out}_int8_float"], name=f"{node.name}_cast", to=1),
            helper.make_node("Gather", [f"{base}_row_scales", ids], [f"{out}_scale"], name=f"{node.name}_scale"),
            helper.make_node("Mul", [f"{out}_int8_float", f"{out}_scale"], [out], name=f"{node.name}_dequant"),
        ]
    _replace_nodes(graph, nodes, new_nodes)
    return len(new_nodes)


def _quantize_rows(graph, init, qmax: int) -> None:
    """Replace the float initializer ``init`` by ``<name>_int8_rows`` and ``<name>_row_scales``, block by block."""
    table = _float_table(init)
    rows = table.shape[0]
    q = np.empty(table.shape, dtype=np.int8)
    scales = np.empty((rows, 1), dtype=np.float32)
    for start in range(0, rows, _ROW_BLOCK):
        block = table[start : start + _ROW_BLOCK].astype(np.float32)
        peak = np.abs(block).max(axis=1, keepdims=True)
        scale = np.where(peak > 0, peak / qmax, 1.0).astype(np.float32)
        q[start : start + _ROW_BLOCK] = np.clip(np.rint(block / scale), -qmax, qmax).astype(np.int8)
        scales[start : start + _ROW_BLOCK] = scale
    del table
    base = init.name
    graph.initializer.remove(init)
    graph.initializer.append(numpy_helper.from_array(q, f"{base}_int8_rows"))
    graph.initializer.append(numpy_helper.from_array(scales, f"{base}_row_scales"))


def fuse_rms_norms(model) -> int:
    """Rewrite Sqrt -> Reciprocal -> Mul(x, r) as Div(x, sqrt) so onnxruntime fuses the RMSNorm (module doc)."""
    graph = model.graph
    nodes = list(graph.node)
    producers, consumers = _producers(nodes), _consumers(nodes)
    dead: dict[int, list] = {}
    for k, node in enumerate(nodes):
        if node.op_type != "Reciprocal":
            continue
        src = producers.get(node.input[0])
        users = consumers.get(node.output[0], [])
        if src is None or src.op_type != "Sqrt" or not users or any(u.op_type != "Mul" for u in users):
            continue
        if any(o.name == node.output[0] for o in graph.output):
            continue
        for user in users:
            x = user.input[0] if user.input[1] == node.output[0] else user.input[1]
            user.op_type = "Div"
            del user.input[:]
            user.input.extend([x, node.input[0]])
        dead[k] = []
    _replace_nodes(graph, nodes, dead)
    return len(dead)


def _other(node, name: str) -> str | None:
    """The input of a two-input node that is not ``name`` (None when both or neither are)."""
    a, b = node.input[0], node.input[1]
    if (a == name) == (b == name):
        return None
    return b if a == name else a


def fuse_tanh_gelu(model) -> int:
    """Replace 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))) by com.microsoft FastGelu(x)."""
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    nodes = list(graph.node)
    position = {id(n): k for k, n in enumerate(nodes)}  # ids are stable while ``nodes`` holds the wrappers
    producers, consumers = _producers(nodes), _consumers(nodes)

    def const(name: str | None) -> float | None:
        return None if name is None else _scalar(name, inits, producers)

    def only_user(node, op: str):
        users = consumers.get(node.output[0], [])
        return users[0] if len(users) == 1 and users[0].op_type == op else None

    def near(value: float | None, want: float) -> bool:
        return value is not None and abs(value - want) <= 1e-6 * max(1.0, abs(want))

    new: dict[int, list] = {}
    for tanh in nodes:
        if tanh.op_type != "Tanh":
            continue
        # backwards: Tanh <- Mul(c, inner) <- Add(x, cube) <- Mul(0.044715, Pow(x, 3))
        scale = producers.get(tanh.input[0])
        if scale is None or scale.op_type != "Mul":
            continue
        inner_name = next((i for i in scale.input if const(i) is None), None)
        if inner_name is None or not near(const(_other(scale, inner_name)), math.sqrt(2 / math.pi)):
            continue
        inner = producers.get(inner_name)
        if inner is None or inner.op_type != "Add":
            continue
        candidates = [(x, producers.get(_other(inner, x) or "")) for x in inner.input]
        match = None
        for x, cube in candidates:
            if cube is None or cube.op_type != "Mul":
                continue
            pow_name = next((i for i in cube.input if const(i) is None), None)
            pow_node = producers.get(pow_name or "")
            if (
                pow_node is not None
                and pow_node.op_type == "Pow"
                and pow_node.input[0] == x
                and near(const(pow_node.input[1]), 3.0)
                and near(const(_other(cube, pow_name or "")), 0.044715)
            ):
                match = (x, cube, pow_node)
                break
        if match is None:
            continue
        x, cube, pow_node = match
        # forwards: Tanh -> Add(1) -> Mul(0.5) -> Mul(x)
        one = only_user(tanh, "Add")
        half = only_user(one, "Mul") if one is not None else None
        last = only_user(half, "Mul") if half is not None else None
        if one is None or half is None or last is None:
            continue
        if not near(const(_other(one, tanh.output[0])), 1.0) or not near(const(_other(half, one.output[0])), 0.5):
            continue
        if _other(last, half.output[0]) != x:
            continue
        chain = (pow_node, cube, inner, scale, tanh, one, half)
        outputs = {o.name for o in graph.output}
        if any(len(consumers.get(n.output[0], [])) != 1 or n.output[0] in outputs for n in chain):
            continue
        new.update({position[id(n)]: [] for n in chain})
        new[position[id(last)]] = [
            helper.make_node("FastGelu", [x], [last.output[0]], name=f"{last.name}_fastgelu", domain=MS_DOMAIN)
        ]
    if not new:
        return 0
    _replace_nodes(graph, nodes, new)
    if not any(o.domain == MS_DOMAIN for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid(MS_DOMAIN, 1))
    return sum(1 for v in new.values() if v)


def fuse_elementwise(model, *, norms: int, gelus: int) -> dict[str, int]:
    """Both fusions; refuses (ValueError) unless exactly ``norms`` RMSNorms and ``gelus`` GELUs were rewritten."""
    counts = {"rms_norms": fuse_rms_norms(model), "tanh_gelus": fuse_tanh_gelu(model)}
    if counts != {"rms_norms": norms, "tanh_gelus": gelus}:
        raise ValueError(f"expected {norms} RMSNorms and {gelus} GELUs to fuse, found {counts}")
    used = {name for node in model.graph.node for name in node.input}
    unused = [i for i in model.graph.initializer if i.name not in used]  # the GELUs' constants
    for init in unused:
        model.graph.initializer.remove(init)
    onnx.checker.check_model(model)
    return counts
