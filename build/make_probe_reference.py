#!/usr/bin/env python3
"""Write the reference probe vectors of EmbeddingGemma from the float32 PyTorch model (run once; committed).

    build/.venv-export/bin/python build/make_probe_reference.py --src SRC [--out FILE]
    .venv/bin/python build/make_probe_reference.py --installed models/embeddinggemma-300m --out FILE

(FILE defaults to tests/data/embeddinggemma_probes_fp32.json.) ``--installed`` writes the probe vectors of an
installed int8 build as this CPU computes them, with the model file's sha256 and the CPU's flags: committed as
tests/data/embeddinggemma_probes_int8_<cpu>.json, they let the test suite on another CPU measure how closely it
agrees with this one on the same file (a KB made here must open there).

The vectors are pikelocal's own probe vectors (``pikelocal.embed.probes.probe_vectors``: prompts, special tokens,
late windows and span pooling exactly as ``OnnxEncoder`` does them), with the ONNX session replaced by the
PyTorch model in float32. ``tests/embed/test_encoder_portability.py`` compares the installed encoder with them,
so a machine whose int8 kernels compute other numbers fails the test suite.

Runs in the build-only environment (torch, transformers, tokenizers, numpy); imports pikelocal from the work tree.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build"))


def torch_encoder(src: Path):  # an OnnxEncoder whose _run is PyTorch's float32 model
    import numpy as np
    import torch
    from export_embeddinggemma import ENCODER_JSON, load_model, projection_matrix
    from tokenizers import Tokenizer

    from pikelocal.embed.onnx import OnnxEncoder, right_padded

    model = load_model(src)
    m, _ = projection_matrix(src)

    class TorchEncoder(OnnxEncoder):
        def __init__(self) -> None:  # the attributes OnnxEncoder.__init__ sets, without an ONNX session
            self.model_id = ENCODER_JSON["id"] + "/pytorch-fp32"
            self.dim = ENCODER_JSON["dim"]
            self.max_tokens = self.window_tokens = ENCODER_JSON["max_tokens"]
            self.late_window_tokens = 1024  # pikelocal's default encoder.late_window
            self.query_prompt = ENCODER_JSON["query_prompt"]
            self.passage_prompt = ENCODER_JSON["passage_prompt"]
            self.batch_size = 1
            self.tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
            self.tokenizer.no_padding()
            self.tokenizer.no_truncation()
            self._prefix, self._suffix = self._special_tokens()
            self._overhead = len(self._prefix) + len(self._suffix)
            self.projection = np.ascontiguousarray(m, dtype=np.float32)

        def _run(self, batch):  # type: ignore[no-untyped-def]
            ids, mask = right_padded(batch)
            with torch.inference_mode():
                out = model(input_ids=torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), use_cache=False)
            return out.last_hidden_state.float().numpy(), mask

    return TorchEncoder()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = ap.add_mutually_exclusive_group(required=True)
    source.add_argument("--src", type=Path, help="extracted EmbeddingGemma sentence-transformers folder")
    source.add_argument("--installed", type=Path, help="an installed encoder folder (model.onnx, encoder.json)")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "embeddinggemma_probes_fp32.json")
    args = ap.parse_args()
    from pikelocal.embed.probes import LATE_PROBE, PROBE_VERSION, SENTENCE_PROBES, late_spans, probe_vectors

    t = time.monotonic()
    extra: dict = {}
    if args.installed:
        import hashlib

        from pikelocal.cpu import cpu_summary
        from pikelocal.embed.onnx import OnnxEncoder

        encoder = OnnxEncoder(args.installed, threads=2)
        model = args.installed / "model.onnx"
        note = f"probe vectors of the installed {encoder.model_id} as computed on {cpu_summary()}"
        extra = {
            "model_sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
            "cpu": cpu_summary(),
            "build": encoder.build,
        }
        vectors = probe_vectors(encoder)
    else:
        note = "EmbeddingGemma-300M probe vectors from the float32 PyTorch model (build/make_probe_reference.py)"
        vectors = probe_vectors(torch_encoder(args.src.resolve()))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "note": note,
        **extra,
        "probe_version": PROBE_VERSION,
        "sentences": [list(p) for p in SENTENCE_PROBES],
        "late_probe": LATE_PROBE,
        "late_spans": late_spans(),
        "vectors": [[round(float(x), 7) for x in row] for row in vectors],
    }
    args.out.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(vectors)} probe vectors to {args.out} in {time.monotonic() - t:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
