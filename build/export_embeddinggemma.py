#!/usr/bin/env python3
"""Export the EmbeddingGemma-300M sentence encoder to a quantized ONNX model (set-up time only).

Runs in the build-only virtual environment (build/requirements-export.txt: torch CPU, transformers, onnx,
onnxscript, onnxruntime, safetensors, tokenizers, numpy). torch is never a runtime dependency of pikelocal.

    build/.venv-export/bin/python build/export_embeddinggemma.py --src SRC --out models/embeddinggemma-300m
    build/.venv-export/bin/python build/export_embeddinggemma.py --out models/embeddinggemma-300m --check

SRC is the extracted sentence-transformers folder (config.json, model.safetensors, tokenizer.json, 1_Pooling/,
2_Dense/, 3_Dense/).

The build runs in stages, each in its own process so that peak memory is one stage's, not their sum:
    fp32       load the PyTorch model, export float32 ONNX, and save PyTorch's token states for the verification
               inputs (reference.npz): the later stages never load torch
    quantize   one quantization option (below) of the float32 ONNX
    verify     that option against PyTorch (quality) and against a saturation-free computation of the same file
               (portability: does this CPU compute the integers the file means?)
Options are tried in order; the first that passes both checks is installed, and encoder.json and
export_report.json record which one and why (the failures of the ones before it).

Why the numbers of an int8 file can depend on the CPU. onnxruntime runs a dynamically quantized MatMul as
DynamicQuantizeLinear (activations to uint8, full range 0..255) and an integer GEMM with int8 weights (U8S8).
Its MLAS kernels for U8S8 on x86-64 without VNNI (AVX2, and AVX-512 "core") multiply with VPMADDUBSW, which adds
each pair of u8*s8 products into a *saturating* int16 (QgemmU8X8KernelAvx2.asm, MultiplyAccumulateRowU8S8Avx2:
vpmaddubsw + vpmaddwd); with VNNI the kernels use VPDPBUSD(S), which accumulates in int32 and does not saturate
(MultiplyAccumulateRowAvxVnni). A pair can reach 255*127*2 = 64,770 > 32,767, so with 8-bit weights the same
file gives other sums on an AVX2 CPU than on a VNNI CPU. onnxruntime's quantization guide says so and
recommends 7-bit weights (reduce_range) or U8U8 for non-VNNI x86 ("When to use reduce_range and per-channel
quantization", https://onnxruntime.ai/docs/performance/model-optimizations/quantization.html). With weights in
[-64, 64] a pair is at most 255*64*2 = 32,640 < 32,767: no kernel saturates, every CPU computes the exact
integer sums, and only float rounding (~1e-7) differs between machines. The U8U8 kernels widen both operands to
16 bits and use VPMADDWD (MultiplyAccumulateRowU8U8Avx2), exact as well. The verify stage checks the property
itself on the machine at hand: it rewrites every MatMulInteger of the file into float arithmetic on the same
integers (exact up to float32 rounding, no integer kernel involved) and requires the CPU's int8 run to match it.

Options, in the order tried:
    int8-w7       dynamic int8, 7-bit symmetric per-channel weights (reduce_range) for the MatMuls
    int8-u8u8     dynamic int8, unsigned 8-bit per-channel weights (U8U8 kernels) for the MatMuls
    float-matmul  float32 MatMuls (no integer GEMM at all; slower, larger)
and, measured by build/bench/bench_quantization.py but never installed:
    int8-w8       the first export, unchanged: 8-bit weights (saturates on CPUs without VNNI), the
                  embedding table quantized by quantize_dynamic, no fused norms or GELUs
Every integer option keeps each layer's mlp.down_proj and the last layer's linears in float32
(kept_float_nodes: activation outliers; quality, not portability). Every installable option gets the embedding
table as per-row int8, quantized before quantize_dynamic runs (it would hold several copies of the 805 MB table),
and fused RMSNorms and GELUs (onnx_rewrite.py: 3-9 % faster on 2 AVX2 cores, same quality against PyTorch).

Output folder (written into a hidden temporary folder next to OUT, then renamed into place):
    model.onnx           inputs input_ids, attention_mask (int64, [batch, seq]); output last_hidden_state
                         (float32, [batch, seq, 768]). Pad on the right with id 0 and attention_mask 0.
    dense.npy            float32 768x768 M: sentence_vec = normalize(mean_pool(last_hidden_state) @ M)
    tokenizer.json       verbatim copy (adds <bos> ... <eos>)
    encoder.json         runtime description, with "quantization": the option installed and why
    export_report.json   every option tried with its figures, stage timings and peak RSS, versions, sha256 of
                         every other output file

The fp32 stage runs with PYTHONHASHSEED=0 so that two builds with the same pinned packages give byte-identical
files. --check verifies an existing output folder (files against export_report.json; standard library only).

Exit status: 0 on success, 1 when no option passes or an input is refused, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import ast
import gc
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENCODER_JSON = {
    "id": "embeddinggemma-300m-int8",
    "dim": 768,
    "max_tokens": 2048,
    "onnx": "model.onnx",
    "tokenizer": "tokenizer.json",
    "query_prompt": "task: search result | query: ",
    "passage_prompt": "title: none | text: ",
    "projection": "dense.npy",
    "output": "last_hidden_state",
}
MODEL_FILE = ENCODER_JSON["onnx"]
OUTPUT_FILES = (MODEL_FILE, "dense.npy", "tokenizer.json", "encoder.json")
REPORT = "export_report.json"
IDENTITY = "torch.nn.modules.linear.Identity"
PAD_ID = 0
OPSET = 18

# Tolerances (an option fails outside them).
MIN_INT8_COSINE = 0.98  # quantized ONNX sentence vectors vs PyTorch fp32, per sentence
MIN_INT8_SPAN_COSINE = 0.95  # quantized vs fp32, mean-pooled 64-token spans of the long input (late chunking)
MIN_EXACT_COSINE = 0.9999  # this CPU's integer run vs the saturation-free computation of the same file
SPAN_TOKENS = 64
MAX_FP32_ABS_DIFF = 1e-2  # fp32 ONNX vs PyTorch token states (real tokens only)
MIN_FP32_COSINE = 0.9999  # fp32 ONNX sentence vectors vs PyTorch fp32
MAX_PROJECTION_DIFF = 1e-4  # folded 768x768 M vs the two Dense layers applied one after the other
MAX_PADDING_DIFF = 1e-3  # fp32 ONNX: a sequence alone vs the same sequence right-padded in a batch
LONG_TOKENS = 1000


@dataclass(frozen=True)
class QuantOption:
    name: str
    summary: str
    why: str  # why its numbers do not depend on the CPU (or why it is never installed)
    op_types: tuple[str, ...]
    weight_type: str  # "QInt8" or "QUInt8"
    reduce_range: bool
    integer_gemm: bool  # False: no MatMulInteger in the file
    installable: bool = True
    # False only for the measured-only baseline: quantize_dynamic quantizes the embedding table (op_types has
    # "Gather") and no norm or GELU is fused, as in the first export
    rewrites: bool = True


OPTIONS = (
    QuantOption(
        "int8-w7",
        "dynamic int8 (U8S8), 7-bit symmetric per-channel weights",
        "weights in [-64, 64]: a VPMADDUBSW pair is at most 255*64*2 = 32,640 < 32,767, so AVX2, AVX-512 and VNNI "
        "kernels all compute the exact integer sums",
        ("MatMul",),
        "QInt8",
        True,
        True,
    ),
    QuantOption(
        "int8-u8u8",
        "dynamic int8 (U8U8), unsigned 8-bit per-channel weights",
        "U8U8 kernels widen both operands to 16 bits (VPMADDWD): no saturating step on any x86 CPU",
        ("MatMul",),
        "QUInt8",
        False,
        True,
    ),
    QuantOption(
        "float-matmul",
        "float32 MatMuls, int8 embedding table",
        "no integer GEMM: only float rounding differs between CPUs",
        (),
        "QInt8",
        False,
        False,
    ),
)
MEASURED_ONLY = (
    QuantOption(
        "int8-w8",
        "dynamic int8 (U8S8), 8-bit symmetric per-channel weights (the first export)",
        "never installed: VPMADDUBSW saturates on CPUs without VNNI, so results depend on the CPU",
        ("MatMul", "Gather"),
        "QInt8",
        False,
        True,
        installable=False,
        rewrites=False,
    ),
)
ALL_OPTIONS = {o.name: o for o in (*OPTIONS, *MEASURED_ONLY)}

QUERIES = [
    "What is the capital of France?",
    "How do I reset my password?",
    "合同金额是多少？",
    "投标人需要提交哪些资格文件？",
]
PASSAGES = [
    "Paris is the capital and largest city of France, on the river Seine.",
    "To reset your password, open Settings, choose Account and click 'Forgot password'.",
    "本合同总金额为人民币伍拾万元整（¥500,000），分三期支付。",
    "投标人应提交营业执照、资质证书和近三年的财务审计报告作为资格证明文件。",
]
DISTRACTOR = "The weather in the mountains was cold and windy all week."
LONG_TEXT = (
    "The tender documents describe the scope of work, the evaluation criteria and the payment schedule. "
    "招标文件说明了工作范围、评标标准和付款计划。投标人应在截止日期前提交全部文件。 "
    "Late submissions will not be accepted, and every bidder must sign the declaration of conformity. "
)


def log(msg: str) -> None:
    print(f"[export_embeddinggemma] {msg}", flush=True)


class Refused(Exception):
    """An input or a result that must stop the build (exit 1)."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def read_json(path: Path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path: Path, obj) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2)
        f.write("\n")


