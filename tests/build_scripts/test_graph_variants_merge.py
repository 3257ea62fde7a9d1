"""``build/bench/bench_graph_variants.py``'s "dense top N, then the graph" ranking: dense's head is kept in order, the
graph's ranking follows, dense's rest comes last, and no chunk appears twice."""

from __future__ import annotations

from tests.support.build_scripts import load_build_script


def test_dense_head_then_graph_then_dense_rest_each_chunk_once() -> None:
    head_then = load_build_script("bench/bench_graph_variants").head_then
    dense = [(1, 0.9), (2, 0.8), (3, 0.7), (4, 0.6)]
    graph = [(5, 0.5), (2, 0.4), (6, 0.3), (1, 0.2)]
    assert head_then(dense, graph, 2) == [1, 2, 5, 6, 3, 4]
    assert head_then(dense, graph, 0) == [5, 2, 6, 1, 3, 4]
    assert head_then(dense, [], 3) == [1, 2, 3, 4]
