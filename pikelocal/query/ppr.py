"""Personalized PageRank over a sparse graph (scipy.sparse), as HippoRAG ranks passages by the mass that flows to
them from the question's entities.

The walk: from a node, follow one of its edges (weighted), or with probability ``1 - damping`` jump back to a seed
(by the seed weights). A node with no edges jumps back to the seeds. The fixed point is found by power iteration on
the CSR matrix: a few dozen sparse matrix-vector products, each O(edges).
"""

from __future__ import annotations

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


def personalized_pagerank(
    adjacency: Matrix,
    seeds: NDArray[np.float64],
    *,
    damping: float = DAMPING,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> NDArray[np.float64]:
    """Each node's stationary mass for a walk that restarts at ``seeds`` (non-negative weights, any scale); sums to
    1. All zeros when no seed has weight."""
    n = adjacency.shape[0]
    if seeds.shape != (n,):
        raise ValueError(f"seeds has shape {seeds.shape}, the graph has {n} nodes")
    total = float(seeds.sum())
    if total <= 0:
        return np.zeros(n)
    s = seeds / total
    p, dangling = transition(adjacency)
    pt = p.T.tocsr()
    r = s.copy()
    for _ in range(max_iter):
        nxt = damping * (pt @ r + r[dangling].sum() * s) + (1.0 - damping) * s
        if np.abs(nxt - r).sum() < tol:
            return np.asarray(nxt)
        r = nxt
    return np.asarray(r)
