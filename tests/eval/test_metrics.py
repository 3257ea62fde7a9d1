"""IR metrics, checked against hand-computed values."""

from __future__ import annotations

import math

import pytest

from pikelocal.eval.metrics import dedupe, mean, mrr_at_k, ndcg_at_k, recall_at_k

RANKED = ["a", "b", "c", "d"]
GRADES = {"a": 1, "c": 2, "e": 3}  # e is relevant but never retrieved


def test_ndcg_graded_example_by_hand() -> None:
    # DCG@3  = 1/log2(2) + 0/log2(3) + 2/log2(4) = 1 + 0 + 1 = 2
    # IDCG@3 = 3/log2(2) + 2/log2(3) + 1/log2(4) = 3 + 1.26186 + 0.5 = 4.76186  → nDCG@3 = 0.42000
    assert ndcg_at_k(RANKED, GRADES, 3) == pytest.approx(2 / (3 + 2 / math.log2(3) + 0.5))
    assert ndcg_at_k(RANKED, GRADES, 3) == pytest.approx(0.420004, abs=1e-6)
    # k=1: DCG = 1, IDCG = 3 (the best grade alone)
    assert ndcg_at_k(RANKED, GRADES, 1) == pytest.approx(1 / 3)
    # k=10: the cut-off beyond the list changes nothing in DCG, IDCG uses all three grades
    assert ndcg_at_k(RANKED, GRADES, 10) == pytest.approx(0.420004, abs=1e-6)


def test_ndcg_perfect_empty_and_duplicates() -> None:
    assert ndcg_at_k(["e", "c", "a"], GRADES, 3) == pytest.approx(1.0)
    assert ndcg_at_k(["e", "c", "a"], GRADES, 2) == pytest.approx(1.0)
    assert ndcg_at_k(RANKED, {}, 10) == 0.0
    assert ndcg_at_k(RANKED, {"a": 0, "b": -1}, 10) == 0.0  # no grade above 0: nothing relevant
    assert ndcg_at_k([], GRADES, 5) == 0.0
    # a repeated id counts once, at its first rank: ["a", "a", "c"]@2 is ["a", "c"]
    # DCG = 1 + 2/log2(3) = 2.26186; IDCG@2 = 3 + 2/log2(3) = 4.26186 → 0.53072
    assert ndcg_at_k(["a", "a", "c"], GRADES, 2) == pytest.approx((1 + 2 / math.log2(3)) / (3 + 2 / math.log2(3)))
    with pytest.raises(ValueError, match="k must be at least 1"):
        ndcg_at_k(RANKED, GRADES, 0)


def test_recall() -> None:
    relevant = {"a", "c", "e"}
    assert recall_at_k(RANKED, relevant, 1) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, relevant, 2) == pytest.approx(1 / 3)
    assert recall_at_k(RANKED, relevant, 3) == pytest.approx(2 / 3)
    assert recall_at_k(RANKED, relevant, 100) == pytest.approx(2 / 3)
    assert recall_at_k(["a", "a", "a", "c"], relevant, 2) == pytest.approx(2 / 3)  # duplicates take no slot
    assert recall_at_k(RANKED, set(), 10) == 0.0
    assert recall_at_k(RANKED, {"a": 1, "c": 0}, 10) == 1.0  # a mapping counts only grades > 0
    assert recall_at_k(RANKED, ["a", "a"], 1) == 1.0


def test_mrr() -> None:
    assert mrr_at_k(["b", "a", "c"], {"c", "a"}) == pytest.approx(1 / 2)
    assert mrr_at_k(["b", "a", "c"], {"c", "a"}, k=1) == 0.0
    assert mrr_at_k(["b", "a", "c"], {"c"}, k=3) == pytest.approx(1 / 3)
    assert mrr_at_k(["b", "b", "b", "a"], {"a"}, k=2) == pytest.approx(1 / 2)  # a is the 2nd distinct id
    assert mrr_at_k(["a"], {"a"}) == 1.0
    assert mrr_at_k(["b", "c"], {"a"}) == 0.0
    assert mrr_at_k(["b", "c"], set()) == 0.0


def test_dedupe_and_mean() -> None:
    assert dedupe(["d2", "d1", "d2", "d3", "d1"]) == ["d2", "d1", "d3"]
    assert dedupe([]) == []
    assert mean([1.0, 0.0, 0.5]) == pytest.approx(0.5)
    assert mean(x for x in (2.0, 4.0)) == pytest.approx(3.0)
    assert mean([]) == 0.0