# --------------------------------------------------------------------------------------------------------------
# Source checks


def check_source(src: Path) -> dict:
    """Refuse a folder that is not the EmbeddingGemma sentence-transformers layout this script understands."""
    for rel in (
        "config.json",
        "model.safetensors",
        "tokenizer.json",
        "config_sentence_transformers.json",
        "1_Pooling/config.json",
        "2_Dense/config.json",
        "2_Dense/model.safetensors",
        "3_Dense/config.json",
        "3_Dense/model.safetensors",
    ):
        if not (src / rel).is_file():
            raise Refused(f"{src}: missing {rel} (is --src the extracted sentence-transformers folder?)")
    cfg = read_json(src / "config.json")
    if cfg.get("model_type") != "gemma3_text":
        raise Refused(f"config.json model_type is {cfg.get('model_type')!r}, expected 'gemma3_text'")
    if cfg.get("hidden_size") != ENCODER_JSON["dim"]:
        raise Refused(f"config.json hidden_size is {cfg.get('hidden_size')}, expected {ENCODER_JSON['dim']}")
    if cfg.get("max_position_embeddings") != ENCODER_JSON["max_tokens"]:
        raise Refused(
            f"config.json max_position_embeddings is {cfg.get('max_position_embeddings')}, "
            f"expected {ENCODER_JSON['max_tokens']}"
        )
    if cfg.get("pad_token_id") != PAD_ID:
        raise Refused(f"config.json pad_token_id is {cfg.get('pad_token_id')}, expected {PAD_ID}")
    prompts = read_json(src / "config_sentence_transformers.json").get("prompts", {})
    for key, name in (("query", "query_prompt"), ("document", "passage_prompt")):
        if prompts.get(key) != ENCODER_JSON[name]:
            raise Refused(
                f"config_sentence_transformers.json prompt {key!r} is {prompts.get(key)!r}, "
                f"expected {ENCODER_JSON[name]!r}"
            )
    pool = read_json(src / "1_Pooling/config.json")
    modes = {k: v for k, v in pool.items() if k.startswith("pooling_mode_")}
    if [k for k, v in modes.items() if v] != ["pooling_mode_mean_tokens"] or pool.get("include_prompt") is False:
        raise Refused(f"1_Pooling/config.json is not plain mean pooling over all tokens: {pool}")
    if (src / "modules.json").is_file():
        types = [m.get("type", "").rsplit(".", 1)[-1] for m in read_json(src / "modules.json")]
        if types != ["Transformer", "Pooling", "Dense", "Dense", "Normalize"]:
            raise Refused(f"modules.json pipeline is {types}, expected Transformer, Pooling, Dense, Dense, Normalize")
    for folder, shape in (("2_Dense", (768, 3072)), ("3_Dense", (3072, 768))):
        dcfg = read_json(src / folder / "config.json")
        want = {"in_features": shape[0], "out_features": shape[1], "bias": False, "activation_function": IDENTITY}
        got = {k: dcfg.get(k) for k in want}
        if got != want:
            raise Refused(f"{folder}/config.json is {got}, expected {want} (no bias, identity activation)")
    return cfg


