"""The entity graph from the enrichment call (enrich.entities): the prompt's schema, parsing and normalisation of
entities and triples, storage (one node per name, chunk links, triples, name vectors), synonym edges, pruning when
chunks go, re-asking chunks atomized without entities, reembed, and graph search over what was stored."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.atomize import ENTITY_MAX_CHARS, MAX_ENTITIES, MAX_TRIPLES, atomize_prompt, parse_atoms
from pikelocal.query.retrieve.search import search
from pikelocal.store.graph import entity_key
from pikelocal.store.store import Store
from tests.support.enrich_corpus import (
    CORPUS,
    EN_STEM,
    SCRIPT,
    atomize_reply,
    build_kb,
    open_kb,
    passage_of,
    write_corpus,
)

ENC = HashEncoder()
SHARED = "Acme Holdings"  # an entity every chunk names, in different spellings


def with_shared_name(corpus: dict[str, str]) -> dict[str, str]:
    """The enrichment corpus with a sentence naming SHARED (in one of two spellings) after every paragraph."""
    out = {}
    for name, text in corpus.items():
        paragraphs = text.split("\n\n")
        out[name] = "\n\n".join(
            p if p.startswith("#") else f"{p.rstrip()} Filed by {SHARED if i % 2 else 'ACME  holdings'}.\n"
            for i, p in enumerate(paragraphs)
        )
    return out


def entity_reply(messages: Sequence[Message], params: GenParams) -> str:
    """Questions as the other tests script them; entities: the document's title (not in the passage: the parser
    must drop it), the shared name as the passage spells it, and the chunk's first word; a triple linking the first
    word to the shared name, a loop, and one to the title (dropped with it)."""
    raw = atomize_reply(messages, params)
    try:
        reply = json.loads(raw)
    except ValueError:
        return raw  # the corpus's chunks that fail (once, or always) fail here too
    title, text = passage_of(messages)
    first = text.split()[0].strip(".,:;")
    shared = SHARED if SHARED in text else " acme  HOLDINGS "
    reply["entities"] = [f"{title} Archive", shared, first]
    archive = f"{title} Archive"
    reply["triples"] = [[first, "is filed by", shared], [first, "is filed by", first], [first, "cites", archive]]
    return json.dumps(reply, ensure_ascii=False)


def llm() -> FakeLLM:
    return FakeLLM({**SCRIPT, "atomize_entities": entity_reply})  # type: ignore[dict-item]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    kb = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs", with_shared_name(CORPUS)))
    with open_kb(kb, create=False) as s:
        yield s


def test_the_prompt_asks_for_entities_and_triples_after_the_questions() -> None:
    prompt = atomize_prompt(3, False, True)
    assert prompt.name == "atomize_entities" and atomize_prompt(3, True, True).name == "atomize_situate_entities"
    assert list(prompt.schema["properties"]) == ["questions", "entities", "triples"]  # type: ignore[index]
    triples = prompt.schema["properties"]["triples"]  # type: ignore[index]
    assert triples["maxItems"] == MAX_TRIPLES and triples["items"]["minItems"] == 3 == triples["items"]["maxItems"]
    assert prompt.schema["properties"]["entities"]["maxItems"] == MAX_ENTITIES  # type: ignore[index]
    assert "[主体, 关系, 客体]" in prompt.user["zh"] and "[subject, relation, object]" in prompt.user["en"]
    assert "entities" not in atomize_prompt(3).schema["properties"]  # type: ignore[index]


def test_entities_and_triples_are_cleaned_bounded_and_closed_over() -> None:
    fields = {"max_q": 3, "entities": True}
    data = {
        "questions": ["What rent does the Harbour lease set?"],
        "entities": ["Harbour  Lease", "harbour lease", " ", "Port Authority", "x" * 100, *[f"E{i}" for i in range(9)]],
        "triples": [
            ["Harbour Lease", "is granted by", "Port Authority"],
            ["Harbour Lease", "is granted by", "Port Authority"],  # a duplicate
            ["Harbour Lease", "names", "City of Hull"],  # an object not listed: added as an entity
            ["Harbour Lease", "", "Port Authority"],  # no relation
            ["Port Authority", "is", "port authority"],  # a loop
            ["only", "two"],  # malformed
        ],
    }
    atoms = parse_atoms(data, "en", fields)
    assert atoms.entities[:3] == ("Harbour Lease", "Port Authority", "x" * ENTITY_MAX_CHARS)
    # the first MAX_ENTITIES names as given (the grammar allows no more), then the triples' own ends
    assert "City of Hull" in atoms.entities and [e for e in atoms.entities if e.startswith("E")] == ["E0", "E1", "E2"]
    assert atoms.triples == (
        ("Harbour Lease", "is granted by", "Port Authority"),
        ("Harbour Lease", "names", "City of Hull"),
    )
    assert parse_atoms({"questions": ["What rent does the Harbour lease set?"]}, "en", fields).entities == ()


def test_with_the_passage_only_names_it_holds_are_kept() -> None:
    data = {
        "questions": ["What rent does the Harbour lease set?"],
        "entities": ["HARBOUR  lease", "Port Authority", "Hubei Water Bureau"],  # the last is the summary's
        "triples": [
            ["Harbour Lease", "is granted by", "Port Authority"],
            ["Harbour Lease", "is filed with", "Hubei Water Bureau"],
        ],
    }
    fields = {"max_q": 3, "entities": True, "text": "The Harbour Lease is granted by the port authority for 9 years."}
    atoms = parse_atoms(data, "en", fields)
    assert atoms.entities == ("HARBOUR lease", "Port Authority")  # as first written, case and spacing aside
    assert atoms.triples == (("HARBOUR lease", "is granted by", "Port Authority"),)  # one spelling per name
    zh = {"questions": ["湖北省水利厅负责什么？"], "entities": ["湖北省水利厅", "湖北省黄梅县水利局"]}
    passage = {"max_q": 3, "entities": True, "text": "湖 北 省 水 利 厅\n负责监督。"}
    assert parse_atoms(zh, "zh", passage).entities == ("湖北省水利厅",)  # spaced-out letters of a cover page match


def test_a_clause_or_a_list_is_not_a_name() -> None:
    """From the real model's reply on the tender's notice: a triple's object was a clause cut at 40 characters."""
    text = (
        "已由湖北省水利厅、湖北省发展和改革委员会（项目批准机关名称）以鄂水利函〔2025)200号文批准建设，"
        "招标人为黄梅县水利和湖泊局。"
    )
    clause = "湖北省水利厅、湖北省发展和改革委员会（项目批准机关名称）以鄂水利函〔2025)2"
    data = {
        "questions": ["黄梅县水利和湖泊局是谁？"],
        "entities": ["黄梅县水利和湖泊局", "湖北省水利厅", clause, "招标人为黄梅县水利和湖泊局；"],
        "triples": [["湖北省水利厅", "批准", "黄梅县水利和湖泊局"], ["招标公告", "招标条件", clause]],
    }
    atoms = parse_atoms(data, "zh", {"max_q": 3, "entities": True, "text": text})
    assert clause[:40] in text  # it does occur in the passage: only its punctuation gives it away
    assert atoms.entities == ("黄梅县水利和湖泊局", "湖北省水利厅")
    assert atoms.triples == (("湖北省水利厅", "批准", "黄梅县水利和湖泊局"),)


