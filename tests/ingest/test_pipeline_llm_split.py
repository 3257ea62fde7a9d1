"""`ingest --splitter llm` through the pipeline: chunks come from the LLM's boundaries, with summaries and positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.errors import ConfigError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.llm.cached import CachedLLM
from pikelocal.llm.fake import FakeLLM
from pikelocal.store.store import Store
from tests.support.split_scripts import at_topic_end, script, topic_text

ENC = HashEncoder()
# Sizes in HashEncoder tokens; a topic paragraph of topic_text() is a few dozen of them.
OPTIONS = SplitOptions(target=40, min_tokens=10, max_tokens=80)


def ingest(kb: Path, folder: Path, llm: FakeLLM | CachedLLM) -> Store:
    store = Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim)
    Ingestor(
        store, ENC, IngestOptions.from_settings(Settings(), split=OPTIONS, splitter="llm", llm=llm, late=False)
    ).ingest_paths([folder])
    return store


def test_llm_split_chunks_end_where_the_model_says_and_carry_its_summaries(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    text = topic_text(6)
    (folder / "topics.md").write_text(text, encoding="utf-8")
    fake = FakeLLM({"split": script(at_topic_end)})
    with ingest(tmp_path / "kb.sqlite", folder, fake) as store:
        (doc,) = store.docs.documents()
        chunks = store.chunks.chunks_of(doc.id)
        assert doc.stage == "ready" and len(chunks) >= 2
        assert "".join(c.text for c in chunks) == text
        for c in chunks[:-1]:  # every boundary the model chose is the end of a topic
            assert c.text.rstrip().endswith("(end of topic)")
        assert all(c.summary and c.summary.startswith("About ") for c in chunks)
        assert all(c.line_start is not None and c.page_start == 1 for c in chunks)
        assert fake.calls_for("split")


def test_a_rerun_through_the_kb_cache_asks_the_model_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "topics.md").write_text(topic_text(5), encoding="utf-8")
    fake = FakeLLM({"split": script(at_topic_end)})
    with Store.open(tmp_path / "kb.sqlite", encoder_id=ENC.model_id, dim=ENC.dim) as store:
        Ingestor(
            store,
            ENC,
            IngestOptions.from_settings(
                Settings(), split=OPTIONS, splitter="llm", llm=CachedLLM(fake, store.cache), late=False
            ),
        ).ingest_paths([folder])
        first = [(c.text, c.summary) for c in store.chunks.chunks_of(store.docs.documents()[0].id)]
        asked = len(fake.calls)
        store.docs.delete_document(store.docs.documents()[0].id)  # as if a killed run had stored nothing for it
        Ingestor(
            store,
            ENC,
            IngestOptions.from_settings(
                Settings(), split=OPTIONS, splitter="llm", llm=CachedLLM(fake, store.cache), late=False
            ),
        ).ingest_paths([folder])
        again = [(c.text, c.summary) for c in store.chunks.chunks_of(store.docs.documents()[0].id)]
    assert asked > 0 and len(fake.calls) == asked and again == first


def test_the_llm_splitter_without_an_llm_is_a_config_error(tmp_path: Path) -> None:
    with (
        Store.open(tmp_path / "kb.sqlite", encoder_id=ENC.model_id, dim=ENC.dim) as store,
        pytest.raises(ConfigError, match="needs an LLM"),
    ):
        Ingestor(store, ENC, IngestOptions.from_settings(Settings(), splitter="llm"))
