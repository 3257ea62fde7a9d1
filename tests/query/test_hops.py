"""Fact hops (``query.retrieve.hops``): the passage about an end of a fact near the question, one the question does not
name, placed after the search's first hits; with the hashing encoder, on a real SQLite KB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.config import ConfigError, load_settings
from pikelocal.domain.search import Fact, FactHop
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import embed_facts
from pikelocal.query.retrieve.hops import fact_hops, with_hops
from pikelocal.query.retrieve.search import search
from pikelocal.store.store import Store
from tests.support.enrich_corpus import build_kb, open_kb, write_corpus
from tests.support.hop_corpus import CORPUS, DIRECTOR, FILM, QUESTION, put_facts

ENC = HashEncoder()
WEIGHTS = {"bm25": 0.5, "dense": 1.0, "late": 0.0, "questions": 0.0}


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    return build_kb(tmp_path / "hops.kb", write_corpus(tmp_path / "docs", CORPUS))


@pytest.fixture
def store(kb: Path) -> Iterator[Store]:
    with open_kb(kb, create=False) as s:
        yield s


def hops_of(store: Store, question: str = QUESTION, n: int = 2, **kwargs: object) -> list[FactHop]:
    vector = ENC.encode([question], role="query")[0]
    return fact_hops(store, ENC, question, vector, n, **kwargs)  # type: ignore[arg-type]


def test_a_kb_without_facts_has_no_hops(store: Store) -> None:
    assert hops_of(store) == []
    put_facts(store)  # triples, but no fact vectors yet: nothing is near the question
    assert hops_of(store) == []


def test_the_unnamed_end_of_the_nearest_fact_leads_to_its_own_passage(store: Store) -> None:
    ids = put_facts(store)
    assert embed_facts(store, ENC) == 5
    hops = hops_of(store, n=1, min_similarity=0.5)
    assert [(h.chunk_id, h.entity) for h in hops] == [(ids["clemens.md"], DIRECTOR)]
    assert (hops[0].fact.subject, hops[0].fact.relation, hops[0].fact.object) == (FILM, "directed by", DIRECTOR)
    assert 0.5 <= hops[0].similarity <= 1.0
    # the film is named in the question: its passage is search's to find, never a hop
    everything = hops_of(store, n=10, min_similarity=-1.0)
    assert all(h.entity != FILM for h in everything)
    assert len({h.chunk_id for h in everything}) == len(everything)  # each chunk once


class NoEncoding(HashEncoder):
    def encode(self, texts: object, role: str = "passage") -> object:  # type: ignore[override]
        raise AssertionError(f"encoded {texts!r}: the stored name vectors should serve")


def test_an_enriched_kb_hops_on_its_stored_name_vectors_without_encoding(store: Store) -> None:
    ids = put_facts(store, ENC)
    embed_facts(store, ENC)
    vector = ENC.encode([QUESTION], role="query")[0]
    hops = fact_hops(store, NoEncoding(), QUESTION, vector, 1, min_similarity=0.5)
    assert [(h.chunk_id, h.entity) for h in hops] == [(ids["clemens.md"], DIRECTOR)]


def test_an_end_reaches_a_passage_that_spells_its_name_otherwise(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The director's own page names "William Clemens (director)", another node: a synonym edge, or else the
    lookup of names near the end's, leads there; with neither, nothing that names him is close enough."""
    import pikelocal.query.retrieve.hops as hops_module
    from tests.support.hop_corpus import chunk_of

    ids = {name: chunk_of(store, name) for name in CORPUS}
    spelled = f"{DIRECTOR} (director)"
    with store.transaction():
        for name, entities, triples in [
            ("torchy.md", [FILM, DIRECTOR], [(FILM, "directed by", DIRECTOR)]),
            ("clemens.md", [spelled, "Saginaw"], [(spelled, "grew up in", "Saginaw")]),
        ]:
            store.graph.put_chunk(ids[name], entities, triples, vectors=ENC.encode(entities, role="query"))
    embed_facts(store, ENC)
    # the nearest fact is the film's (facts=1: its end DIRECTOR alone is followed, not the page's own triple)
    nearest = hops_of(store, n=1, facts=1, min_similarity=-1.0)
    assert [(h.fact.subject, h.fact.relation, h.fact.object) for h in nearest] == [(FILM, "directed by", DIRECTOR)]
    assert [h.chunk_id for h in hops_of(store, n=1, skip=[ids["torchy.md"]], facts=1)] == [ids["clemens.md"]]
    monkeypatch.setattr(hops_module, "HOP_NAME_LOOKUPS", 0)
    assert ids["clemens.md"] not in [h.chunk_id for h in hops_of(store, n=1, skip=[ids["torchy.md"]], facts=1)]
    assert store.graph.link_synonyms(threshold=0.5) > 0  # the two spellings' vectors are close: a synonym edge
    assert [h.chunk_id for h in hops_of(store, n=1, skip=[ids["torchy.md"]], facts=1)] == [ids["clemens.md"]]


