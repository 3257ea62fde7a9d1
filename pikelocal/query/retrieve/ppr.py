"""Personalized PageRank over a sparse graph (scipy.sparse), as HippoRAG ranks passages by the mass that flows to
them from the question's entities.

The walk: from a node, follow one of its edges (weighted), or with probability ``1 - damping`` jump back to a seed
(by the seed weights). A node with no edges jumps back to the seeds. The fixed point is found by power iteration on
the CSR matrix: a few dozen sparse matrix-vector products, each O(edges).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse  # type: ignore[import-untyped]

DAMPING = 0.5  # HippoRAG's damping factor: half the mass returns to the seeds at each step
Matrix = Any  # a scipy.sparse CSR matrix (scipy ships no type hints)


def symmetric(n: int, rows: NDArray[np.int64], cols: NDArray[np.int64], weights: NDArray[np.float64]) -> Matrix:
    """The n×n CSR matrix with ``weights`` at (rows, cols) and at (cols, rows); repeated pairs add up."""
    both_rows = np.concatenate([rows, cols]).astype(np.int64)
    both_cols = np.concatenate([cols, rows]).astype(np.int64)
    data = np.concatenate([weights, weights]).astype(np.float64)
    return sparse.csr_matrix((data, (both_rows, both_cols)), shape=(n, n))


def transition(adjacency: Matrix) -> tuple[Matrix, NDArray[np.bool_]]:
    """The row-stochastic transition matrix of a weighted adjacency matrix, and which rows had no edge."""
    out = np.asarray(adjacency.sum(axis=1)).ravel()
    dangling = out <= 0
    inv = np.zeros_like(out, dtype=np.float64)
    inv[~dangling] = 1.0 / out[~dangling]
    return sparse.csr_matrix(sparse.diags(inv) @ adjacency), dangling


@dataclass(frozen=True)
class Walk:
    """What every walk over one graph shares, prepared once: the transposed transition matrix (CSR, so each step
    is one sparse matrix-vector product) and the nodes without edges."""

    transposed: Matrix
    dangling: NDArray[np.int64]  # node indices

    @classmethod
    def of(cls, adjacency: Matrix) -> Walk:
        p, dangling = transition(adjacency)
        return cls(p.T.tocsr(), np.flatnonzero(dangling))

    @property
    def size(self) -> int:
        return int(self.transposed.shape[0])


def personalized_pagerank(
    graph: Matrix | Walk,
    seeds: NDArray[np.float64],
    *,
    damping: float = DAMPING,
    tol: float = 1e-9,
    max_iter: int = 200,
) -> NDArray[np.float64]:
    """Each node's stationary mass for a walk that restarts at ``seeds`` (non-negative weights, any scale); sums to
    1. All zeros when no seed has weight. ``graph``: an adjacency matrix, or its :class:`Walk` prepared once for
    many queries. Stops when a step moves less than ``tol`` of the mass (L1)."""
    walk = graph if isinstance(graph, Walk) else Walk.of(graph)
    n = walk.size
    if seeds.shape != (n,):
        raise ValueError(f"seeds has shape {seeds.shape}, the graph has {n} nodes")
    total = float(seeds.sum())
    if total <= 0:
        return np.zeros(n)
    s = seeds / total
    restart = (1.0 - damping) * s
    r = s.copy()
    for _ in range(max_iter):
        nxt = walk.transposed @ r
        nxt *= damping
        nxt += restart + (damping * r[walk.dangling].sum()) * s
        if np.abs(nxt - r).sum() < tol:
            return np.asarray(nxt)
        r = nxt
    return np.asarray(r)
