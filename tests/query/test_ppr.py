"""Personalized PageRank (query/retrieve/ppr.py) on hand-made graphs with ranks computed by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from pikelocal.query.retrieve.ppr import personalized_pagerank


def undirected(n: int, edges: list[tuple[int, int, float]]) -> sparse.csr_matrix:
    rows = [a for a, b, _ in edges] + [b for a, b, _ in edges]
    cols = [b for a, b, _ in edges] + [a for a, b, _ in edges]
    data = [w for *_, w in edges] * 2
    return sparse.csr_matrix((data, (rows, cols)), shape=(n, n))


def test_a_path_seeded_at_one_end() -> None:
    # a - b - c, seed a, damping 1/2. By hand: r_a = 1/2 + 1/2 (r_b / 2), r_b = 1/2 (r_a + r_c), r_c = 1/2 (r_b / 2)
    # gives r_c = r_b / 4, r_b = 4/7 r_a, r_a = 7/12: (7/12, 1/3, 1/12).
    r = personalized_pagerank(undirected(3, [(0, 1, 1.0), (1, 2, 1.0)]), np.array([1.0, 0.0, 0.0]))
    assert r == pytest.approx([7 / 12, 1 / 3, 1 / 12], abs=1e-9)


def test_edge_weights_steer_the_walk() -> None:
    # a star: centre 0 seeded, leaves 1 (weight 3) and 2 (weight 1). By hand: r_1 = 1/2 (3/4 r_0) = 3/8 r_0 (each
    # leaf walks back to 0 only), r_2 = 1/8 r_0, r_0 = 1/2 + 1/2 (r_1 + r_2) = 1/2 + 1/4 r_0 → r_0 = 2/3.
    r = personalized_pagerank(undirected(3, [(0, 1, 3.0), (0, 2, 1.0)]), np.array([1.0, 0.0, 0.0]))
    assert r == pytest.approx([2 / 3, 1 / 4, 1 / 12], abs=1e-9)


def test_a_dangling_node_returns_its_mass_to_the_seeds() -> None:
    # 0 -> 1 directed, 1 has no edge. r_1 = 1/2 r_0; r_0 = 1/2 + 1/2 r_1 (the dangling mass goes back to seed 0)
    # → r_0 = 1/2 + 1/4 r_0 → r_0 = 2/3, r_1 = 1/3.
    adj = sparse.csr_matrix(([1.0], ([0], [1])), shape=(2, 2))
    r = personalized_pagerank(adj, np.array([1.0, 0.0]))
    assert r == pytest.approx([2 / 3, 1 / 3], abs=1e-9)


def test_two_seeds_share_the_restart_by_weight_and_no_seed_gives_zeros() -> None:
    adj = undirected(4, [(0, 1, 1.0), (2, 3, 1.0)])  # two separate edges
    r = personalized_pagerank(adj, np.array([3.0, 0.0, 1.0, 0.0]))
    # each component keeps its seed's share; within one, as a two-node path: seed 2/3, other 1/3
    assert r == pytest.approx([0.75 * 2 / 3, 0.75 / 3, 0.25 * 2 / 3, 0.25 / 3], abs=1e-9)
    assert personalized_pagerank(adj, np.zeros(4)).tolist() == [0.0] * 4
    with pytest.raises(ValueError, match="shape"):
        personalized_pagerank(adj, np.zeros(3))