def test_skipped_chunks_and_distant_names_make_no_hop(store: Store) -> None:
    ids = put_facts(store)
    embed_facts(store, ENC)
    assert ids["clemens.md"] not in [h.chunk_id for h in hops_of(store, skip=[ids["clemens.md"]])]
    assert hops_of(store, min_similarity=0.99) == []  # no chunk is that close to a bare name
    assert hops_of(store, n=0) == [] and hops_of(store, facts=0) == []


def test_hops_go_after_the_first_hits_with_their_score_and_once() -> None:
    fact = Fact(1, 1, "a", "r", 2, "b")
    ranking = [(10, 0.9), (11, 0.8), (12, 0.7), (13, 0.6)]
    hops = [FactHop(13, "b", fact, 0.7), FactHop(99, "c", fact, 0.6)]
    assert with_hops(ranking, hops) == [(10, 0.9), (11, 0.8), (13, 0.8), (99, 0.8), (12, 0.7)]
    assert with_hops(ranking, hops, after=1) == [(10, 0.9), (13, 0.9), (99, 0.9), (11, 0.8), (12, 0.7)]
    assert with_hops(ranking, [FactHop(11, "b", fact, 0.7)]) == ranking  # already above the hops
    assert with_hops(ranking, []) == ranking
    assert with_hops([], hops) == [(13, 1.0), (99, 1.0)]


def test_hybrid_search_shows_the_hop_and_the_fact_that_led_to_it(store: Store) -> None:
    ids = put_facts(store)
    embed_facts(store, ENC)
    before = search(store, ENC, QUESTION, k=5, weights=WEIGHTS, fusion="zscore")
    first = [h.chunk.id for h in before[:2]]
    assert ids["clemens.md"] not in first and all(not h.via for h in before)  # fusion alone misses it up top
    after = search(store, ENC, QUESTION, k=5, weights=WEIGHTS, fusion="zscore", hops=1, hop_similarity=0.5)
    assert [h.chunk.id for h in after[:2]] == first  # the question's own passages stay first
    hop = after[2]
    assert hop.chunk.id == ids["clemens.md"] and hop.ranks["hops"] == 1
    assert hop.via == f"{FILM} directed by {DIRECTOR}" and hop.score == after[1].score
    assert len({h.chunk.id for h in after}) == 5
    dense = search(store, ENC, QUESTION, k=5, mode="dense", hops=1)  # hops extend hybrid only
    assert all(not h.via for h in dense)
    with pytest.raises(Exception, match="hops must be at least 0"):
        search(store, ENC, QUESTION, hops=-1)


def test_hop_settings_are_checked() -> None:
    assert load_settings(environ={}).search.hops == 2
    assert load_settings(environ={"PIKELOCAL_SEARCH_HOPS": "0"}).search.hops == 0
    with pytest.raises(ConfigError, match="search.hops"):
        load_settings(environ={"PIKELOCAL_SEARCH_HOPS": "-1"})
    with pytest.raises(ConfigError, match="search.hop_similarity"):
        load_settings(environ={"PIKELOCAL_SEARCH_HOP_SIMILARITY": "1.5"})