def projection_matrix(src: Path):
    """M (768x768, float32) with mean_pool(h) @ M == Dense3(Dense2(mean_pool(h))) for bias-free identity Dense."""
    import numpy as np
    from safetensors.numpy import load_file

    weights = []
    for folder, shape in (("2_Dense", (3072, 768)), ("3_Dense", (768, 3072))):
        tensors = load_file(str(src / folder / "model.safetensors"))
        if set(tensors) != {"linear.weight"}:
            raise Refused(f"{folder}/model.safetensors holds {sorted(tensors)}, expected only linear.weight")
        w = tensors["linear.weight"]
        if w.shape != shape:
            raise Refused(f"{folder} linear.weight has shape {w.shape}, expected {shape}")
        weights.append(w.astype(np.float64))
    w2, w3 = weights  # torch Linear: y = x @ W.T
    return np.ascontiguousarray((w2.T @ w3.T).astype(np.float32)), weights


# --------------------------------------------------------------------------------------------------------------
# Tokenisation and the two pipelines (same maths on both sides)


def load_tokenizer(path: Path):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    tok.no_truncation()
    return tok


def batch_ids(tok, texts: list[str]):
    """Right-padded int64 input_ids / attention_mask, as the runtime must build them."""
    encs = [tok.encode(t).ids for t in texts]
    return pad_ids(encs)


def pad_ids(seqs: list[list[int]]):
    import numpy as np

    n = max(len(s) for s in seqs)
    ids = np.full((len(seqs), n), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(seqs), n), dtype=np.int64)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = s
        mask[i, : len(s)] = 1
    return ids, mask


def sentence_vectors(hidden, mask, m):
    import numpy as np

    h = hidden.astype(np.float64)
    w = mask.astype(np.float64)[:, :, None]
    pooled = (h * w).sum(axis=1) / np.maximum(w.sum(axis=1), 1.0)
    v = pooled @ m.astype(np.float64)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def torch_states(model, ids, mask):
    import torch

    with torch.inference_mode():
        out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), use_cache=False)
    return out.last_hidden_state.float().numpy()


def torch_sentence_vectors_st(model, ids, mask, dense_weights):
    """Reference: PyTorch fp32, the sentence-transformers order (mean pool -> Dense -> Dense -> normalise)."""
    import torch

    h = torch.from_numpy(torch_states(model, ids, mask))
    w = torch.from_numpy(mask).float().unsqueeze(-1)
    pooled = (h * w).sum(1) / w.sum(1).clamp(min=1.0)
    w2, w3 = (torch.from_numpy(x.astype("float32")) for x in dense_weights)
    v = torch.nn.functional.linear(torch.nn.functional.linear(pooled, w2), w3)
    return torch.nn.functional.normalize(v, dim=-1).numpy()


def ort_states(sess, ids, mask):
    return sess.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0]


def masked_max_abs(a, b, mask) -> float:
    import numpy as np

    sel = mask.astype(bool)
    return float(np.abs(a[sel].astype(np.float64) - b[sel].astype(np.float64)).max())


def rowwise_cos(a, b):
    import numpy as np

    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return (a * b).sum(axis=1)


# --------------------------------------------------------------------------------------------------------------
# Export helpers


def load_model(src: Path):
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(src), attn_implementation="eager", dtype=torch.float32, local_files_only=True)
    if type(model).__name__ != "Gemma3TextModel":
        raise Refused(f"AutoModel loaded {type(model).__name__}, expected Gemma3TextModel")
    model.eval()
    return model


def export_fp32(model, path: Path) -> None:
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state

    batch = torch.export.Dim("batch", min=1, max=1024)
    seq = torch.export.Dim("seq", min=1, max=ENCODER_JSON["max_tokens"])
    ids = torch.tensor(
        [
            [2, 3250, 236787, 7293, 1109, 1816, 236787, 43758, 237389, 236900, 12811, 1],
            [2, 1816, 236787, 12811, 1, 0, 0, 0, 0, 0, 0, 0],
        ],
        dtype=torch.int64,
    )
    mask = (ids != PAD_ID).to(torch.int64)
    with torch.inference_mode(False), torch.no_grad():
        torch.onnx.export(
            LastHiddenState(model).eval(),
            (ids, mask),
            str(path),
            dynamo=True,
            opset_version=OPSET,
            input_names=["input_ids", "attention_mask"],
            output_names=["last_hidden_state"],
            dynamic_shapes={"input_ids": {0: batch, 1: seq}, "attention_mask": {0: batch, 1: seq}},
            external_data=True,
        )