def test_the_graph_is_stored_with_one_node_per_name_and_synonyms_link_close_names(store: Store) -> None:
    model = llm()
    report = Enricher(
        store, ENC, model, EnrichOptions.from_settings(Settings(), entities=True, synonym_threshold=0.5)
    ).run()
    assert not model.calls_for("atomize") and model.calls_for("atomize_entities")
    every = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
    read = [c for c in every if store.graph.chunk_entities(c.id)]
    assert len(read) == report.atomized == len(every) - 1  # the corpus's one chunk that always fails
    shared = [
        r for r in store.db.rows("SELECT id, name FROM entities WHERE key = ?", (entity_key(SHARED),))
    ]  # both spellings are one node, named as first written
    assert len(shared) == 1
    linked = store.db.rows("SELECT count(DISTINCT chunk_id) FROM chunk_entities WHERE entity_id = ?", (shared[0][0],))
    naming = [c for c in read if entity_key(SHARED) in entity_key(c.text)]  # the passages that hold the name
    assert len(naming) >= len(read) / 2 and linked[0][0] == len(naming)
    for c in read:
        triples = store.graph.triples_of(c.id)
        # the self-loop was dropped, and the triple to the archive (not in the passage) with it; where the passage
        # does not hold the shared name, its triple went with it
        assert [t[1] for t in triples] == (["is filed by"] if c in naming else [])
        assert not any(n.endswith("Archive") for n in store.graph.chunk_entities(c.id))
    counts = store.graph.counts()
    assert counts["entities"] == len(store.db.rows("SELECT 1 FROM entity_vectors"))  # every name has a vector
    assert counts["chunks_with_entities"] == len(read)
    # synonym edges: each pair once, a < b, with its cosine, between names whose vectors are close
    pairs = store.db.rows("SELECT a, b, similarity FROM entity_synonyms")
    assert pairs and all(a < b and 0.5 <= s <= 1.0 + 1e-6 for a, b, s in pairs)
    assert store.db.rows("SELECT count(*) FROM entities WHERE linked IS NULL")[0][0] == 0
    assert store.integrity_check() == []


