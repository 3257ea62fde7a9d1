#!/usr/bin/env python3
"""Encoder ONNX files against each other: raw onnxruntime speed, runs interleaved so machine noise hits all alike.

    .venv/bin/python build/bench/bench_encoder_ab.py A.onnx B.onnx [...] [--shape 2x405 --shape 1x1024] [--runs 6]

Each shape (batch x tokens of random ids, all attended) is run ``--runs`` times per file, the files taking turns,
after one warm-up each; prints the median tokens/s per file and shape, and the speed relative to the first file.
On a shared 2-core VM, timings of one file run after another drift by ±10 %; interleaving keeps the ratio honest.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort


def session(path: Path, threads: int) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.log_severity_level = 3
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--shape", action="append", help="BATCHxTOKENS (default: 2x405 and 1x1024)")
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    shapes = [tuple(int(x) for x in s.split("x")) for s in (args.shape or ["2x405", "1x1024"])]
    sessions = [session(p, args.threads) for p in args.models]
    rng = np.random.default_rng(0)
    for batch, tokens in shapes:
        ids = rng.integers(1000, 20000, size=(batch, tokens)).astype(np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        times: list[list[float]] = [[] for _ in sessions]
        for s in sessions:
            s.run(None, feeds)
        for _ in range(args.runs):
            for k, s in enumerate(sessions):
                t = time.perf_counter()
                s.run(None, feeds)
                times[k].append(time.perf_counter() - t)
        speeds = [batch * tokens / statistics.median(t) for t in times]
        for path, speed in zip(args.models, speeds, strict=True):
            print(f"{batch}x{tokens}  {speed:6.0f} tok/s  {speed / speeds[0]:.2f}x  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