def kept_float_nodes(model, num_layers: int) -> list[str]:
    """Names of the MatMul nodes left in float32: every layer's mlp.down_proj and all linears of the last layer.

    Dynamic quantisation quantises a MatMul's activation input per tensor (one uint8 scale for the whole batch).
    The down_proj inputs (gelu(gate) * up) have strong outliers, and the last layer's inputs grow with the length,
    so quantising them costs a lot at long inputs (1,000 tokens: sentence cosine 0.91, 64-token spans 0.81 with
    everything quantised; 0.998 and 0.97 with these 30 MatMuls kept in float32, +74 MB).
    Found from the exporter's name scopes; refuses if the graph does not have exactly the expected ones.
    """
    last = num_layers - 1
    down = re.compile(r"^inner\.layers\.(\d+)\.mlp\.down_proj$")
    last_linear = re.compile(rf"^inner\.layers\.{last}\.(self_attn\.[qkvo]_proj|mlp\.(gate|up)_proj)$")
    keep, seen_down, seen_last = [], set(), set()
    for node in model.graph.node:
        if node.op_type != "MatMul":
            continue
        scopes = next(
            (ast.literal_eval(p.value) for p in node.metadata_props if p.key == "pkg.torch.onnx.name_scopes"), []
        )
        for scope in scopes:
            if mt := down.match(scope):
                seen_down.add(int(mt.group(1)))
            elif last_linear.match(scope):
                seen_last.add(scope)
            else:
                continue
            keep.append(node.name)
            break
    if seen_down != set(range(num_layers)) or len(seen_last) != 6 or len(keep) != num_layers + 6:
        raise Refused(
            f"could not find the MatMuls to keep in float32 (down_proj layers {sorted(seen_down)}, "
            f"last-layer linears {sorted(seen_last)}, nodes {len(keep)}): has the exporter changed?"
        )
    return keep


def ort_session(path: Path, *, optimize: bool = True, threads: int = 0):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    if threads:
        opts.intra_op_num_threads = threads
    if not optimize:
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def strip_metadata(model) -> None:
    """Drop the exporter's stack traces (absolute paths) so the output does not depend on where the build ran."""
    for graph_node in model.graph.node:
        del graph_node.metadata_props[:]
        graph_node.doc_string = ""
    for value in (*model.graph.value_info, *model.graph.input, *model.graph.output, *model.graph.initializer):
        del value.metadata_props[:]
    del model.graph.metadata_props[:]


def quantize(fp32: Path, out: Path, num_layers: int, option: QuantOption) -> dict:
    import onnx
    import onnx_rewrite  # build/onnx_rewrite.py, beside this script (its folder is sys.path[0])
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(fp32))  # with its external data (about 1.2 GB in memory)
    keep = kept_float_nodes(model, num_layers) if "MatMul" in option.op_types else []
    strip_metadata(model)
    facts: dict = {"kept_float32_nodes": len(keep)}
    if option.rewrites:
        # the 805 MB table leaves the model as 201 MB of int8 before quantize_dynamic copies what it is given
        tables = onnx_rewrite.quantize_embedding_rows(model)
        if tables != 1:
            raise Refused(f"expected one embedding table to quantize, found {tables}")
        facts["embedding_table"] = "int8, one symmetric scale per row"
    if option.op_types:
        # Hand quantize_dynamic a file, not the ModelProto: given a proto it deep-copies it, saves the copy and
        # loads it again (three copies at once); given a path it loads one.
        stripped = out.with_name("stripped.onnx")
        onnx.save_model(model, str(stripped), save_as_external_data=True, location="stripped.onnx.data")
        del model
        gc.collect()
        quantize_dynamic(
            stripped,
            out,
            op_types_to_quantize=list(option.op_types),
            per_channel=True,
            reduce_range=option.reduce_range,
            weight_type=QuantType.QInt8 if option.weight_type == "QInt8" else QuantType.QUInt8,
            nodes_to_exclude=keep,
            use_external_data_format=False,
        )
        for leftover in (stripped, stripped.with_name("stripped.onnx.data")):
            leftover.unlink(missing_ok=True)
    else:
        onnx.save_model(model, str(out))
        del model
        gc.collect()
    if not out.is_file() or any(p != out for p in out.parent.iterdir() if p.name.startswith(out.name)):
        raise Refused(f"quantization did not produce a single file {out.name}")
    if option.rewrites:
        model = onnx.load(str(out))  # the quantized file: about 400 MB
        try:
            facts["fused"] = onnx_rewrite.fuse_elementwise(model, norms=6 * num_layers + 1, gelus=num_layers)
        except ValueError as exc:
            raise Refused(f"{exc}: has the exporter changed?") from exc
        onnx.save_model(model, str(out))
    return facts


def saturation_free(path: Path, out: Path) -> int:
    """Write ``out``: the model at ``path`` with every MatMulInteger computed in float32 on the same integers.

    MatMulInteger(a, b, a_zp, b_zp) = (a - a_zp) @ (b - b_zp) on integers; here both sides are cast to float32
    and multiplied by an ordinary float MatMul. Products are below 2^16 and sums below 2^26, so the result equals
    the exact integer sum up to float32 rounding, whatever the CPU: this is what a non-saturating (VNNI) kernel
    computes. The Cast to float that follows each MatMulInteger then takes a float input, which ONNX allows.
    Returns the number of MatMulInteger nodes rewritten.
    """
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    inits = {i.name: i for i in model.graph.initializer}
    nodes, rewritten, replaced_outputs = [], 0, set()
    for node in model.graph.node:
        if node.op_type != "MatMulInteger":
            nodes.append(node)
            continue
        a, b, a_zp, b_zp = (list(node.input) + ["", "", ""])[:4]
        if b not in inits:
            raise Refused(f"MatMulInteger {node.name}: weight {b} is not an initializer")
        w = numpy_helper.to_array(inits[b]).astype(np.float32)
        if b_zp:
            w = w - numpy_helper.to_array(inits[b_zp]).astype(np.float32)
        wname = f"{b}__float"
        model.graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(w), wname))
        af = f"{node.name}__a_float"
        nodes.append(helper.make_node("Cast", [a], [af], to=onnx.TensorProto.FLOAT, name=f"{node.name}__cast_a"))
        if a_zp:
            zf = f"{node.name}__a_zp_float"
            nodes.append(
                helper.make_node("Cast", [a_zp], [zf], to=onnx.TensorProto.FLOAT, name=f"{node.name}__cast_azp")
            )
            centred = f"{node.name}__a_centred"
            nodes.append(helper.make_node("Sub", [af, zf], [centred], name=f"{node.name}__sub_azp"))
            af = centred
        nodes.append(helper.make_node("MatMul", [af, wname], [node.output[0]], name=f"{node.name}__float"))
        replaced_outputs.add(node.output[0])
        rewritten += 1
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    kept_info = [v for v in model.graph.value_info if v.name not in replaced_outputs]
    del model.graph.value_info[:]
    model.graph.value_info.extend(kept_info)
    used = {i for n in model.graph.node for i in n.input}
    kept_inits = [i for i in model.graph.initializer if i.name in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept_inits)
    onnx.save(model, str(out))
    return rewritten


