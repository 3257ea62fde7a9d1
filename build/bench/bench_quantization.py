#!/usr/bin/env python3
"""EmbeddingGemma quantization options side by side on this machine: quality, portability, speed, size.

    build/.venv-export/bin/python build/export_embeddinggemma.py --src SRC --out DIR/out --work DIR/work \
        --keep-work --only int8-w7 int8-u8u8 float-matmul      # and: --stage quantize/verify --option int8-w8
    .venv/bin/python build/bench/bench_quantization.py --work DIR/work [--out docs/BENCHMARKS.md]

For every option folder in the export's work folder (int8-w8 = the export before the portable 7-bit build):
- quality: its verify.json (sentence and 64-token-span cosine against PyTorch fp32, on this CPU);
- portability: the same run against the saturation-free computation of the same file (verify.json), and the
  probe vectors against the committed PyTorch reference (tests/data/embeddinggemma_probes_fp32.json);
- speed with pikelocal's OnnxEncoder (2 threads): ``encode`` of 8 passages of ~500 tokens, and ``encode_tokens``
  of ~2,600 tokens in 1,024-token late windows; median of 3 after a warm-up;
- size of the model file.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build" / "bench"))  # bench.py, sections.py

from bench import median_time  # noqa: E402
from sections import write_section  # noqa: E402

from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.onnx import OnnxEncoder  # noqa: E402
from pikelocal.embed.probes import SENTENCE_PROBES, probe_vectors, rowwise_cosine  # noqa: E402

BEGIN, END = "<!-- bench_quantization:begin -->", "<!-- bench_quantization:end -->"
REFERENCE = ROOT / "tests" / "data" / "embeddinggemma_probes_fp32.json"
ORDER = ("int8-w8", "int8-w7", "int8-u8u8", "float-matmul")
TEXT = (
    "投标人应当在投标截止时间前提交投标文件，逾期送达的投标文件，招标人应当拒收。评标委员会由招标人的代表和有关技术、"
    "经济等方面的专家组成。The Supplier shall deliver the goods within thirty days of the purchase order and "
    "shall bear all costs of transport, insurance and unloading at the delivery point. "
)


def encoder_for(work: Path, option: str) -> OnnxEncoder:
    """An OnnxEncoder over the option's model file (a temporary folder of links)."""
    folder = Path(tempfile.mkdtemp(prefix=f"quant-{option}-"))
    (folder / "model.onnx").symlink_to(work / option / "model.onnx")
    (folder / "dense.npy").symlink_to(work / "dense.npy")
    (folder / "tokenizer.json").symlink_to(work / "tokenizer.json")
    sys.path.insert(0, str(ROOT / "build"))
    from export_embeddinggemma import ENCODER_JSON

    (folder / "encoder.json").write_text(json.dumps({**ENCODER_JSON, "quantization": {"option": option}}))
    return OnnxEncoder(folder, threads=2, late_window=1024)


def median_seconds(fn, reps: int = 3) -> float:  # type: ignore[no-untyped-def]
    fn()  # warm-up
    return median_time(fn, reps)


def measure(work: Path, option: str, reference: np.ndarray) -> dict[str, float | str]:
    enc = encoder_for(work, option)
    passages = []
    for i in range(8):
        ids = enc.tokenizer.encode((TEXT * 8)[i * 31 :], add_special_tokens=False).ids[:496]
        passages.append(enc.tokenizer.decode(ids))
    n_passage = sum(enc.count_tokens(p) for p in passages)
    long_text = TEXT * 14
    n_long = enc.count_tokens(long_text)
    t_enc = median_seconds(lambda: enc.encode(passages, role="passage"))
    t_late = median_seconds(lambda: enc.encode_tokens(long_text))
    probes = probe_vectors(enc)
    cos = rowwise_cosine(probes, reference)
    n_sent = len(SENTENCE_PROBES)
    figs = json.loads((work / option / "verify.json").read_text())
    q, e = figs.get("vs_torch", {}), figs.get("vs_saturation_free", {})
    return {
        "option": option,
        "mb": (work / option / "model.onnx").stat().st_size / 1e6,
        "sent": q.get("min_sentence_cosine", float("nan")),
        "span": q.get("long_span_cosine_min", float("nan")),
        "exact": min(e["min_sentence_cosine"], e["long_span_cosine_min"]) if e else float("nan"),
        "probe_sent": float(cos[:n_sent].min()),
        "probe_late": float(cos[n_sent:].min()),
        "encode": n_passage / t_enc,
        "late": n_long / t_late,
        "failures": "; ".join(figs.get("failures", [])) or "passes",
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", type=Path, required=True, help="the export's work folder (--keep-work)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    reference = np.asarray(json.loads(REFERENCE.read_text(encoding="utf-8"))["vectors"], dtype=np.float32)
    rows = [measure(args.work, o, reference) for o in ORDER if (args.work / o / "verify.json").is_file()]
    base = next((r for r in rows if r["option"] == "int8-w8"), None)
    lines = [
        BEGIN,
        "## EmbeddingGemma quantization options",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `python build/bench/bench_quantization.py "
        f"--work …` on {cpu_summary()}, {platform.python_version()}; 2 threads. 'vs PyTorch': min cosine over the "
        "export's verification sentences and 64-token spans of a 1,000-token input. 'vs exact': the same file run "
        "by this CPU's integer kernels against its saturation-free computation (float arithmetic on the same "
        "integers): below 0.9999 the file's numbers depend on the CPU. 'probes': pikelocal's probe vectors against "
        "the committed PyTorch fp32 reference (sentences; late spans). Speed: `OnnxEncoder.encode` of 8 × ~500 "
        "tokens, and `encode_tokens` of ~2,600 tokens in 1,024-token late windows, median of 3.",
        "",
        "| option | MB | vs PyTorch sentence / span | vs exact | probes sentence / late | encode tok/s | late tok/s "
        "| verification |",
        "|---|---:|---|---:|---|---:|---:|---|",
    ]
    for r in rows:
        rel = ""
        if base is not None and r is not base:
            rel = f" ({r['encode'] / base['encode']:.2f}×)"  # type: ignore[operator]
        lines.append(
            f"| {r['option']} | {r['mb']:.0f} | {r['sent']:.4f} / {r['span']:.4f} | {r['exact']:.6f} | "
            f"{r['probe_sent']:.4f} / {r['probe_late']:.4f} | {r['encode']:,.0f}{rel} | {r['late']:,.0f} | "
            f"{r['failures']} |"
        )
    lines.append(END)
    write_section(args.out, BEGIN, END, "\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
