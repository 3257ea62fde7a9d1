"""Context assembly on a real KB: neighbours within the budget, touching chunks merged in document order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.domain.documents import ChunkRecord
from pikelocal.query.expand import Budget, assemble, estimate_tokens
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
    (source,) = assemble(store, [s5.id], Budget(tokens=2000, neighbours=1))
    assert source.chunk_ids == (s4.id, s5.id, s6.id)  # document order, not priority order
    assert (source.line_start, source.line_end) == (s4.line_start, s6.line_end)
    assert source.text.index("Step 4") < source.text.index("Step 5") < source.text.index("Step 6")
    assert source.location() == f"manual.md, p. 1, lines {s4.line_start}–{s6.line_end}"
    assert source.section == s4.section_path


def test_sources_are_numbered_by_priority_and_documents_stay_apart(store: Store) -> None:
    bid = chunk_with(store, "五万元")
    s2 = section(store, 2)
    sources = assemble(store, [s2.id, bid.id], Budget(tokens=2000, neighbours=0))
    assert [s.chunk_ids for s in sources] == [(s2.id,), (bid.id,)]
    assert [s.number for s in sources] == [1, 2]
    assert sources[1].path.endswith("bid_bond.md")


def test_touching_picks_merge_and_a_gap_splits(store: Store) -> None:
    s2, s3, s6 = (section(store, n) for n in (2, 3, 6))
    sources = assemble(store, [s6.id, s3.id, s2.id], Budget(tokens=2000, neighbours=0))
    assert [s.chunk_ids for s in sources] == [(s6.id,), (s2.id, s3.id)]


def test_the_budget_limits_neighbours_but_keeps_the_first_pick(store: Store) -> None:
    s5 = section(store, 5)
    just_one = estimate_tokens(s5.text) + 12
    (source,) = assemble(store, [s5.id], Budget(tokens=just_one, neighbours=2))
    assert source.chunk_ids == (s5.id,)
    tiny = assemble(store, [s5.id, section(store, 1).id], Budget(tokens=20, neighbours=1))
    assert [s.chunk_ids for s in tiny] == [(s5.id,)]  # the second pick does not fit at all
    assert tiny[0].text.endswith(" …") and len(tiny[0].text) < len(s5.text)


def test_a_pdf_source_keeps_its_pages_and_lines(store: Store) -> None:
    flood = chunk_with(store, "flood, fire")
    (source,) = assemble(store, [flood.id], Budget(tokens=2000, neighbours=0))
    assert (source.page_start, source.page_end) == (2, 2)
    assert (source.line_start, source.line_end) == (2, 3)
    assert source.location() == "contract.pdf, p. 2, lines 2–3"


def test_a_passage_that_starts_inside_a_table_names_the_columns_first() -> None:
    from pikelocal.domain.documents import DocumentRecord
    from pikelocal.query.expand import build_sources

    doc = DocumentRecord(7, "/kb/boq.xlsx", "0" * 64, "Bill of quantities", None, "xlsx", None, "ready", None, "", "")
    head = "| Item | Unit | Quantity |\n|---|---|---|"
    rows = "| Pipe DN150 | m | 120 |\n| Valve DN150 | pc | 4 |\n"
    continuing = ChunkRecord(1, 7, 3, rows, 900, 950, None, None, 40, 41, ("Sheet 1",), f"Bill › Sheet 1\n{head}", None)
    prose = ChunkRecord(2, 7, 9, "Prices include VAT.\n", 2000, 2020, None, None, 90, 90, (), f"Bill\n{head}", None)
    first, second = build_sources([continuing, prose], [1, 2], {7: doc}, budget_tokens=500)
    assert first.text == f"{head}\n{rows}"
    assert second.text == "Prices include VAT.\n"  # not a table row: no header put before it
    assert (first.line_start, first.line_end) == (40, 41)  # the citation still points at the rows themselves