def verification_inputs(tok):
    q = [ENCODER_JSON["query_prompt"] + t for t in QUERIES]
    p = [ENCODER_JSON["passage_prompt"] + t for t in PASSAGES + [DISTRACTOR]]
    ids = tok.encode(LONG_TEXT * 40).ids
    if len(ids) < LONG_TOKENS:
        raise Refused("long verification text is too short")
    long_ids = ids[: LONG_TOKENS - 1] + [ids[-1]]  # keep the closing <eos>
    return q, p, long_ids


# --------------------------------------------------------------------------------------------------------------
# Stage 1: PyTorch → float32 ONNX, and PyTorch's answers for the verification inputs


def stage_fp32(src: Path, work: Path) -> None:
    import numpy as np

    cfg = check_source(src)
    t = time.monotonic()
    model = load_model(src)
    tok = load_tokenizer(src / "tokenizer.json")
    m, dense_weights = projection_matrix(src)
    log(f"loaded the PyTorch model in {time.monotonic() - t:.1f} s")

    q, p, long_ids = verification_inputs(tok)
    texts = q + p
    ids, mask = batch_ids(tok, texts)
    if not all(r[0] == 2 for r in ids) or not all(ids[i, mask[i].sum() - 1] == 1 for i in range(len(ids))):
        raise Refused("tokenizer.json does not add <bos> (2) ... <eos> (1)")
    long_ids_np, long_mask = pad_ids([long_ids])
    singles = [tok.encode(x).ids for x in texts]
    t_ref = torch_states(model, ids, mask)
    t_long = torch_states(model, long_ids_np, long_mask)
    st = torch_sentence_vectors_st(model, ids, mask, dense_weights)
    projection_diff = float(np.abs(st - sentence_vectors(t_ref, mask, m)).max())
    if projection_diff > MAX_PROJECTION_DIFF:
        raise Refused(f"folded projection differs from the Dense layers by {projection_diff:.3g}")
    np.savez(
        work / "reference.npz",
        ids=ids,
        mask=mask,
        t_ref=t_ref,
        long_ids=long_ids_np,
        long_mask=long_mask,
        t_long=t_long,
        m=m,
        singles=np.array([json.dumps(s) for s in singles]),
        texts=np.array(texts),
    )
    np.save(work / "dense.npy", m)
    shutil.copyfile(src / "tokenizer.json", work / "tokenizer.json")

    t = time.monotonic()
    (work / "fp32").mkdir(exist_ok=True)
    log("exporting… (torch.onnx.export dynamo=True, opset 18, fp32)")
    export_fp32(model, work / "fp32" / "model.onnx")
    log(f"exported in {time.monotonic() - t:.1f} s")
    write_json(
        work / "source.json",
        {
            "model_type": cfg["model_type"],
            "num_hidden_layers": cfg["num_hidden_layers"],
            "sliding_window": cfg.get("sliding_window"),
            "max_position_embeddings": cfg["max_position_embeddings"],
            "sha256": {
                "model.safetensors": sha256_file(src / "model.safetensors"),
                "tokenizer.json": sha256_file(src / "tokenizer.json"),
            },
            "projection_max_abs_diff_vs_dense_layers": projection_diff,
            "versions": versions(),
        },
    )


# --------------------------------------------------------------------------------------------------------------
# Stage 2: one quantization option


def stage_quantize(work: Path, option: QuantOption) -> None:
    layers = read_json(work / "source.json")["num_hidden_layers"]
    folder = work / option.name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    t = time.monotonic()
    log(f"quantizing… ({option.name}: {option.summary})")
    facts = quantize(work / "fp32" / "model.onnx", folder / MODEL_FILE, layers, option)
    write_json(folder / "quantize.json", facts)
    log(f"quantized in {time.monotonic() - t:.1f} s: {(folder / MODEL_FILE).stat().st_size / 1e6:.1f} MB")


# --------------------------------------------------------------------------------------------------------------
# Stage 3: verification (no torch: PyTorch's answers come from reference.npz)


def span_cosines(a_states, b_states, mask, m, n_tokens: int) -> list[float]:
    """Cosines of mean-pooled SPAN_TOKENS spans of one long input (late chunking), a against b."""
    out = []
    for a in range(1, n_tokens - 1, SPAN_TOKENS):
        b = min(a + SPAN_TOKENS, n_tokens - 1)
        va = sentence_vectors(a_states[:, a:b], mask[:, a:b], m)
        vb = sentence_vectors(b_states[:, a:b], mask[:, a:b], m)
        out.append(float(rowwise_cos(va, vb)[0]))
    return out


def run_all(sess, ref) -> dict:
    """Token states of the verification inputs: batched, long, and each sentence alone."""
    import numpy as np

    ids, mask = ref["ids"], ref["mask"]
    singles = []
    for s in ref["singles"]:
        one_ids, one_mask = pad_ids([json.loads(str(s))])
        singles.append(sentence_vectors(ort_states(sess, one_ids, one_mask), one_mask, ref["m"]))
    return {
        "batch": ort_states(sess, ids, mask),
        "long": ort_states(sess, ref["long_ids"], ref["long_mask"]),
        "single_vectors": np.concatenate(singles),
    }


