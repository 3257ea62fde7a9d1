"""Reciprocal rank fusion, checked against hand-computed scores."""

import pytest

from pikelocal.query.retrieve.fusion import reciprocal_rank_fusion, score_fusion


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


def test_min_max_score_fusion_keeps_the_size_of_a_score_gap() -> None:
    # dense: a 0.9 → 1, b 0.5 → 0, c 0.6 → 0.25; bm25: b 12 → 1, c 8 → 0 (a missing: 0).
    dense = [("a", 0.9), ("c", 0.6), ("b", 0.5)]
    bm25 = [("b", 12.0), ("c", 8.0)]
    fused = dict(score_fusion({"dense": dense, "bm25": bm25}, weights={"bm25": 0.5}))
    assert fused["a"] == pytest.approx(1.0)
    assert fused["b"] == pytest.approx(0.5)
    assert fused["c"] == pytest.approx(0.25)
    # RRF with the same weights puts b (1st and 3rd) above a (1st of one list only): the gap is lost
    rrf = [i for i, _ in reciprocal_rank_fusion({"dense": ["a", "c", "b"], "bm25": ["b", "c"]}, weights={"bm25": 0.5})]
    scored = [i for i, _ in score_fusion({"dense": dense, "bm25": bm25}, weights={"bm25": 0.5})]
    assert rrf[0] == "c" and scored[0] == "a"


def test_z_score_fusion_maps_three_sigma_either_side_of_the_mean_and_clips() -> None:
    # scores 1, 2, 3: mean 2, σ = sqrt(2/3); 1 → (1 − (2 − 3σ)) / 6σ = 0.5 − 1/(6σ)
    sigma = (2 / 3) ** 0.5
    fused = dict(score_fusion({"dense": [("x", 3.0), ("y", 2.0), ("z", 1.0)]}, norm="zscore"))
    assert fused["y"] == pytest.approx(0.5)
    assert fused["x"] == pytest.approx(0.5 + 1 / (6 * sigma)) and fused["z"] == pytest.approx(0.5 - 1 / (6 * sigma))
    one = dict(score_fusion({"dense": [("x", 3.0)], "bm25": [("x", 5.0), ("x", 1.0)]}, norm="zscore"))
    assert one["x"] == pytest.approx(2.0)  # a single score (σ = 0) counts in full; a repeat counts at its best
    with pytest.raises(ValueError, match="normalisation"):
        score_fusion({"dense": dense_list()}, norm="rank")
    with pytest.raises(ValueError, match="unknown rankings"):
        score_fusion({"dense": dense_list()}, weights={"bm52": 1.0})
    assert score_fusion({}) == []


def dense_list() -> list[tuple[str, float]]:
    return [("a", 1.0)]
