"""Reciprocal rank fusion, checked against hand-computed scores."""

import pytest

from pikelocal.query.fusion import reciprocal_rank_fusion


def test_scores_are_the_sum_of_weighted_reciprocal_ranks() -> None:
    fused = dict(reciprocal_rank_fusion({"bm25": ["a", "b", "c"], "dense": ["b", "d"]}, weights={"dense": 2.0}, k=10))
    assert fused["a"] == pytest.approx(1 / 11)
    assert fused["b"] == pytest.approx(1 / 12 + 2 / 11)
    assert fused["c"] == pytest.approx(1 / 13) and fused["d"] == pytest.approx(2 / 12)


def test_order_ties_duplicates_and_typos() -> None:
    # x counts its repeated 2 once, at rank 2: 1 and 3 both get 1/61 + 1/63 > 2's 2/62; the tie keeps 1 first.
    ranked = reciprocal_rank_fusion({"x": [1, 2, 2, 3], "y": [3, 2, 1]})
    assert [i for i, _ in ranked] == [1, 3, 2]
    assert ranked[0][1] == pytest.approx(1 / 61 + 1 / 63) and ranked[2][1] == pytest.approx(2 / 62)
    assert [i for i, _ in reciprocal_rank_fusion({"x": ["p", "q"], "y": ["q", "p"]})] == ["p", "q"]  # tie: first seen
    with pytest.raises(ValueError, match="unknown rankings"):
        reciprocal_rank_fusion({"bm25": [1]}, weights={"bm52": 1.0})
    assert reciprocal_rank_fusion({}) == []