def stage_verify(work: Path, name: str) -> dict:
    """Figures and failures of one option (or of 'fp32', the unquantized export) on this CPU."""
    import numpy as np

    ref = dict(np.load(work / "reference.npz"))
    m, mask, long_mask = ref["m"], ref["mask"], ref["long_mask"]
    texts = [str(t) for t in ref["texts"]]
    n_long = int(long_mask.sum())
    ref_vec = sentence_vectors(ref["t_ref"], mask, m)
    ref_long = sentence_vectors(ref["t_long"], long_mask, m)
    path = work / "fp32" / "model.onnx" if name == "fp32" else work / name / MODEL_FILE
    figs: dict = {"option": name, "bytes": path.stat().st_size}
    failures: list[str] = []
    t = time.monotonic()
    sess = ort_session(path)
    got = run_all(sess, ref)
    del sess
    if name == "fp32":
        one = pad_ids([json.loads(str(ref["singles"][0]))])
        n0 = int(mask[0].sum())
        single_states = ort_states(ort_session(path), *one)
        fp32 = {
            "max_abs_diff_short": masked_max_abs(got["batch"], ref["t_ref"], mask),
            "max_abs_diff_long": masked_max_abs(got["long"], ref["t_long"], long_mask),
            "min_sentence_cosine": float(
                min(
                    rowwise_cos(sentence_vectors(got["batch"], mask, m), ref_vec).min(),
                    rowwise_cos(sentence_vectors(got["long"], long_mask, m), ref_long).min(),
                )
            ),
            "padding_max_abs_diff": float(np.abs(single_states[0, :n0] - got["batch"][0, :n0]).max()),
        }
        figs["vs_torch"] = fp32
        if not (fp32["max_abs_diff_short"] < MAX_FP32_ABS_DIFF and fp32["max_abs_diff_long"] < MAX_FP32_ABS_DIFF):
            failures.append(
                f"fp32 ONNX token states differ from PyTorch: short {fp32['max_abs_diff_short']:.3g}, "
                f"long {fp32['max_abs_diff_long']:.3g} (limit {MAX_FP32_ABS_DIFF})"
            )
        if not fp32["min_sentence_cosine"] >= MIN_FP32_COSINE:
            failures.append(f"fp32 ONNX sentence cosine {fp32['min_sentence_cosine']:.6f} < {MIN_FP32_COSINE}")
        if not fp32["padding_max_abs_diff"] < MAX_PADDING_DIFF:
            failures.append(f"fp32 ONNX right padding changes token states by {fp32['padding_max_abs_diff']:.3g}")
        figs["failures"] = failures
        figs["verify_s"] = round(time.monotonic() - t, 1)
        return figs

    v = sentence_vectors(got["batch"], mask, m)
    v_long = sentence_vectors(got["long"], long_mask, m)
    cos = rowwise_cos(v, ref_vec)
    cos_single = rowwise_cos(got["single_vectors"], ref_vec)
    cos_long = float(rowwise_cos(v_long, ref_long)[0])
    spans = span_cosines(got["long"], ref["t_long"], long_mask, m, n_long)
    q = figs["vs_torch"] = {
        "sentence_cosine": {t_: round(float(c), 5) for t_, c in zip(texts, cos, strict=True)},
        "min_sentence_cosine": float(min(cos.min(), cos_single.min(), cos_long)),
        "mean_sentence_cosine": float(cos.mean()),
        "min_sentence_cosine_unbatched": float(cos_single.min()),
        "long_sentence_cosine": cos_long,
        "long_span_cosine_min": min(spans),
        "long_span_cosine_mean": sum(spans) / len(spans),
    }
    nq = len(QUERIES)
    sims = v[:nq] @ v[nq:].T
    q["retrieval_top1"] = [int(np.argmax(r)) for r in sims]
    q["retrieval_margin_min"] = float(min(sims[i, i] - np.delete(sims[i], i).max() for i in range(nq)))
    if not q["min_sentence_cosine"] >= MIN_INT8_COSINE:
        failures.append(f"{name} sentence cosine {q['min_sentence_cosine']:.4f} < {MIN_INT8_COSINE} vs PyTorch")
    if not q["long_span_cosine_min"] >= MIN_INT8_SPAN_COSINE:
        failures.append(
            f"{name} {SPAN_TOKENS}-token span cosine {q['long_span_cosine_min']:.4f} < {MIN_INT8_SPAN_COSINE} "
            f"vs PyTorch at {n_long} tokens"
        )
    if q["retrieval_top1"] != list(range(nq)):
        failures.append(f"{name} retrieval sanity failed: top-1 passages {q['retrieval_top1']}")

    option = ALL_OPTIONS[name]
    if option.integer_gemm:
        exact_path = work / name / "saturation_free.onnx"
        figs["matmulinteger_nodes"] = saturation_free(path, exact_path)
        # Same graph optimizations as the int8 run, so the integer GEMM is the only difference: dynamic activation
        # quantization turns any float rounding difference (a fused kernel, a summation order) into whole
        # quantization steps, measured below as float_rounding_sensitivity.
        exact = run_all(ort_session(exact_path), ref)
        exact_path.unlink()
        e_spans = span_cosines(got["long"], exact["long"], long_mask, m, n_long)
        e = figs["vs_saturation_free"] = {
            "min_sentence_cosine": float(
                min(
                    rowwise_cos(v, sentence_vectors(exact["batch"], mask, m)).min(),
                    rowwise_cos(got["single_vectors"], exact["single_vectors"]).min(),
                    rowwise_cos(v_long, sentence_vectors(exact["long"], long_mask, m))[0],
                )
            ),
            "long_span_cosine_min": min(e_spans),
            "max_abs_diff_token_states": masked_max_abs(got["batch"], exact["batch"], mask),
        }
        worst = min(e["min_sentence_cosine"], e["long_span_cosine_min"])
        if worst < MIN_EXACT_COSINE:
            failures.append(
                f"{name} on this CPU differs from the exact integer computation of the same file (cosine "
                f"{worst:.5f} < {MIN_EXACT_COSINE}): its integer kernels saturate here, so its vectors depend on "
                "the CPU"
            )
    # Not a check: how far a float-only change moves this file's vectors. ORT_ENABLE_BASIC leaves the norms
    # unfused (other float kernels, same maths), as another CPU's float kernels may round differently.
    basic = run_all(ort_session(path, optimize=False), ref)
    figs["float_rounding_sensitivity"] = {
        "min_sentence_cosine": float(rowwise_cos(v, sentence_vectors(basic["batch"], mask, m)).min()),
        "long_span_cosine_min": min(span_cosines(got["long"], basic["long"], long_mask, m, n_long)),
    }
    figs["failures"] = failures
    figs["verify_s"] = round(time.monotonic() - t, 1)
    return figs


