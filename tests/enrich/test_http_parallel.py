"""Enrichment over HTTP: the OpenAI-compatible backend fans the chunks out to a loopback stand-in server.

The stand-in's canned reply to a JSON-schema request is the schema's sample instance: English questions
("sample x-questions0", …), which the parser accepts for English chunks only, so this corpus is English.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions
from pikelocal.llm.openai_compat import OpenAICompatLLM
from pikelocal.prompts.atomize import atomize_prompt, parse_atoms
from pikelocal.prompts.base import ReplyError
from pikelocal.prompts.summarize import SUMMARIZE_DOCUMENT, parse_summary
from tests.support.enrich_corpus import (
    EN_STEM,
    ENGLISH_CORPUS,
    SHORT_DOC,
    build_kb,
    chunk_status,
    open_kb,
    write_corpus,
)
from tests.support.jsonschema_mini import instance
from tests.support.standin_server import StandinServer

LATENCY_S = 0.3
FIELDS = {"max_q": 5}


def test_the_canned_instances_pass_the_parsers_for_english_only() -> None:
    canned = instance(atomize_prompt(5).schema)
    assert parse_atoms(canned, "en", FIELDS).questions == ("sample x-questions0", "sample x-questions1")
    with pytest.raises(ReplyError, match="not in Chinese"):
        parse_atoms(canned, "zh", FIELDS)
    summary = parse_summary(instance(SUMMARIZE_DOCUMENT.schema), "en", {})
    assert (summary.title, summary.summary) == ("sample x-title", "sample x-summary")


def test_enrich_fans_out_to_max_parallel_requests(tmp_path: Path) -> None:
    corpus = {**ENGLISH_CORPUS, "memo.md": SHORT_DOC, "more.txt": ENGLISH_CORPUS[f"{EN_STEM}.txt"].upper()}
    kb = build_kb(tmp_path / "kb.kb", write_corpus(tmp_path / "docs", corpus))
    with StandinServer(latency_s=LATENCY_S, lifetime_s=120) as server, open_kb(kb, create=False) as store:
        llm = OpenAICompatLLM(server.url, "standin", max_parallel=4, timeout_s=30)
        report = Enricher(store, HashEncoder(), llm, EnrichOptions.from_settings(Settings())).run()
        chunks = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id)]
        titles = sorted(d.title or "" for d in store.docs.documents())
        questions = {c.id: store.chunks.questions_of(c.id) for c in chunks}

    assert len(chunks) == 11 and report.failures == []
    assert report.summarized == 2 and report.skipped == 1 and report.atomized == len(chunks)
    assert server.max_active == 4  # four requests at once, never more
    assert len(server.requests) == 2 + len(chunks)  # one per summary and per chunk: no retry
    kinds = [json.dumps(r["response_format"]["json_schema"]["schema"], sort_keys=True) for r in server.requests]
    assert all(r["response_format"]["type"] == "json_schema" for r in server.requests)
    assert kinds.count(json.dumps(dict(SUMMARIZE_DOCUMENT.schema), sort_keys=True)) == 2
    assert all(q == ["sample x-questions0", "sample x-questions1"] for q in questions.values())
    assert set(chunk_status(kb).values()) == {("done", None)}
    assert titles == ["Lantern Festival Memo", "sample x-title", "sample x-title"]
