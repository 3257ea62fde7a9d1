"""The in-process batch width measured on this machine, kept per model, thread count and CPU.

``pikelocal calibrate`` measures llama.cpp's aggregate generation rate at 1, 2 and 4 sequences
(:func:`pikelocal.llm.ceiling.measure_widths`) and keeps the width :meth:`Ceiling.best_width` picks, so that
``llm.batch = 0`` (the default) batches exactly where batching pays: 1 on a CPU where it does not, 4 on a 2-core
Xeon with AVX-512 VNNI (2.6x at 4 sequences). Nothing measured means 1, today's one-sequence path.

The file is ``$XDG_CACHE_HOME/pikelocal/batch-width.json`` (``~/.cache/pikelocal/batch-width.json``): a cache,
not a setting; deleting it only costs the next calibration.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pikelocal.cpu import CPU_FLAGS, cpu_info
from pikelocal.domain.reports import Calibration

log = logging.getLogger(__name__)

WIDTH_FILE = "batch-width.json"


def width_file(env: Mapping[str, str] | None = None) -> Path | None:
    env = os.environ if env is None else env
    if env.get("XDG_CACHE_HOME"):
        return Path(env["XDG_CACHE_HOME"]) / "pikelocal" / WIDTH_FILE
    if env.get("HOME"):
        return Path(env["HOME"]) / ".cache" / "pikelocal" / WIDTH_FILE
    return None


def machine_key(model_id: str, threads: int, gpu_layers: int = 0) -> str:
    """What a measured width depends on: the model file, the threads, the offload, and the CPU and its kernels."""
    model, flags = cpu_info()
    kernels = " ".join(f for f in CPU_FLAGS if f in flags)
    cpu = hashlib.sha256(f"{model}|{kernels}".encode()).hexdigest()[:12]
    return f"{model_id}|threads={threads}|gpu_layers={gpu_layers}|cpu={cpu}"


def read_width(key: str, env: Mapping[str, str] | None = None) -> int | None:
    """The width kept for ``key``, or None (never measured, or the file unreadable: then 1 is used)."""
    path = width_file(env)
    if path is None or not path.is_file():
        return None
    try:
        entry = json.loads(path.read_text(encoding="utf-8")).get(key)
        width = int(entry["width"]) if isinstance(entry, dict) else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        log.warning("%s: cannot read the measured batch width (%s); using 1", path, exc)
        return None
    return width if width is not None and width >= 1 else None


def write_width(key: str, width: int, details: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Path:
    """Keep ``width`` for ``key`` (other keys stay), written whole or not at all."""
    path = width_file(env)
    if path is None:
        raise OSError("neither XDG_CACHE_HOME nor HOME is set: nowhere to keep the batch width")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[key] = {"width": width, **details}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)
    return path


def calibrate(
    path: Path,
    key: str,
    model_id: str,
    *,
    threads: int,
    gpu_layers: int,
    text: str,
    env: Mapping[str, str] | None = None,
) -> Calibration:
    """Measure ``path``'s generation rate at 1, 2 and 4 sequences on this machine and keep, under ``key``
    (:func:`machine_key`), the width that pays."""
    from pikelocal.llm.ceiling import measure_widths, raw_model

    with raw_model(path, threads=threads, n_ctx=1024, n_seq_max=4, gpu_layers=gpu_layers) as model:
        ceiling = measure_widths(model, text)
    width = ceiling.best_width()
    rates = {w: round(r, 2) for w, r in ceiling.generation_tps.items()}
    kept = write_width(key, width, {"rates": {str(w): r for w, r in rates.items()}, "cpu": cpu_info()[0]}, env)
    log.info("batch width %d for %s (%s)", width, model_id, rates)
    return Calibration(model_id, threads, rates, width, kept)
