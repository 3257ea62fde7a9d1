#!/usr/bin/env python3
"""Export the EmbeddingGemma-300M sentence encoder to an int8 ONNX model (set-up time only).

Runs in the build-only virtual environment (build/requirements-export.txt: torch CPU, transformers, onnx,
onnxscript, onnxruntime, safetensors, tokenizers, numpy). torch is never a runtime dependency of pikelocal.

    build/.venv-export/bin/python build/export_embeddinggemma.py --src SRC --out models/embeddinggemma-300m
    build/.venv-export/bin/python build/export_embeddinggemma.py --out models/embeddinggemma-300m --check [--src SRC]

SRC is the extracted sentence-transformers folder (the one holding config.json, model.safetensors, tokenizer.json,
1_Pooling/, 2_Dense/, 3_Dense/).

Output folder (written into a hidden temporary folder next to OUT, then renamed into place):
    model_int8.onnx      inputs input_ids, attention_mask (int64, [batch, seq]); output last_hidden_state
                         (float32, [batch, seq, 768]). Pad on the right with id 0 and attention_mask 0.
    dense.npy            float32 768x768 M: sentence_vec = normalize(mean_pool(last_hidden_state) @ M)
    tokenizer.json       verbatim copy (adds <bos> ... <eos>)
    encoder.json         runtime description (see ENCODER_JSON)
    export_report.json   verification figures, versions, timings, sha256 of every other output file

Quantisation: onnxruntime quantize_dynamic (MatMul + Gather, per-channel, QInt8), keeping every layer's
mlp.down_proj and the last layer's linears in float32 (see kept_float_nodes: +70 MB, but sentence cosine to fp32
0.998 instead of 0.91 at 1,000 tokens). The build re-executes itself with PYTHONHASHSEED=0 so that two builds with
the same pinned packages give byte-identical files.

--check verifies an existing output folder instead of building it: encoder.json, and every file against the
sha256 recorded in export_report.json; with --src it also re-runs the int8-vs-PyTorch comparison. It needs only
the standard library unless --src is given.

Exit status: 0 on success, 1 on a failed verification or a refused input, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import resource
import shutil
import sys
import time
from pathlib import Path

ENCODER_JSON = {
    "id": "embeddinggemma-300m-int8",
    "dim": 768,
    "max_tokens": 2048,
    "onnx": "model_int8.onnx",
    "tokenizer": "tokenizer.json",
    "query_prompt": "task: search result | query: ",
    "passage_prompt": "title: none | text: ",
    "projection": "dense.npy",
    "output": "last_hidden_state",
}
OUTPUT_FILES = ("model_int8.onnx", "dense.npy", "tokenizer.json", "encoder.json")
REPORT = "export_report.json"
IDENTITY = "torch.nn.modules.linear.Identity"
PAD_ID = 0
OPSET = 18

# Tolerances (verification fails, exit 1, outside them).
MIN_INT8_COSINE = 0.98  # int8 ONNX sentence vectors vs PyTorch fp32, per sentence
MIN_INT8_SPAN_COSINE = 0.95  # int8 vs fp32, mean-pooled 64-token spans of the long input (late chunking)
SPAN_TOKENS = 64
MAX_FP32_ABS_DIFF = 1e-2  # fp32 ONNX vs PyTorch token states (real tokens only)
MIN_FP32_COSINE = 0.9999  # fp32 ONNX sentence vectors vs PyTorch fp32
MAX_PROJECTION_DIFF = 1e-4  # folded 768x768 M vs the two Dense layers applied one after the other
MAX_PADDING_DIFF = 1e-3  # fp32 ONNX: a sequence alone vs the same sequence right-padded in a batch
LONG_TOKENS = 1000

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


def ort_session(path: Path):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


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


def verification_inputs(tok):
    q = [ENCODER_JSON["query_prompt"] + t for t in QUERIES]
    p = [ENCODER_JSON["passage_prompt"] + t for t in PASSAGES + [DISTRACTOR]]
    ids = tok.encode(LONG_TEXT * 40).ids
    if len(ids) < LONG_TOKENS:
        raise Refused("long verification text is too short")
    long_ids = ids[: LONG_TOKENS - 1] + [ids[-1]]  # keep the closing <eos>
    return q, p, long_ids


# --------------------------------------------------------------------------------------------------------------
# Build


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


def quantize(fp32: Path, int8: Path, num_layers: int) -> list[str]:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(fp32))  # with its external data (about 1.2 GB in memory)
    keep = kept_float_nodes(model, num_layers)
    # The exporter records stack traces with absolute paths in every node: drop them so the output does not depend
    # on where the build ran.
    for graph_node in model.graph.node:
        del graph_node.metadata_props[:]
        graph_node.doc_string = ""
    for value in (*model.graph.value_info, *model.graph.input, *model.graph.output, *model.graph.initializer):
        del value.metadata_props[:]
    del model.graph.metadata_props[:]
    quantize_dynamic(
        model,
        int8,
        op_types_to_quantize=["MatMul", "Gather"],
        per_channel=True,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=keep,
        use_external_data_format=False,
    )
    if not int8.is_file() or any(p != int8 for p in int8.parent.iterdir() if p.name.startswith(int8.name)):
        raise Refused(f"quantization did not produce a single file {int8.name}")
    return keep


def verify(model, tok, m, dense_weights, fp32_path: Path | None, int8_path: Path) -> dict:
    """Compare ONNX against PyTorch fp32. Returns the figures; raises Refused when out of tolerance."""
    import numpy as np

    figs: dict = {
        "tolerances": {
            "min_int8_cosine": MIN_INT8_COSINE,
            "min_int8_span_cosine": MIN_INT8_SPAN_COSINE,
            "max_fp32_abs_diff": MAX_FP32_ABS_DIFF,
            "min_fp32_cosine": MIN_FP32_COSINE,
            "max_projection_diff": MAX_PROJECTION_DIFF,
            "max_padding_diff": MAX_PADDING_DIFF,
        }
    }
    failures: list[str] = []
    q, p, long_ids = verification_inputs(tok)
    texts = q + p
    ids, mask = batch_ids(tok, texts)
    if not all(r[0] == 2 for r in ids) or not all(ids[i, mask[i].sum() - 1] == 1 for i in range(len(ids))):
        failures.append("tokenizer.json does not add <bos> (2) ... <eos> (1)")
    long_ids_np, long_mask = pad_ids([long_ids])
    figs["batch"] = {"sentences": len(texts), "padded_len": int(ids.shape[1]), "long_tokens": len(long_ids)}

    t_ref = torch_states(model, ids, mask)
    t_long = torch_states(model, long_ids_np, long_mask)
    ref = sentence_vectors(t_ref, mask, m)
    ref_long = sentence_vectors(t_long, long_mask, m)
    st = torch_sentence_vectors_st(model, ids, mask, dense_weights)
    figs["projection_max_abs_diff_vs_dense_layers"] = float(np.abs(st - ref).max())
    if figs["projection_max_abs_diff_vs_dense_layers"] > MAX_PROJECTION_DIFF:
        failures.append(
            f"folded projection differs from the Dense layers by {figs['projection_max_abs_diff_vs_dense_layers']:.3g}"
        )

    if fp32_path is not None:
        sess = ort_session(fp32_path)
        o = ort_states(sess, ids, mask)
        o_long = ort_states(sess, long_ids_np, long_mask)
        single = ort_states(sess, *pad_ids([tok.encode(texts[0]).ids]))
        del sess
        n0 = int(mask[0].sum())
        fp32 = {
            "max_abs_diff_short": masked_max_abs(o, t_ref, mask),
            "max_abs_diff_long": masked_max_abs(o_long, t_long, long_mask),
            "min_sentence_cosine": float(
                min(
                    rowwise_cos(sentence_vectors(o, mask, m), ref).min(),
                    rowwise_cos(sentence_vectors(o_long, long_mask, m), ref_long).min(),
                )
            ),
            "padding_max_abs_diff": float(np.abs(single[0, :n0] - o[0, :n0]).max()),
        }
        figs["fp32_onnx_vs_torch"] = fp32
        if not fp32["max_abs_diff_short"] < MAX_FP32_ABS_DIFF or not fp32["max_abs_diff_long"] < MAX_FP32_ABS_DIFF:
            failures.append(
                f"fp32 ONNX token states differ from PyTorch: short {fp32['max_abs_diff_short']:.3g}, "
                f"long {fp32['max_abs_diff_long']:.3g} (limit {MAX_FP32_ABS_DIFF})"
            )
        if not fp32["min_sentence_cosine"] >= MIN_FP32_COSINE:
            failures.append(f"fp32 ONNX sentence cosine {fp32['min_sentence_cosine']:.6f} < {MIN_FP32_COSINE}")
        if not fp32["padding_max_abs_diff"] < MAX_PADDING_DIFF:
            failures.append(f"fp32 ONNX right padding changes token states by {fp32['padding_max_abs_diff']:.3g}")

    sess = ort_session(int8_path)
    o8 = ort_states(sess, ids, mask)
    o8_long = ort_states(sess, long_ids_np, long_mask)
    v8 = sentence_vectors(o8, mask, m)
    v8_long = sentence_vectors(o8_long, long_mask, m)
    # Each sentence alone (no padding): dynamic activation quantisation sees a different tensor than in a batch.
    singles = []
    for t in texts:
        one_ids, one_mask = pad_ids([tok.encode(t).ids])
        singles.append(sentence_vectors(ort_states(sess, one_ids, one_mask), one_mask, m))
    v8_single = np.concatenate(singles)
    del sess
    cos = rowwise_cos(v8, ref)
    cos_single = rowwise_cos(v8_single, ref)
    cos_long = float(rowwise_cos(v8_long, ref_long)[0])
    span_cos = []  # late chunking: mean-pool spans of the long input's token states
    for a in range(1, len(long_ids) - 1, SPAN_TOKENS):
        b = min(a + SPAN_TOKENS, len(long_ids) - 1)
        span_cos.append(
            float(
                rowwise_cos(
                    sentence_vectors(o8_long[:, a:b], long_mask[:, a:b], m),
                    sentence_vectors(t_long[:, a:b], long_mask[:, a:b], m),
                )[0]
            )
        )
    int8 = {
        "sentence_cosine": {t: round(float(c), 5) for t, c in zip(texts, cos, strict=True)},
        "min_sentence_cosine": float(min(cos.min(), cos_single.min(), cos_long)),
        "mean_sentence_cosine": float(cos.mean()),
        "min_sentence_cosine_unbatched": float(cos_single.min()),
        "long_sentence_cosine": cos_long,
        "long_span_cosine_min": min(span_cos),
        "long_span_cosine_mean": sum(span_cos) / len(span_cos),
        "max_abs_diff_token_states_short": masked_max_abs(o8, t_ref, mask),
        "max_abs_diff_token_states_long": masked_max_abs(o8_long, t_long, long_mask),
    }
    # Retrieval sanity on the int8 vectors: each query's own passage beats every other passage.
    nq = len(q)
    sims = v8[:nq] @ v8[nq:].T
    int8["retrieval_top1"] = [int(np.argmax(r)) for r in sims]
    int8["retrieval_margin_min"] = float(min(sims[i, i] - np.delete(sims[i], i).max() for i in range(nq)))
    figs["int8_onnx_vs_torch"] = int8
    if not int8["min_sentence_cosine"] >= MIN_INT8_COSINE:
        failures.append(f"int8 ONNX sentence cosine {int8['min_sentence_cosine']:.4f} < {MIN_INT8_COSINE}")
    if not int8["long_span_cosine_min"] >= MIN_INT8_SPAN_COSINE:
        failures.append(
            f"int8 ONNX {SPAN_TOKENS}-token span cosine {int8['long_span_cosine_min']:.4f} "
            f"< {MIN_INT8_SPAN_COSINE} at {len(long_ids)} tokens"
        )
    if int8["retrieval_top1"] != list(range(nq)):
        failures.append(f"int8 retrieval sanity failed: top-1 passages {int8['retrieval_top1']}")
    figs["failures"] = failures
    return figs


def print_figures(figs: dict) -> None:
    n_long = figs["batch"]["long_tokens"]
    f = figs.get("fp32_onnx_vs_torch")
    if f:
        log(
            f"  fp32 ONNX vs PyTorch: max|diff| token states {f['max_abs_diff_short']:.3g} (short), "
            f"{f['max_abs_diff_long']:.3g} ({n_long} tokens); min sentence cosine {f['min_sentence_cosine']:.6f}; "
            f"right-padding max|diff| {f['padding_max_abs_diff']:.3g}"
        )
    i = figs["int8_onnx_vs_torch"]
    log(
        f"  int8 ONNX vs PyTorch: sentence cosine min {i['min_sentence_cosine']:.4f}, "
        f"mean {i['mean_sentence_cosine']:.4f}, unbatched min {i['min_sentence_cosine_unbatched']:.4f}, "
        f"{n_long} tokens {i['long_sentence_cosine']:.4f} ({SPAN_TOKENS}-token spans min "
        f"{i['long_span_cosine_min']:.4f}, mean {i['long_span_cosine_mean']:.4f}); "
        f"retrieval top-1 {i['retrieval_top1']} margin {i['retrieval_margin_min']:.3f}"
    )
    log(f"  projection M vs Dense layers: max|diff| {figs['projection_max_abs_diff_vs_dense_layers']:.3g}")


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


def build(src: Path, out: Path) -> int:
    import numpy as np

    t_all = time.monotonic()
    timings: dict[str, float] = {}
    cfg = check_source(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    clean_stale(out)
    tmp = out.parent / f".{out.name}.partial-{os.getpid()}"
    tmp.mkdir()
    try:
        t = time.monotonic()
        log(f"loading {src} (source sha256 check)…")
        src_sha = {
            "model.safetensors": sha256_file(src / "model.safetensors"),
            "tokenizer.json": sha256_file(src / "tokenizer.json"),
        }
        model = load_model(src)
        tok = load_tokenizer(src / "tokenizer.json")
        m, dense_weights = projection_matrix(src)
        timings["load_s"] = round(time.monotonic() - t, 1)
        log(f"loaded in {timings['load_s']} s")

        fp32_dir = tmp / "_fp32"
        fp32_dir.mkdir()
        fp32 = fp32_dir / "model.onnx"
        t = time.monotonic()
        log("exporting… (torch.onnx.export dynamo=True, opset 18, fp32)")
        export_fp32(model, fp32)
        timings["export_s"] = round(time.monotonic() - t, 1)
        log(f"exported in {timings['export_s']} s")

        int8 = tmp / ENCODER_JSON["onnx"]
        t = time.monotonic()
        log("quantizing… (dynamic int8, MatMul + Gather, per-channel, QInt8; down_proj + last layer kept float)")
        kept = quantize(fp32, int8, cfg["num_hidden_layers"])
        timings["quantize_s"] = round(time.monotonic() - t, 1)
        log(f"quantized in {timings['quantize_s']} s: {int8.stat().st_size / 1e6:.1f} MB")

        np.save(tmp / ENCODER_JSON["projection"], m)
        shutil.copyfile(src / "tokenizer.json", tmp / ENCODER_JSON["tokenizer"])

        t = time.monotonic()
        log("verifying… (fp32 and int8 ONNX vs PyTorch fp32)")
        figs = verify(model, tok, m, dense_weights, fp32, int8)
        timings["verify_s"] = round(time.monotonic() - t, 1)
        log(f"verified in {timings['verify_s']} s")
        print_figures(figs)
        shutil.rmtree(fp32_dir)
        if figs["failures"]:
            for f in figs["failures"]:
                log(f"FAILED: {f}")
            return 1

        write_json(tmp / "encoder.json", ENCODER_JSON)
        timings["total_s"] = round(time.monotonic() - t_all, 1)
        report = {
            "encoder": ENCODER_JSON["id"],
            "source": {
                "model_type": cfg["model_type"],
                "sliding_window": cfg.get("sliding_window"),
                "max_position_embeddings": cfg["max_position_embeddings"],
                "sha256": src_sha,
            },
            "onnx": {
                "opset": OPSET,
                "inputs": ["input_ids", "attention_mask"],
                "output": "last_hidden_state",
                "dtype_inputs": "int64",
                "padding": "right",
                "pad_id": PAD_ID,
                "quantization": "quantize_dynamic MatMul+Gather per_channel QInt8",
                "kept_float32": "mlp.down_proj of every layer, all linears of the last layer",
                "kept_float32_nodes": len(kept),
            },
            "verification": figs,
            "versions": versions(),
            "timings": timings,
            "peak_rss_mb": round(peak_rss_mb()),
            "files": {
                name: {"sha256": sha256_file(tmp / name), "bytes": (tmp / name).stat().st_size} for name in OUTPUT_FILES
            },
        }
        write_json(tmp / REPORT, report)
        leftovers = sorted(p.name for p in tmp.iterdir() if p.name not in (*OUTPUT_FILES, REPORT))
        if leftovers:
            raise Refused(f"unexpected files in the output: {leftovers}")

        # Swap into place: OUT is either the old complete folder or the new complete one, never half-built.
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        if out.exists():
            os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
        for name, info in report["files"].items():
            log(f"  {name}: {info['bytes']:,} B sha256 {info['sha256']}")
        log(f"done in {timings['total_s']} s → {out} (peak RSS {report['peak_rss_mb']} MB)")
        return 0
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def check(out: Path, src: Path | None) -> int:
    problems: list[str] = []
    report_path = out / REPORT
    if not report_path.is_file():
        log(f"FAILED: {report_path} missing")
        return 1
    if (out / "encoder.json").is_file() and read_json(out / "encoder.json") != ENCODER_JSON:
        problems.append("encoder.json differs from the expected description")
    report = read_json(report_path)
    for name in OUTPUT_FILES:
        want = report.get("files", {}).get(name, {}).get("sha256")
        path = out / name
        if not path.is_file():
            problems.append(f"{name} missing")
        elif sha256_file(path) != want:
            problems.append(f"{name} sha256 differs from {REPORT}")
    log(f"files: {'ok' if not problems else 'BAD'}")
    if not problems and src is not None:
        import numpy as np

        check_source(src)
        t = time.monotonic()
        log("verifying… (int8 ONNX vs PyTorch fp32)")
        model = load_model(src)
        m, dense_weights = projection_matrix(src)
        if not np.array_equal(np.load(out / ENCODER_JSON["projection"]), m):
            problems.append("dense.npy does not match the source Dense layers")
        figs = verify(model, load_tokenizer(out / "tokenizer.json"), m, dense_weights, None, out / ENCODER_JSON["onnx"])
        log(f"verified in {time.monotonic() - t:.1f} s")
        print_figures(figs)
        problems += figs["failures"]
    for p in problems:
        log(f"FAILED: {p}")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, help="extracted EmbeddingGemma sentence-transformers folder")
    ap.add_argument("--out", type=Path, required=True, help="output folder, e.g. models/embeddinggemma-300m")
    ap.add_argument("--check", action="store_true", help="verify an existing output folder instead of building")
    args = ap.parse_args(argv)
    if argv is None and not args.check and os.environ.get("PYTHONHASHSEED") != "0":
        # The exported graph's node names and initializer order follow set iteration order inside transformers
        # (string hashing): fix the seed so that two builds give the same bytes.
        os.environ["PYTHONHASHSEED"] = "0"
        sys.stdout.flush()
        os.execv(sys.executable, [sys.executable, *sys.argv])
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        if args.check:
            return check(args.out.resolve(), args.src.resolve() if args.src else None)
        if args.src is None:
            ap.error("--src is required unless --check")
        return build(args.src.resolve(), args.out.resolve())
    except Refused as e:
        log(f"FAILED: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