def test_every_triple_gets_a_fact_vector_that_goes_with_its_chunk(store: Store) -> None:
    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), entities=True)).run()
    triples = store.db.rows(
        "SELECT t.id, s.name, t.relation, o.name FROM triples t JOIN entities s ON s.id = t.subject"
        " JOIN entities o ON o.id = t.object"
    )
    assert triples and store.graph.counts()["triples_with_vectors"] == len(triples)
    tid, subject, relation, obj = triples[0]
    expected = ENC.encode([f"{subject} {relation} {obj}"], role="passage")[0]  # the fact as one line
    np.testing.assert_allclose(store.index.vector("triple", tid), expected, atol=1e-6)
    doc = next(d for d in store.docs.documents() if Path(d.path).stem == EN_STEM)
    assert store.docs.delete_document(doc.id)
    left = store.db.rows("SELECT count(*) FROM triples")[0][0]
    assert left < len(triples) and store.graph.counts()["triples_with_vectors"] == left  # the cascade took them


def test_a_kb_enriched_at_schema_8_gets_fact_vectors_without_an_llm_call(tmp_path: Path) -> None:
    from pikelocal.store import db

    kb = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs", with_shared_name(CORPUS)))
    with open_kb(kb, create=False) as store:
        Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), entities=True)).run()
        n = store.db.rows("SELECT count(*) FROM triples")[0][0]
    conn = db.connect(kb)  # the file as schema 8 left it: no triple vectors, no trigger, no sign bits (schema 10)
    conn.execute("DROP TRIGGER triples_ad")
    conn.execute("DROP TABLE triple_vectors")
    for owner, bits in (("entities", "entity_bits"), ("triples", "triple_bits")):
        conn.execute(f"DROP TRIGGER {owner}_ad_bits")
        conn.execute(f"DROP TABLE {bits}")
    conn.execute("DROP TABLE view_marks")  # version 13's
    for table in ("review_rows", "review_marks"):  # version 11's
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP TRIGGER statements_ad")  # version 12's
    for table in ("statements_fts", "statement_vectors", "statements"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("ALTER TABLE documents DROP COLUMN statements_read")
    conn.execute("UPDATE kb_meta SET value = '8' WHERE key = 'schema_version'")
    conn.execute("PRAGMA user_version = 8")
    db.close(conn)
    with open_kb(kb, create=False) as store:  # migrated to 9 on opening
        assert store.meta()["schema_version"] >= 9 and store.graph.counts()["triples_with_vectors"] == 0
        again = llm()
        Enricher(store, ENC, again, EnrichOptions.from_settings(Settings(), entities=True)).run()
        assert not again.calls and store.graph.counts()["triples_with_vectors"] == n > 0
        assert store.integrity_check() == []


def test_the_triples_nearest_the_question_seed_the_walk_at_their_ends(store: Store) -> None:
    from pikelocal.ingest.enrich.enrich import embed_facts
    from pikelocal.query.retrieve.graph import graph_ranking

    c = [ch.id for d in store.docs.documents() for ch in store.chunks.chunks_of(d.id)][:3]
    with store.transaction():  # no name vectors: only the names in the question and the facts can seed
        store.graph.put_chunk(c[0], ["Pike Lake", "Anglers Club"], [("Anglers Club", "fishes in", "Pike Lake")])
        store.graph.put_chunk(c[1], ["Oslo", "Norway"], [("Oslo", "is the capital of", "Norway")])
        store.graph.put_chunk(c[2], ["Bergen", "Norway"], [])
    assert embed_facts(store, ENC) == 2
    question = "which city is the capital of the kingdom?"  # names no entity
    vector = ENC.encode([question], role="query")[0]
    assert graph_ranking(store, question, vector, 3, facts=0) == []  # nothing else seeds it
    ranked = graph_ranking(store, question, vector, 3, facts=1)
    # the one nearest fact is Oslo's: its ends seed, so its chunk leads; Bergen's shares Norway, a step further;
    # the lake's chunk is in another component and gets no mass
    assert [cid for cid, _ in ranked] == [c[1], c[2]]


def test_turning_entities_on_later_reasks_only_the_chunks_read_without_them(store: Store) -> None:
    Enricher(store, ENC, FakeLLM(SCRIPT), EnrichOptions.from_settings(Settings())).run()  # type: ignore[arg-type]
    assert store.graph.counts()["entities"] == 0
    model = llm()
    report = Enricher(store, ENC, model, EnrichOptions.from_settings(Settings(), entities=True)).run()
    every = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
    assert report.atomized == len(every) - 1
    again = llm()
    Enricher(store, ENC, again, EnrichOptions.from_settings(Settings(), entities=True)).run()
    assert again.calls_for("atomize_entities") == []  # nothing left to read


def test_removing_a_document_prunes_the_entities_only_it_named(store: Store) -> None:
    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), entities=True)).run()
    doc = next(d for d in store.docs.documents() if Path(d.path).stem == EN_STEM)
    only_here = store.db.rows(
        "SELECT key FROM entities WHERE id NOT IN (SELECT entity_id FROM chunk_entities WHERE chunk_id IN"
        " (SELECT id FROM chunks WHERE doc_id != ?))",
        (doc.id,),
    )
    assert entity_key("Spawning") in {k for (k,) in only_here}
    version = store.graph.version()
    assert store.docs.delete_document(doc.id)
    assert store.graph.version() > version  # a cached graph matrix is rebuilt
    assert store.graph.prune() == 0  # the delete pruned already
    assert not store.db.rows(
        f"SELECT 1 FROM entities WHERE key IN ({','.join('?' * len(only_here))})", [k for (k,) in only_here]
    )
    assert store.db.rows("SELECT 1 FROM entities WHERE key = ?", (entity_key(SHARED),))  # other documents name it
    assert len(store.db.rows("SELECT 1 FROM entity_vectors")) == store.graph.counts()["entities"]


