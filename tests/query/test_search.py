"""Chunk search over a real KB built with the fake encoder: each mode, fusion, weights, hit fields, edge cases."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.domain.documents import DocumentRecord
from pikelocal.domain.errors import InputError
from pikelocal.domain.kinds import FUSED_SOURCES, SEARCH_MODES
from pikelocal.domain.search import Hit
from pikelocal.ingest.pipeline import Ingestor
from pikelocal.query.retrieve import search as search_module
from pikelocal.query.retrieve.fusion import RRF_K, reciprocal_rank_fusion
from pikelocal.query.retrieve.search import rankings, search
from pikelocal.store.store import Store
from tests.support.search_corpus import (
    DOCS,
    ENC,
    OPTIONS,
    PDF_PAGES,
    add_stand_in_entities,
    add_stand_in_questions,
    make_pdf,
)

# what hybrid fuses by default: every ranking but the graph's, which needs a weight (search.graph_weight)
DEFAULT_FUSED = tuple(s for s in FUSED_SOURCES if s != "graph")
TOPICS = {  # query → the file about it
    "投标保证金": "bid_bond.md",
    "履约保证金": "performance_bond.md",
    "termination clause": "termination.md",
    "delivery schedule": "delivery.md",
    "force majeure": "contract.pdf",
}


def build_kb(root: Path) -> tuple[Path, Path]:
    """Write the corpus under ``root/docs`` and ingest it into ``root/kb.sqlite``; (kb path, folder)."""
    folder = root / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "contract.pdf").write_bytes(make_pdf(PDF_PAGES))
    kb = root / "kb.sqlite"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        report = Ingestor(store, ENC, OPTIONS).ingest_paths([folder])
        assert report.count("ingested") == len(DOCS) + 1 and not report.failed
        add_stand_in_questions(store)
        add_stand_in_entities(store)
    return kb, folder


@pytest.fixture(scope="module")
def kb_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_kb(tmp_path_factory.mktemp("search"))


@pytest.fixture
def store(kb_files: tuple[Path, Path]) -> Iterator[Store]:
    with Store.open(kb_files[0], encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[tuple[Store, Path]]:
    """A KB of its own, for tests that change it."""
    kb, folder = build_kb(tmp_path)
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as s:
        yield s, folder


def doc_named(store: Store, name: str) -> DocumentRecord:
    (doc,) = [d for d in store.docs.documents() if Path(d.path).name == name]
    return doc


def marked(hit: Hit) -> list[str]:
    return [hit.snippet.text[s:e] for s, e in hit.snippet.marks]


def hand_rrf(lists: dict[str, list[int]], weights: dict[str, float]) -> dict[int, float]:
    scores: dict[int, float] = {}
    for name, ids in lists.items():
        for rank, cid in enumerate(ids, start=1):
            scores[cid] = scores.get(cid, 0.0) + weights.get(name, 1.0) / (RRF_K + rank)
    return scores


# --- every mode finds the topic ------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("query", TOPICS)
def test_the_document_about_the_topic_ranks_first(store: Store, mode: str, query: str) -> None:
    hits = search(store, ENC, query, mode=mode, k=5)  # type: ignore[arg-type]
    assert hits, f"{mode} found nothing for {query!r}"
    assert Path(hits[0].document.path).name == TOPICS[query]


@pytest.mark.parametrize(("term", "name"), [("投标保证金", "bid_bond.md"), ("liquidated", "delivery.md")])
def test_bm25_on_a_term_of_one_document_returns_only_its_chunks_that_hold_it(
    store: Store, term: str, name: str
) -> None:
    doc = doc_named(store, name)
    holding = {c.id for c in store.chunks.chunks_of(doc.id) if term in (c.header + "\n" + c.text).lower()}
    assert holding  # by construction
    hits = search(store, ENC, term, mode="bm25", k=50)
    assert {h.chunk.id for h in hits} == holding
    assert {h.document.id for h in hits} == {doc.id}
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(set(h.ranks) == {"bm25"} for h in hits)
    assert [h.ranks["bm25"] for h in hits] == list(range(1, len(hits) + 1))


def test_bm25_without_a_matching_term_finds_nothing_while_dense_ranks_everything(store: Store) -> None:
    assert search(store, ENC, "zebra", mode="bm25") == []
    n_chunks = sum(store.chunks.chunk_counts().values())
    for mode in ("dense", "late"):
        hits = search(store, ENC, "zebra", mode=mode, k=100)  # type: ignore[arg-type]
        assert len(hits) == n_chunks
        assert len({h.chunk.id for h in hits}) == n_chunks


# --- hybrid: fusion, ranks, weights, candidates --------------------------------------------------------------


@pytest.mark.parametrize("query", ["termination", "保证金 delivery", "投标保证金"])
def test_hybrid_is_the_rrf_of_the_single_mode_rankings(store: Store, query: str) -> None:
    ranked = rankings(store, ENC, query, FUSED_SOURCES, 50)
    assert set(ranked) == set(FUSED_SOURCES)
    lists = {name: [cid for cid, _ in lst] for name, lst in ranked.items()}
    # The single-mode searches return these same rankings.
    for mode in FUSED_SOURCES:
        assert [h.chunk.id for h in search(store, ENC, query, mode=mode, k=50)] == lists[mode]  # type: ignore[arg-type]

    hits = search(store, ENC, query, mode="hybrid", k=50)
    # the graph's ranking is fused only when it is given a weight (search.graph_weight, 0 by default)
    expected = reciprocal_rank_fusion({name: ids for name, ids in lists.items() if name != "graph"})
    assert [h.chunk.id for h in hits] == [cid for cid, _ in expected]
    with_graph = search(store, ENC, query, mode="hybrid", k=50, weights={"graph": 1.0})
    expected = reciprocal_rank_fusion(lists)
    hits = with_graph
    assert [h.chunk.id for h in hits] == [cid for cid, _ in expected]
    by_hand = hand_rrf(lists, {})
    for h in hits:
        assert h.score == pytest.approx(by_hand[h.chunk.id])
        found_by = {name for name, ids in lists.items() if h.chunk.id in ids}
        assert set(h.ranks) == found_by
        for name in found_by:
            assert h.ranks[name] == lists[name].index(h.chunk.id) + 1


@pytest.mark.parametrize("query", ["termination", "保证金 delivery"])
def test_score_fusion_adds_each_rankings_min_max_normalised_scores(store: Store, query: str) -> None:
    ranked = rankings(store, ENC, query, DEFAULT_FUSED, 50)
    weights = {"bm25": 0.5, "dense": 1.0, "late": 0.25, "questions": 0.0}
    hits = search(store, ENC, query, mode="hybrid", k=50, weights=weights, fusion="minmax")
    by_hand: dict[int, float] = {}
    for name, lst in ranked.items():
        if not weights[name] or not lst:
            continue
        low, high = min(s for _, s in lst), max(s for _, s in lst)
        for cid, s in lst:
            by_hand[cid] = by_hand.get(cid, 0.0) + weights[name] * ((s - low) / (high - low) if high > low else 1.0)
    assert {h.chunk.id for h in hits} == set(by_hand)
    assert [h.score for h in hits] == sorted(h.score for h in hits)[::-1]
    for h in hits:
        assert h.score == pytest.approx(by_hand[h.chunk.id])
    with pytest.raises(InputError, match="unknown fusion 'borda'"):
        search(store, ENC, query, mode="hybrid", fusion="borda")  # type: ignore[arg-type]


def test_hybrid_ranks_show_that_only_bm25_missed_the_other_documents(store: Store) -> None:
    hits = search(store, ENC, "termination", mode="hybrid", k=50)
    termination = doc_named(store, "termination.md").id
    for h in hits:
        if h.document.id == termination:
            assert set(h.ranks) == {"bm25", "dense", "late", "questions"}
        else:  # the word occurs in no other document: only the vector rankings reach them
            assert set(h.ranks) == {"dense", "late", "questions"}
    top = hits[0]
    assert top.document.id == termination and (top.ranks["bm25"], top.ranks["dense"], top.ranks["late"]) == (1, 1, 1)


def test_hybrid_k_cuts_the_fusion_of_all_candidates(store: Store) -> None:
    query = "保证金 delivery"
    full = search(store, ENC, query, mode="hybrid", k=50)
    top3 = search(store, ENC, query, mode="hybrid", k=3)
    assert [h.chunk.id for h in top3] == [h.chunk.id for h in full[:3]]
    # With few candidates each ranking is cut at max(k, candidates) before fusion.
    few = search(store, ENC, query, mode="hybrid", k=3, candidates=1)
    lists = {n: [cid for cid, _ in lst] for n, lst in rankings(store, ENC, query, DEFAULT_FUSED, 3).items()}
    assert [h.chunk.id for h in few] == [cid for cid, _ in reciprocal_rank_fusion(lists)[:3]]
    assert all(max(h.ranks.values()) <= 3 for h in few)


@pytest.mark.parametrize("zeroed", [("bm25",), ("dense",), ("late",), ("dense", "late"), ("bm25", "late")])
def test_a_zero_weight_drops_its_source(store: Store, zeroed: tuple[str, ...]) -> None:
    query = "保证金 termination"
    weights = dict.fromkeys(zeroed, 0.0)
    hits = search(store, ENC, query, mode="hybrid", k=50, weights=weights)
    assert hits
    kept = [s for s in DEFAULT_FUSED if s not in zeroed]
    for h in hits:
        assert not set(h.ranks) & set(zeroed)
        assert set(h.ranks) <= set(kept)
    lists = {n: [cid for cid, _ in lst] for n, lst in rankings(store, ENC, query, tuple(kept), 50).items()}
    assert [h.chunk.id for h in hits] == [cid for cid, _ in reciprocal_rank_fusion(lists)]
    assert {h.chunk.id for h in hits} == {cid for ids in lists.values() for cid in ids}


def test_only_bm25_left_gives_the_bm25_hits(store: Store) -> None:
    hits = search(store, ENC, "termination", mode="hybrid", k=50, weights={"dense": 0, "late": 0, "questions": 0})
    bm25 = search(store, ENC, "termination", mode="bm25", k=50)
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in bm25]
    assert [h.score for h in hits] == pytest.approx([1 / (RRF_K + r) for r in range(1, len(hits) + 1)])


def test_weights_scale_each_source(store: Store) -> None:
    query = "保证金 delivery"
    weights = {"bm25": 0.5, "dense": 2.0, "late": 1.0}
    lists = {n: [cid for cid, _ in lst] for n, lst in rankings(store, ENC, query, DEFAULT_FUSED, 50).items()}
    by_hand = hand_rrf(lists, weights)
    hits = search(store, ENC, query, mode="hybrid", k=50, weights=weights)
    assert {h.chunk.id: h.score for h in hits} == pytest.approx(by_hand)
    assert [h.score for h in hits] == sorted(by_hand.values(), reverse=True)


def test_all_weights_zero_finds_nothing(store: Store) -> None:
    assert search(store, ENC, "保证金", mode="hybrid", weights={"bm25": 0, "dense": 0, "late": 0, "questions": 0}) == []


# --- k, hit fields -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_k_is_respected(store: Store, mode: str) -> None:
    n_chunks = sum(store.chunks.chunk_counts().values())
    everything = search(store, ENC, "保证金 the goods", mode=mode, k=100)  # type: ignore[arg-type]
    assert 3 < len(everything) <= n_chunks
    for k in (1, 2, 3):
        hits = search(store, ENC, "保证金 the goods", mode=mode, k=k)  # type: ignore[arg-type]
        assert [h.chunk.id for h in hits] == [h.chunk.id for h in everything[:k]]


@pytest.mark.parametrize(
    ("mode", "k"),
    [(m, k) for m in SEARCH_MODES for k in (0, -1)],
)
def test_k_below_one_is_an_input_error_in_every_mode(store: Store, mode: str, k: int) -> None:
    # search() refuses before it looks at the KB: an empty list would hide a caller's bug
    with pytest.raises(InputError, match=f"k must be at least 1, got {k}"):
        search(store, ENC, "保证金", mode=mode, k=k)  # type: ignore[arg-type]


def page_of(line: str) -> int:
    (page,) = [n for n, lines in enumerate(PDF_PAGES, start=1) if line in lines]
    return page


def test_hit_fields_for_a_pdf_hit(store: Store, kb_files: tuple[Path, Path]) -> None:
    _, folder = kb_files
    (hit,) = search(store, ENC, "strikes", mode="bm25", k=10)  # the word is in one line of page 2 only
    assert hit.document.path == str((folder / "contract.pdf").resolve())
    assert hit.document.kind == "pdf" and hit.document.n_pages == 2
    assert hit.chunk.doc_id == hit.document.id
    lines = [line.strip() for line in hit.chunk.text.splitlines() if line.strip()]
    assert "Such events include flood, fire, war and strikes beyond the control of the parties." in lines
    assert (hit.chunk.page_start, hit.chunk.page_end) == (page_of(lines[0]), page_of(lines[-1]))
    assert hit.chunk.page_end == 2
    assert marked(hit) == ["strikes"]
    assert hit.snippet.text == " ".join(hit.chunk.text.split())  # short chunk: the whole text, flattened
    assert not hit.snippet.clipped_start and not hit.snippet.clipped_end


def test_every_pdf_chunk_knows_its_pages(store: Store) -> None:
    doc = doc_named(store, "contract.pdf")
    chunks = store.chunks.chunks_of(doc.id)
    assert len(chunks) >= 2
    for c in chunks:
        lines = [line.strip() for line in c.text.splitlines() if line.strip()]
        assert (c.page_start, c.page_end) == (page_of(lines[0]), page_of(lines[-1]))


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_chinese_hit_snippet_marks_the_query_term(store: Store, mode: str) -> None:
    hits = search(store, ENC, "履约保证金", mode=mode, k=3)  # type: ignore[arg-type]
    top = hits[0]
    assert Path(top.document.path).name == "performance_bond.md" and top.chunk.page_start == 1
    flat = " ".join(top.chunk.text.split())
    # In this document 保证金 only ever follows 履约, so every mark is the whole term.
    assert marked(top) == ["履约保证金"] * flat.count("履约保证金")
    for s, e in top.snippet.marks:
        assert 0 <= s < e <= len(top.snippet.text)


def test_english_snippet_marks_inflections(store: Store) -> None:
    (hit,) = search(store, ENC, "termination", mode="bm25", k=5)
    flat = " ".join(hit.chunk.text.split())
    expected = re.findall(r"\bTermi\w*", flat, flags=re.IGNORECASE)  # Termination, terminate, termination
    assert len(expected) >= 3 and "terminate" in expected
    assert marked(hit) == expected
    assert hit.snippet.text in flat


# --- bad input, deletions, read-only KBs -------------------------------------------------------------------


def test_unknown_mode_and_empty_query_are_input_errors(store: Store) -> None:
    with pytest.raises(InputError, match="unknown search mode 'sparse'"):
        search(store, ENC, "保证金", mode="sparse")  # type: ignore[arg-type]
    for mode in SEARCH_MODES:
        for query in ("", "   ", "\n\t"):
            with pytest.raises(InputError, match="empty"):
                search(store, ENC, query, mode=mode)  # type: ignore[arg-type]


def test_dense_modes_need_an_encoder_but_bm25_does_not(store: Store) -> None:
    assert search(store, None, "termination", mode="bm25")
    for mode in ("dense", "late", "hybrid"):
        with pytest.raises(InputError, match="encoder"):
            search(store, None, "termination", mode=mode)  # type: ignore[arg-type]


def test_a_deleted_document_is_never_a_hit(fresh: tuple[Store, Path]) -> None:
    store, _ = fresh
    gone = doc_named(store, "bid_bond.md")
    assert store.docs.delete_document(gone.id)
    for mode in SEARCH_MODES:
        hits = search(store, ENC, "投标保证金", mode=mode, k=50)  # type: ignore[arg-type]
        assert all(h.document.id != gone.id for h in hits)
    assert search(store, ENC, "投标保证金", mode="bm25") == []


def test_a_chunk_deleted_between_ranking_and_fetch_is_skipped(
    fresh: tuple[Store, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = fresh
    query = "投标保证金"
    gone = doc_named(store, "bid_bond.md")
    gone_ids = {c.id for c in store.chunks.chunks_of(gone.id)}
    stale = rankings(store, ENC, query, DEFAULT_FUSED, 50)
    assert gone_ids <= {cid for cid, _ in stale["bm25"]} and gone_ids <= {cid for cid, _ in stale["dense"]}
    store.docs.delete_document(gone.id)  # "another process" removes the document after the rankings were taken

    def stale_rankings(*_: object, sources: tuple[str, ...] = FUSED_SOURCES, n: int = 50) -> dict:
        return {name: stale[name][:n] for name in sources}

    monkeypatch.setattr(
        search_module,
        "rankings",
        lambda s, e, q, sources, n, v=None, doc_ids=None: stale_rankings(sources=sources, n=n),
    )
    assert search(store, ENC, query, mode="bm25", k=50) == []  # every bm25 candidate was deleted
    for mode in ("dense", "late"):
        hits = search(store, ENC, query, mode=mode, k=50)  # type: ignore[arg-type]
        assert [h.chunk.id for h in hits] == [cid for cid, _ in stale[mode] if cid not in gone_ids]
    fused = reciprocal_rank_fusion({name: [cid for cid, _ in lst] for name, lst in stale.items()})
    hits = search(store, ENC, query, mode="hybrid", k=50)
    assert [h.chunk.id for h in hits] == [cid for cid, _ in fused if cid not in gone_ids]
    assert all(h.document.id != gone.id for h in hits)


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_search_on_a_read_only_kb(kb_files: tuple[Path, Path], mode: str) -> None:
    kb, _ = kb_files
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as rw:
        expected = [(h.chunk.id, h.score, dict(h.ranks)) for h in search(rw, ENC, "履约保证金 delivery", mode=mode)]  # type: ignore[arg-type]
    with Store.open_existing(kb) as ro:
        assert ro.readonly
        got = [(h.chunk.id, h.score, dict(h.ranks)) for h in search(ro, ENC, "履约保证金 delivery", mode=mode)]  # type: ignore[arg-type]
    assert got and [g[0] for g in got] == [e[0] for e in expected]
    assert [g[1] for g in got] == pytest.approx([e[1] for e in expected])
    assert [g[2] for g in got] == [e[2] for e in expected]


def test_a_document_filter_keeps_only_its_chunks_and_k_of_them(store: Store) -> None:
    # "投标保证金" is about bid_bond.md (TOPICS): asked within another document, that one's chunks come instead
    other = doc_named(store, "termination.md").id
    unfiltered = search(store, ENC, "投标保证金", k=3)
    assert unfiltered[0].document.id == doc_named(store, "bid_bond.md").id
    within = search(store, ENC, "投标保证金", k=3, doc_ids={other})
    assert within and len(within) <= 3 and {h.chunk.doc_id for h in within} == {other}
    vector = ENC.encode(["投标保证金"], role="query")[0]
    given = search(store, ENC, "投标保证金", k=3, doc_ids={other}, vector=vector)
    assert [h.chunk.id for h in given] == [h.chunk.id for h in within]  # the caller's vector is the query's own