def print_figures(figs: dict) -> None:
    q = figs.get("vs_torch", {})
    if figs["option"] == "fp32":
        log(
            f"  fp32 ONNX vs PyTorch: max|diff| token states {q['max_abs_diff_short']:.3g} (short), "
            f"{q['max_abs_diff_long']:.3g} ({LONG_TOKENS} tokens); min sentence cosine {q['min_sentence_cosine']:.6f};"
            f" right-padding max|diff| {q['padding_max_abs_diff']:.3g}"
        )
        return
    log(
        f"  {figs['option']} vs PyTorch: sentence cosine min {q['min_sentence_cosine']:.4f}, "
        f"mean {q['mean_sentence_cosine']:.4f}, unbatched min {q['min_sentence_cosine_unbatched']:.4f}, "
        f"{LONG_TOKENS} tokens {q['long_sentence_cosine']:.4f} ({SPAN_TOKENS}-token spans min "
        f"{q['long_span_cosine_min']:.4f}, mean {q['long_span_cosine_mean']:.4f}); "
        f"retrieval top-1 {q['retrieval_top1']} margin {q['retrieval_margin_min']:.3f}"
    )
    e = figs.get("vs_saturation_free")
    if e:
        log(
            f"  {figs['option']} on this CPU vs the saturation-free computation of the same file: sentence cosine "
            f"min {e['min_sentence_cosine']:.6f}, {SPAN_TOKENS}-token spans min {e['long_span_cosine_min']:.6f}, "
            f"max|diff| token states {e['max_abs_diff_token_states']:.3g}"
        )
    f = figs.get("float_rounding_sensitivity")
    if f:
        log(
            f"  {figs['option']} with unfused float kernels (a float-only change): sentence cosine min "
            f"{f['min_sentence_cosine']:.5f}, {SPAN_TOKENS}-token spans min {f['long_span_cosine_min']:.5f}"
        )


def versions() -> dict:
    import numpy
    import onnx
    import onnxruntime
    import onnxscript
    import tokenizers
    import torch
    import transformers

    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "onnx": onnx.__version__,
        "onnxscript": onnxscript.__version__,
        "onnxruntime": onnxruntime.__version__,
        "tokenizers": tokenizers.__version__,
        "numpy": numpy.__version__,
    }


