"""Relevant segment extraction's pure functions on small hand-made value arrays; every expected segment and value
is worked out by hand in the comments beside it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from pikelocal.domain.search import SegmentCell, SegmentSpan
from pikelocal.query.context.segments import (
    PRESETS,
    SegmentParams,
    best_segments,
    chunk_values,
    top_documents,
    unranked_value,
    window_ords,
)

# Only max_length, overall_max_length and minimum_value matter to best_segments (the values are given).
PARAMS = SegmentParams(max_length=3, overall_max_length=10, minimum_value=0.5, irrelevant_chunk_penalty=0.2,
                       decay_rate=30, top_k_documents=10)  # fmt: skip
VALUES = [0.9, -0.2, 0.8, -0.2, -0.2, 0.6, 0.1]  # document 1, positions 0-6


def cells(values: Sequence[float], doc: int = 1, tokens: int = 10, start: int = 0) -> list[SegmentCell]:
    return [SegmentCell(doc, start + i, v, tokens) for i, v in enumerate(values)]


def spans(found: list[SegmentSpan]) -> list[tuple[int, int, int, float]]:
    return [(s.doc_id, s.first_ord, s.last_ord, round(s.value, 9)) for s in found]


def test_a_chunk_is_worth_its_decayed_relative_score_less_the_penalty() -> None:
    balanced = PRESETS["balanced"]  # penalty 0.18, decay 30
    values = chunk_values([(10, 0.04), (11, 0.02), (12, None), (10, 0.01)], balanced)
    assert values[10] == pytest.approx(1.0 * 1.0 - 0.18)  # rank 0, the top score: 0.82
    assert values[11] == pytest.approx(math.exp(-1 / 30) * 0.5 - 0.18)  # half the top score: 0.30361
    assert values[12] == pytest.approx(math.exp(-2 / 30) * 1.0 - 0.18)  # no score: rank alone, 0.75551
    assert list(values) == [10, 11, 12]  # the repeat of 10 keeps its first, best rank
    assert unranked_value(balanced) == -0.18


def test_scores_with_no_positive_top_leave_the_rank_alone() -> None:
    values = chunk_values([(1, -3.0), (2, -5.0)], PRESETS["balanced"])
    assert values[1] == pytest.approx(0.82)
    assert values[2] == pytest.approx(math.exp(-1 / 30) - 0.18)  # 0.78722


def test_the_best_run_spans_a_weak_chunk_between_two_good_ones() -> None:
    # runs of at most 3 that start and end on a non-negative value:
    # 0-2: 0.9 - 0.2 + 0.8 = 1.5 (best), 5-6: 0.6 + 0.1 = 0.7, 0: 0.9, 2: 0.8, 5: 0.6, 6: 0.1
    # after 0-2 is taken: 5-6 (0.7 >= 0.5); then only 3 and 4 are left, both negative: done
    assert spans(best_segments(cells(VALUES), PARAMS, 1000)) == [(1, 0, 2, 1.5), (1, 5, 6, 0.7)]


def test_max_length_caps_each_segment() -> None:
    two = SegmentParams(2, 10, 0.5, 0.2, 30, 10)
    # 0-2 is now too long and 0-1 ends on -0.2: 0 (0.9), then 2 (0.8), then 5-6 (0.7)
    assert spans(best_segments(cells(VALUES), two, 1000)) == [(1, 0, 0, 0.9), (1, 2, 2, 0.8), (1, 5, 6, 0.7)]


def test_the_token_budget_caps_the_whole() -> None:
    # 10 tokens a chunk, 25 in all: 0-2 (30) cannot be taken; 0 (10) then 2 (10); 5 tokens left fit nothing
    found = best_segments(cells(VALUES), PARAMS, 25)
    assert spans(found) == [(1, 0, 0, 0.9), (1, 2, 2, 0.8)]
    assert sum(s.tokens for s in found) <= 25
    # with 3 tokens of overhead a segment: 0 costs 13, 2 costs 13 (26 > 25), 5-6 costs 23 > 12: only 0
    assert spans(best_segments(cells(VALUES), PARAMS, 25, overhead=3)) == [(1, 0, 0, 0.9)]


def test_overall_max_length_caps_the_chunks_in_all() -> None:
    two_in_all = SegmentParams(3, 2, 0.5, 0.2, 30, 10)
    # 0-2 is 3 chunks: out; 0 (0.9) is best of what fits in 2; then 1 chunk left: 2 (0.8); then 2 used: done
    assert spans(best_segments(cells(VALUES), two_in_all, 1000)) == [(1, 0, 0, 0.9), (1, 2, 2, 0.8)]


def test_a_segment_worth_less_than_the_minimum_ends_the_search() -> None:
    strict = SegmentParams(3, 10, 0.75, 0.2, 30, 10)
    assert spans(best_segments(cells(VALUES), strict, 1000)) == [(1, 0, 2, 1.5)]  # 5-6 is worth 0.7 < 0.75


def test_segments_never_overlap_nor_cross_a_gap_or_a_document() -> None:
    # document 2 holds positions 0, 1 and 3 (2 is missing); document 3 holds position 2 right after 2:1
    grid = [*cells([0.6, 0.6], doc=2), *cells([0.9], doc=2, start=3), *cells([0.5], doc=3, start=2)]
    # 2:0-1 = 1.2, then 2:3 = 0.9 (not 2:0-3: position 2 is missing), then 3:2 = 0.5 (not joined to 2:1)
    found = best_segments(grid, PARAMS, 1000)
    assert spans(found) == [(2, 0, 1, 1.2), (2, 3, 3, 0.9), (3, 2, 2, 0.5)]
    covered = [
        (s.doc_id, o)
        for s in best_segments(cells(VALUES * 3), PARAMS, 1000)
        for o in range(s.first_ord, s.last_ord + 1)
    ]
    assert len(covered) == len(set(covered))


def test_the_chunk_to_keep_is_in_the_first_segment_whatever_its_value() -> None:
    # holding position 5 within 3 chunks: 5 (0.6) or 5-6 (0.7) (3-5 and 4-5 start negative): 5-6; then 0-2 (1.5)
    assert spans(best_segments(cells(VALUES), PARAMS, 1000, keep=(1, 5))) == [(1, 5, 6, 0.7), (1, 0, 2, 1.5)]
    # position 6 (0.1) is below the minimum but kept: 5-6 again, as the one holding it
    assert spans(best_segments(cells(VALUES), PARAMS, 1000, keep=(1, 6)))[0] == (1, 5, 6, 0.7)


def test_a_chunk_to_keep_larger_than_the_budget_is_kept_alone() -> None:
    found = best_segments(cells(VALUES), PARAMS, 5, keep=(1, 0))  # 10 tokens, 5 allowed: alone, nothing else
    assert spans(found) == [(1, 0, 0, 0.9)] and found[0].tokens == 10


def test_window_ords_are_the_ranked_positions_and_the_gaps_a_segment_can_span() -> None:
    assert window_ords([20, 3, 5], max_length=4) == [3, 4, 5, 20]  # 5 → 20 is 15 apart: no segment spans it
    assert window_ords([20, 3, 5], max_length=16) == list(range(3, 21))


def test_top_documents_are_those_of_the_first_ranked_chunks() -> None:
    assert top_documents([7, 7, 3, 9, 3], SegmentParams(15, 30, 0.5, 0.18, 30, 3)) == [7, 3]


def test_presets_differ_as_intended() -> None:
    balanced, precision, find_all = PRESETS["balanced"], PRESETS["precision"], PRESETS["find_all"]
    assert precision.minimum_value > balanced.minimum_value > find_all.minimum_value
    assert precision.irrelevant_chunk_penalty > balanced.irrelevant_chunk_penalty
    assert find_all.max_length > balanced.max_length and find_all.overall_max_length > balanced.overall_max_length
    # A: rank 0, the top score; B: rank 1 at 0.75 of it; C: rank 40 at the top score; ranks 2-39 score 0
    ranking = [(1, 1.0), (2, 0.75), *((100 + r, 0.0) for r in range(2, 40)), (3, 1.0)]
    # balanced  A 0.82, B e^(-1/30)·0.75 - 0.18 = 0.5454, C e^(-40/30) - 0.18 = 0.0836: A and B are >= 0.5
    # precision A 0.80, B 0.5254, C 0.0636: only A is >= 0.7
    # find_all  A 0.82, B e^(-1/200)·0.75 - 0.18 = 0.5663, C e^(-40/200) - 0.18 = 0.6387: all three are >= 0.4
    expected = {"balanced": [1, 2], "precision": [1], "find_all": [1, 3, 2]}
    for name, docs in expected.items():
        params = PRESETS[name]  # type: ignore[index]
        values = chunk_values(ranking, params)
        grid = [SegmentCell(doc, 0, values[doc], 10) for doc in (1, 2, 3)]  # each chunk alone in its document
        assert [s.doc_id for s in best_segments(grid, params, 1000)] == docs, name
