"""Context assembly on a real KB, by relevant segments and by neighbours: within the budget, the first chunk kept,
touching chunks merged in document order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.domain.documents import ChunkRecord
from pikelocal.query.context.expand import Budget, assemble, estimate_tokens
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build, chunk_with


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("expand"), questions=False)


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


def section(store: Store, n: int) -> ChunkRecord:
    return chunk_with(store, f"Step {n} of the pump")


def test_a_picked_chunk_comes_with_its_neighbours_as_one_passage(store: Store) -> None:
    s4, s5, s6 = (section(store, n) for n in (4, 5, 6))
    (source,) = assemble(store, [s5.id], Budget(tokens=2000, neighbours=1, context="neighbours"))
    assert source.chunk_ids == (s4.id, s5.id, s6.id)  # document order, not priority order
    assert (source.line_start, source.line_end) == (s4.line_start, s6.line_end)
    assert source.text.index("Step 4") < source.text.index("Step 5") < source.text.index("Step 6")
    assert source.location() == f"manual.md, p. 1, lines {s4.line_start}–{s6.line_end}"
    assert source.section == s4.section_path


def test_sources_are_numbered_by_priority_and_documents_stay_apart(store: Store) -> None:
    bid = chunk_with(store, "五万元")
    s2 = section(store, 2)
    sources = assemble(store, [s2.id, bid.id], Budget(tokens=2000, neighbours=0, context="neighbours"))
    assert [s.chunk_ids for s in sources] == [(s2.id,), (bid.id,)]
    assert [s.number for s in sources] == [1, 2]
    assert sources[1].path.endswith("bid_bond.md")


def test_touching_picks_merge_and_a_gap_splits(store: Store) -> None:
    s2, s3, s6 = (section(store, n) for n in (2, 3, 6))
    sources = assemble(store, [s6.id, s3.id, s2.id], Budget(tokens=2000, neighbours=0, context="neighbours"))
    assert [s.chunk_ids for s in sources] == [(s6.id,), (s2.id, s3.id)]


def test_the_budget_limits_neighbours_but_keeps_the_first_pick(store: Store) -> None:
    s5 = section(store, 5)
    just_one = estimate_tokens(s5.text) + 12
    (source,) = assemble(store, [s5.id], Budget(tokens=just_one, neighbours=2, context="neighbours"))
    assert source.chunk_ids == (s5.id,)
    tiny = assemble(store, [s5.id, section(store, 1).id], Budget(tokens=20, neighbours=1, context="neighbours"))
    assert [s.chunk_ids for s in tiny] == [(s5.id,)]  # the second pick does not fit at all
    assert tiny[0].text.endswith(" …") and len(tiny[0].text) < len(s5.text)


def test_a_pdf_source_keeps_its_pages_and_lines(store: Store) -> None:
    flood = chunk_with(store, "flood, fire")
    (source,) = assemble(store, [flood.id], Budget(tokens=2000, neighbours=0, context="neighbours"))
    assert (source.page_start, source.page_end) == (2, 2)
    assert (source.line_start, source.line_end) == (2, 3)
    assert source.location() == "contract.pdf, p. 2, lines 2–3"


def test_a_passage_that_starts_inside_a_table_names_the_columns_first() -> None:
    from pikelocal.domain.documents import DocumentRecord
    from pikelocal.query.context.expand import build_sources

    doc = DocumentRecord(7, "/kb/boq.xlsx", "0" * 64, "Bill of quantities", None, "xlsx", None, "ready", None, "", "")
    head = "| Item | Unit | Quantity |\n|---|---|---|"
    rows = "| Pipe DN150 | m | 120 |\n| Valve DN150 | pc | 4 |\n"
    continuing = ChunkRecord(1, 7, 3, rows, 900, 950, None, None, 40, 41, ("Sheet 1",), f"Bill › Sheet 1\n{head}", None)
    prose = ChunkRecord(2, 7, 9, "Prices include VAT.\n", 2000, 2020, None, None, 90, 90, (), f"Bill\n{head}", None)
    first, second = build_sources([continuing, prose], [1, 2], {7: doc}, budget_tokens=500)
    assert first.text == f"{head}\n{rows}"
    assert second.text == "Prices include VAT.\n"  # not a table row: no header put before it
    assert (first.line_start, first.line_end) == (40, 41)  # the citation still points at the rows themselves


def segments(tokens: int) -> Budget:
    return Budget(tokens=tokens, context="segments")  # the balanced preset: penalty 0.18, decay 30, min 0.5


def cost(chunks: list[ChunkRecord]) -> int:
    return sum(estimate_tokens(c.text) for c in chunks) + 12  # one "[n] heading" per segment


def test_a_segment_spans_an_unranked_chunk_between_two_ranked_ones(store: Store) -> None:
    s3, s4, s5 = (section(store, n) for n in (3, 4, 5))
    # by rank alone: s5 is worth 1 - 0.18 = 0.82, s3 e^(-1/30) - 0.18 = 0.787, s4 (unranked) -0.18;
    # s3-s5 = 1.427 beats s5 alone, so one source in document order
    (source,) = assemble(store, [s5.id, s3.id], segments(2000))
    assert source.chunk_ids == (s3.id, s4.id, s5.id)
    assert (source.line_start, source.line_end) == (s3.line_start, s5.line_end)


def test_ranked_chunks_too_far_apart_stay_two_sources_numbered_by_rank(store: Store) -> None:
    s1, s8 = section(store, 1), section(store, 8)
    # s1-s8 would be 0.82 + 0.787 - 6 · 0.18 = 0.527, less than s1 alone: s8 (0.787 >= 0.5) comes on its own
    sources = assemble(store, [s8.id, s1.id], segments(2000))
    assert [s.chunk_ids for s in sources] == [(s8.id,), (s1.id,)]
    assert [s.number for s in sources] == [1, 2]


def test_segments_respect_the_budget_and_keep_the_first_chunk(store: Store) -> None:
    s3, s4, s5 = (section(store, n) for n in (3, 4, 5))
    # room for s5 and a few tokens: s3-s5 and s3 alone no longer fit, s5 (the first) does
    (source,) = assemble(store, [s5.id, s3.id], segments(cost([s5]) + 5))
    assert source.chunk_ids == (s5.id,)
    # room for s3-s5 exactly: the run fits and is taken
    (source,) = assemble(store, [s5.id, s3.id], segments(cost([s3, s4, s5])))
    assert source.chunk_ids == (s3.id, s4.id, s5.id)
    # the first chunk is kept even when it alone is larger than the budget, cut to it
    (tiny,) = assemble(store, [s5.id, s3.id], segments(20))
    assert tiny.chunk_ids == (s5.id,) and tiny.text.endswith(" …") and len(tiny.text) < len(s5.text)


def test_segments_of_a_whole_ranking_stay_within_the_budget(store: Store) -> None:
    everything = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
    first = section(store, 6)
    ranking = [(first.id, None), *((c.id, None) for c in everything if c.id != first.id)]
    for tokens in (120, 300, 700):
        sources = assemble(store, [first.id], segments(tokens), ranking=ranking)
        assert first.id in sources[0].chunk_ids
        assert sum(estimate_tokens(s.text) + 12 for s in sources) <= tokens
        ids = [cid for s in sources for cid in s.chunk_ids]
        assert len(ids) == len(set(ids))


def test_first_only_adds_the_segment_holding_the_pick_without_what_is_already_read(store: Store) -> None:
    s2, s3, s4, s5 = (section(store, n) for n in (2, 3, 4, 5))
    bid = chunk_with(store, "五万元")
    ranking = [(s4.id, None), (bid.id, 0.9), (s2.id, 0.9), (s5.id, 0.9)]
    # s3 is already read (excluded): s4-s5 is the run holding s4 (s2 is cut off by the gap); bid is not added
    (source,) = assemble(store, [s4.id], segments(2000), exclude={s3.id}, ranking=ranking, first_only=True)
    assert source.chunk_ids == (s4.id, s5.id)
