"""Groups of close vectors for a RAPTOR level (``ingest/enrich/trees.py``): k-means with a fixed seed, so a rebuilt
level plans the same groups (and the LLM cache answers them). scipy's ``kmeans2`` does the work."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

SEED = 20


def group(vectors: NDArray[np.float32], size: int) -> list[list[int]]:
    """Row indices of ``vectors`` in groups of about ``size`` close rows (unit vectors: cosine by Euclid), each group
    in ascending order, groups ordered by their first row, none bigger than ``size``. One group when there are at most
    ``size`` rows."""
    n = len(vectors)
    if n == 0:
        return []
    if n <= size:
        return [list(range(n))]
    from scipy.cluster.vq import kmeans2  # type: ignore[import-untyped]  # only tree building needs it

    k = math.ceil(n / size)
    data = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    data = data / np.where(norms > 0, norms, 1.0)
    _, labels = kmeans2(data, k, minit="++", seed=SEED)
    groups: dict[int, list[int]] = {}
    for row, label in enumerate(labels.tolist()):
        groups.setdefault(int(label), []).append(row)
    # k-means may lump many rows together: a summary reads about ``size`` parts well, so cut big groups up
    cut = [g[i : i + size] for g in groups.values() for i in range(0, len(g), size)] if size > 0 else []
    return sorted(cut, key=lambda g: g[0])