def test_graph_search_ranks_the_chunk_that_names_the_entity_first(store: Store) -> None:
    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), entities=True)).run()
    hits = search(store, ENC, "When does Spawning happen?", mode="graph", k=5)
    assert hits and hits[0].chunk.text.startswith("Spawning")
    # the walk goes on through the shared name to other chunks, each ranked below the named one
    assert len(hits) > 1 and all(h.score <= hits[0].score for h in hits)


def test_one_hop_neighbours_share_an_entity_rarest_first_and_hubs_link_nothing(store: Store) -> None:
    c = [ch.id for d in store.docs.documents() for ch in store.chunks.chunks_of(d.id)][:5]
    with store.transaction():
        store.graph.put_chunk(c[0], ["Pike Lake", "Anglers Club", "Norway"], [])
        store.graph.put_chunk(c[1], ["Anglers Club", "Norway"], [])  # shares the club (3 chunks) and Norway (4)
        store.graph.put_chunk(c[2], ["Pike Lake", "Norway"], [])  # shares the lake (2 chunks): the rarer link
        store.graph.put_chunk(c[3], ["Anglers Club", "Norway"], [])
        store.graph.put_chunk(c[4], ["Oslo"], [])  # shares nothing
    # weights from c0: c2 = 1/2 (lake) + 1/4 (Norway); c1 = c3 = 1/3 (club) + 1/4 (Norway)
    assert store.graph.neighbours(c[0], 5) == [(c[2], "Pike Lake"), (c[1], "Anglers Club"), (c[3], "Anglers Club")]
    assert store.graph.neighbours(c[0], 1) == [(c[2], "Pike Lake")]
    assert store.graph.neighbours(c[0], 5, exclude={c[2]}) == [(c[1], "Anglers Club"), (c[3], "Anglers Club")]
    # with hubs at 3 chunks, Norway (4) links nothing: c1 and c3 are reached by the club alone
    assert store.graph.neighbours(c[0], 5, max_chunks=3) == [
        (c[2], "Pike Lake"),
        (c[1], "Anglers Club"),
        (c[3], "Anglers Club"),
    ]
    assert store.graph.neighbours(c[0], 5, max_chunks=2) == [(c[2], "Pike Lake")]
    assert store.graph.neighbours(c[4], 5) == [] and store.graph.neighbours(c[0], 0) == []


def test_decompose_candidates_gain_the_chunks_one_hop_away(store: Store) -> None:
    from pikelocal.domain.answers import Candidate
    from pikelocal.query.retrieve.candidates import with_graph_hops

    c = [ch.id for d in store.docs.documents() for ch in store.chunks.chunks_of(d.id)][:4]
    with store.transaction():
        store.graph.put_chunk(c[0], ["Pike Lake"], [])
        store.graph.put_chunk(c[1], ["Pike Lake"], [])
        store.graph.put_chunk(c[2], ["Oslo"], [])
        store.graph.put_chunk(c[3], ["Oslo"], [])
    found = [Candidate(c[0], "q0", 0.8, "atoms", 1), Candidate(c[2], "q2", 0.7, "atoms", 2)]
    out = with_graph_hops(store, found, 1, exclude=set(), limit=8)
    assert [(x.chunk_id, x.source) for x in out] == [(c[0], "atoms"), (c[1], "graph"), (c[2], "atoms"), (c[3], "graph")]
    assert out[1].text.endswith("(via Pike Lake)") and out[1].score == pytest.approx(0.8 * 0.9)
    # a neighbour already gathered (or already a candidate) is not offered again
    again = with_graph_hops(store, found, 1, exclude={c[1]}, limit=8)
    assert [x.chunk_id for x in again] == [c[0], c[2], c[3]]
