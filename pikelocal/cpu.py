"""What this CPU is, as far as model numerics and speed care (``doctor``, encoder build descriptions)."""

from __future__ import annotations

import platform
from functools import lru_cache
from pathlib import Path

# Features that choose llama.cpp's and onnxruntime's kernels. Without a VNNI flag, onnxruntime's U8S8 integer
# GEMM runs on VPMADDUBSW, whose int16 pair sums saturate (see build/export_embeddinggemma.py).
CPU_FLAGS = ("avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni", "avx_vnni", "amx_tile")
VNNI_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")


@lru_cache(maxsize=1)
def cpu_info() -> tuple[str, frozenset[str]]:
    """The CPU's model name and feature flags (from /proc/cpuinfo; empty flags elsewhere)."""
    model, flags = platform.processor() or platform.machine(), frozenset[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value:
                model = value.strip()
            elif key.strip() == "flags":
                flags = frozenset(value.split())
                break
    except OSError:
        pass
    return model, flags


def cpu_summary() -> str:
    """E.g. 'AMD EPYC, avx2 fma, no VNNI' — enough to tell which integer kernels ran."""
    model, flags = cpu_info()
    shown = " ".join(f for f in CPU_FLAGS if f in flags) or "no SIMD flags known"
    vnni = "VNNI" if any(f in flags for f in VNNI_FLAGS) else "no VNNI"
    return f"{model}, {shown}, {vnni}"