def cpu_flags() -> str:
    """The CPU features that pick onnxruntime's integer kernels (the verification is only valid for these)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    flags = set(next((ln.split(":", 1)[1].split() for ln in text.splitlines() if ln.startswith("flags")), []))
    model = next((ln.split(":", 1)[1].strip() for ln in text.splitlines() if ln.startswith("model name")), "?")
    picked = [f for f in ("avx2", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "amx_int8") if f in flags]
    return f"{model}: {' '.join(picked) or 'no avx2'}"


# --------------------------------------------------------------------------------------------------------------
# The build: stages in child processes, options in order


def run_stage(label: str, args: list[str], stages: list[dict]) -> int:
    """Run this script with ``args`` in a child process; record its wall time and peak RSS (wait4)."""
    t = time.monotonic()
    env = {**os.environ, "PYTHONHASHSEED": "0", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *args], env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = round(time.monotonic() - t, 1)
    peak = round(usage.ru_maxrss / 1024)
    stages.append({"stage": label, "seconds": seconds, "peak_rss_mb": peak, "exit": proc.returncode})
    log(f"stage {label}: {seconds} s, peak RSS {peak} MB{'' if proc.returncode == 0 else ', FAILED'}")
    if os.environ.get("PIKELOCAL_STAGE_LINES"):  # build/setup.py shows these on the terminal
        print(f"[stage] encoder {label}|{seconds}|{peak}|{'' if proc.returncode == 0 else 'failed'}", flush=True)
    return proc.returncode


def clean_stale(out: Path) -> None:
    """Remove temporary folders left by killed runs (never one whose process is still alive)."""
    for p in out.parent.glob(f".{out.name}.partial-*"):
        try:
            pid = int(p.name.rsplit("-", 1)[1])
            os.kill(pid, 0)
            continue  # still running
        except (ValueError, ProcessLookupError):
            pass
        except PermissionError:
            continue
        log(f"removing stale {p}")
        shutil.rmtree(p, ignore_errors=True)


def build(src: Path, out: Path, work: Path, *, keep_work: bool, only: list[str] | None = None) -> int:
    t_all = time.monotonic()
    check_source(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(out)
    work.mkdir(parents=True, exist_ok=True)
    stages: list[dict] = []
    tried: list[dict] = []
    try:
        have_fp32 = (work / "source.json").is_file() and (work / "fp32" / "model.onnx").is_file()
        if not have_fp32 and run_stage(
            "fp32 export", ["--stage", "fp32", "--src", str(src), "--work", str(work)], stages
        ):
            return 1
        if run_stage("verify fp32", ["--stage", "verify", "--option", "fp32", "--work", str(work)], stages):
            return 1
        fp32_figs = read_json(work / "fp32" / "verify.json")
        if fp32_figs["failures"]:
            for f in fp32_figs["failures"]:
                log(f"FAILED: {f}")
            return 1
        options = [o for o in OPTIONS if not only or o.name in only]
        chosen: QuantOption | None = None
        for option in options:
            wargs = ["--work", str(work), "--option", option.name]
            if run_stage(f"quantize {option.name}", ["--stage", "quantize", *wargs], stages):
                tried.append({"option": option.name, "failures": ["quantization failed"]})
                continue
            if run_stage(f"verify {option.name}", ["--stage", "verify", *wargs], stages):
                tried.append({"option": option.name, "failures": ["verification crashed"]})
                continue
            figs = read_json(work / option.name / "verify.json")
            tried.append(figs)
            if not figs["failures"]:
                chosen = option
                break
            for f in figs["failures"]:
                log(f"{option.name} refused: {f}")
            if not keep_work:
                shutil.rmtree(work / option.name, ignore_errors=True)
        if chosen is None:
            log(
                "FAILED: no quantization option verified on this CPU ("
                + "; ".join(f"{t['option']}: {t['failures'][0]}" for t in tried)
                + "). Please report this with build/setup.log"
            )
            return 1
        return install(work, out, chosen, tried, fp32_figs, stages, time.monotonic() - t_all)
    finally:
        if not keep_work:
            shutil.rmtree(work, ignore_errors=True)


def install(
    work: Path, out: Path, chosen: QuantOption, tried: list[dict], fp32: dict, stages: list[dict], secs: float
) -> int:
    tmp = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        shutil.copyfile(work / chosen.name / MODEL_FILE, tmp / MODEL_FILE)
        shutil.copyfile(work / "dense.npy", tmp / "dense.npy")
        shutil.copyfile(work / "tokenizer.json", tmp / "tokenizer.json")
        refused = [f"{t['option']}: {t['failures'][0]}" for t in tried if t.get("failures")]
        why = chosen.why + (f" (tried first and refused here: {'; '.join(refused)})" if refused else "")
        quantization = {"option": chosen.name, "summary": chosen.summary, "why": why, "verified_on": cpu_flags()}
        write_json(tmp / "encoder.json", {**ENCODER_JSON, "quantization": quantization})
        source = read_json(work / "source.json")
        report = {
            "encoder": ENCODER_JSON["id"],
            "quantization": quantization,
            "options": [asdict(o) for o in OPTIONS],
            "tried": tried,
            "source": {k: v for k, v in source.items() if k != "versions"},
            "fp32_verification": fp32,
            "tolerances": {
                "min_int8_cosine": MIN_INT8_COSINE,
                "min_int8_span_cosine": MIN_INT8_SPAN_COSINE,
                "min_exact_cosine": MIN_EXACT_COSINE,
                "max_fp32_abs_diff": MAX_FP32_ABS_DIFF,
                "min_fp32_cosine": MIN_FP32_COSINE,
                "max_projection_diff": MAX_PROJECTION_DIFF,
                "max_padding_diff": MAX_PADDING_DIFF,
            },
            "versions": source["versions"],
            "stages": stages,
            "total_s": round(secs, 1),
            "peak_rss_mb": max(s["peak_rss_mb"] for s in stages),
            "files": {
                name: {"sha256": sha256_file(tmp / name), "bytes": (tmp / name).stat().st_size} for name in OUTPUT_FILES
            },
        }
        write_json(tmp / REPORT, report)
        # Swap into place: OUT is either the old complete folder or the new complete one, never half-built.
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        if out.exists():
            os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, info in report["files"].items():
        log(f"  {name}: {info['bytes']:,} B sha256 {info['sha256']}")
    log(f"installed {chosen.name} ({chosen.summary}) in {report['total_s']} s → {out}")
    log(f"peak RSS of any stage {report['peak_rss_mb']} MB")
    return 0


def check(out: Path) -> int:
    problems: list[str] = []
    report_path = out / REPORT
    if not report_path.is_file():
        log(f"FAILED: {report_path} missing")
        return 1
    report = read_json(report_path)
    enc = read_json(out / "encoder.json") if (out / "encoder.json").is_file() else {}
    if {k: v for k, v in enc.items() if k != "quantization"} != ENCODER_JSON:
        problems.append("encoder.json differs from the expected description")
    for name in OUTPUT_FILES:
        want = report.get("files", {}).get(name, {}).get("sha256")
        path = out / name
        if not path.is_file():
            problems.append(f"{name} missing")
        elif sha256_file(path) != want:
            problems.append(f"{name} sha256 differs from {REPORT}")
    log(f"files: {'ok' if not problems else 'BAD'}; quantization {report.get('quantization', {}).get('option')}")
    for p in problems:
        log(f"FAILED: {p}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, help="extracted EmbeddingGemma sentence-transformers folder")
    ap.add_argument("--out", type=Path, help="output folder, e.g. models/embeddinggemma-300m")
    ap.add_argument("--check", action="store_true", help="verify an existing output folder instead of building")
    ap.add_argument("--work", type=Path, help="work folder for the stages (default: next to --out)")
    ap.add_argument("--keep-work", action="store_true", help="keep the work folder (fp32 export, every option)")
    ap.add_argument("--only", nargs="*", help="try only these options, in the usual order")
    ap.add_argument("--stage", choices=["fp32", "quantize", "verify"], help=argparse.SUPPRESS)
    ap.add_argument("--option", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        if args.stage:
            if args.work is None:
                ap.error("--stage needs --work")
            if args.stage == "fp32":
                if args.src is None:
                    ap.error("--stage fp32 needs --src")
                stage_fp32(args.src.resolve(), args.work.resolve())
            elif args.stage == "quantize":
                stage_quantize(args.work.resolve(), ALL_OPTIONS[args.option])
            else:
                figs = stage_verify(args.work.resolve(), args.option)
                folder = args.work / ("fp32" if args.option == "fp32" else args.option)
                write_json(folder / "verify.json", figs)
                print_figures(figs)
            return 0
        if args.out is None:
            ap.error("--out is required")
        out = args.out.resolve()
        if args.check:
            return check(out)
        if args.src is None:
            ap.error("--src is required unless --check")
        work = (args.work or out.parent / f".{out.name}.work").resolve()
        return build(args.src.resolve(), out, work, keep_work=args.keep_work, only=args.only)
    except Refused as e:
        log(f"FAILED: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
