"""Contextual retrieval (enrich.context): the questions' call also situates each chunk; the context goes into the
chunk's header, its BM25 row and its early vector, and survives a later rebuild of the headers."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions
from pikelocal.ingest.split.context import chunk_header, with_header
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.prompts.atomize import CONTEXT_MAX_CHARS, atomize_prompt, parse_atoms
from pikelocal.prompts.base import ReplyError
from pikelocal.store.store import Store
from tests.support.enrich_corpus import SCRIPT, atomize_reply, build_kb, open_kb, passage_of, write_corpus

ENC = HashEncoder()
MARK = "Situatedword"  # a word only the contexts hold


def situate_reply(messages: Sequence[Message], params: GenParams) -> str:
    """Questions as the other tests script them, and a context naming the chunk's first words."""
    raw = atomize_reply(messages, params)
    try:
        reply = json.loads(raw)
    except ValueError:
        return raw  # the corpus's chunks that fail (once, or always) fail here too
    title, text = passage_of(messages)
    reply["context"] = f"{MARK} part of {title} about {' '.join(text.split()[:3])}"
    return json.dumps(reply, ensure_ascii=False)


def llm() -> FakeLLM:
    return FakeLLM({**SCRIPT, "atomize_situate": situate_reply})  # type: ignore[dict-item]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    kb = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs"))
    with open_kb(kb, create=False) as s:
        yield s


def test_the_situating_prompt_asks_for_a_context_first_and_parses_it() -> None:
    prompt = atomize_prompt(3, True)
    assert list(prompt.schema["properties"]) == ["context", "questions"]  # type: ignore[index]
    assert prompt.schema["required"] == ["context", "questions"]  # type: ignore[index]
    assert "situate" in prompt.user["en"] and "位置和作用" in prompt.user["zh"]
    assert "context" not in atomize_prompt(3).schema["properties"]  # type: ignore[index]
    fields = {"max_q": 3, "situate": True}
    atoms = parse_atoms(
        {"context": "  Part 2 of the\nlease:  rent  ", "questions": ["What rent does the lease set?"]}, "en", fields
    )
    assert atoms.context == "Part 2 of the lease: rent"
    long = parse_atoms({"context": "x" * 500, "questions": ["What rent does the lease set?"]}, "en", fields)
    assert len(long.context) == CONTEXT_MAX_CHARS
    with pytest.raises(ReplyError, match="context"):
        parse_atoms({"context": " ", "questions": ["What rent does the lease set?"]}, "en", fields)
    plain = parse_atoms({"questions": ["What rent does the lease set?"]}, "en", {"max_q": 3})
    assert plain.context == ""


def test_contexts_go_into_headers_bm25_and_early_vectors_and_survive_a_header_rebuild(store: Store) -> None:
    model = llm()
    Enricher(store, ENC, model, EnrichOptions.from_settings(Settings(), context=True)).run()
    assert not model.calls_for("atomize") and model.calls_for("atomize_situate")
    every = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
    chunks = [c for c in every if store.chunks.questions_of(c.id)]  # the corpus has one chunk that always fails
    assert len(every) - len(chunks) == 1 and next(c for c in every if c not in chunks).context is None
    docs = {d.id: d for d in store.docs.documents()}
    for c in chunks:
        doc = docs[c.doc_id]
        assert c.context is not None and c.context.startswith(MARK)
        assert c.header == chunk_header(doc.title or "", c.section_path, summary=doc.summary, context=c.context)
        expected = ENC.encode([with_header(c.header, c.text)], role="passage")[0]
        stored = store.index.vector("chunk", c.id)
        assert stored is not None and np.allclose(stored, expected, atol=1e-6)
    assert {i for i, _ in store.index.fts_search("chunk", MARK, 100)} == {c.id for c in chunks}
    assert store.enrichment.enrichment_counts().contexts == len(chunks)
    # a header rebuilt by the summary step keeps the chunk's context
    multi = next(d for d in docs.values() if d.summary and len(store.chunks.chunks_of(d.id)) > 1)
    store.enrichment.save_document_summary(multi.id, status="failed", error="forced")  # as a failed step leaves it
    Enricher(store, ENC, llm(), EnrichOptions.from_settings(Settings(), context=True)).run()
    rebuilt = [c for c in store.chunks.chunks_of(multi.id) if c.context is not None]
    assert rebuilt and all(c.header.endswith("\n" + (c.context or "")) for c in rebuilt)
    assert all(c.header.startswith(multi.title or "") for c in rebuilt)
    assert store.integrity_check() == []


def test_turning_contexts_on_later_reasks_the_chunks_atomized_without_one(store: Store) -> None:
    Enricher(store, ENC, FakeLLM(SCRIPT), EnrichOptions.from_settings(Settings())).run()  # type: ignore[arg-type]
    every = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
    done = {c.id for c in every if store.chunks.questions_of(c.id)}
    assert all(c.context is None for c in every) and len(done) == len(every) - 1  # one chunk always fails
    model = llm()
    report = Enricher(store, ENC, model, EnrichOptions.from_settings(Settings(), context=True)).run()
    assert report.atomized == len(done)  # the failed chunk is not among them: a failure is not retried here
    assert {c.id for c in every if (store.chunks.get_chunks([c.id])[0].context or "").startswith(MARK)} == done
    again = llm()
    Enricher(store, ENC, again, EnrichOptions.from_settings(Settings(), context=True)).run()
    assert again.calls_for("atomize_situate") == []  # nothing left to situate
