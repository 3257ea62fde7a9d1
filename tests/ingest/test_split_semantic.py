"""Semantic chunking: breakpoints from hand-made vectors, chunks that tile the text and cut where the topic turns."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.enrich.embed import document_text
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.ingest.split.split_semantic import breakpoints, split_semantic
from pikelocal.ingest.split.split_struct import sentence_units
from pikelocal.store.store import Store

E1, E2 = np.eye(2, dtype=np.float32)


def words(text: str) -> int:
    return len(text.split())


def test_breakpoints_fall_where_the_smoothed_topic_turns() -> None:
    vectors = np.stack([E1, E1, E1, E2, E2, E2])
    prose = [True] * 6
    # window 1: distances 0, 0, 1, 0, 0; the 80th percentile is 0.2
    assert breakpoints(vectors, prose, 80, window=1) == {3}
    # window 2: 0, 1 - 1/√2, 1, 1 - 1/√2, 0; the 80th percentile is 0.293 + 0.2 · 0.707 = 0.434
    assert breakpoints(vectors, prose, 80, window=2) == {3}
    # at the 50th percentile (0.293) the half-turns count too
    assert breakpoints(vectors, prose, 50, window=2) == {2, 3, 4}
    # a unit that is not prose (a table row) is never a break, nor counted in the percentile
    assert breakpoints(vectors, [True, False, True, True, True, True], 80, window=1) == {3}
    assert breakpoints(vectors, [True, True, True, False, True, True], 80, window=1) == set()  # no turn left
    assert breakpoints(np.stack([E1] * 4), [True] * 4, 80) == set()  # one topic throughout: no break
    assert breakpoints(vectors[:1], [True], 80) == set()


PIKE = [
    "Pike wait among the reeds of cool lakes.",
    "Pike strike at passing fish with a burst of speed.",
    "Pike spawn in flooded meadows in early spring.",
    "Young pike grow fast and hunt minnows by autumn.",
]
TAX = [
    "The tenderer must pay the bid bond before the deadline.",
    "The bid bond is returned after the contract is signed.",
    "A tenderer who withdraws its bid forfeits the bond.",
]
TEXT = " ".join(PIKE) + " " + " ".join(TAX) + "\n"


def topic(texts: Sequence[str]) -> NDArray[np.float32]:
    return np.stack([E1 if "ike" in t else E2 for t in texts])


def test_semantic_chunks_tile_the_text_and_cut_where_the_topic_turns() -> None:
    units = sentence_units(TEXT, words, 600)
    assert [TEXT[u.start : u.end].strip() for u in units] == [*PIKE, *TAX, ""]  # the closing newline: a blank unit
    # distances (window 2) at units 1-6: 0, 0, 0.29, 1, 0.29, 0; the 90th percentile (0.65) leaves the one turn
    spans = split_semantic(TEXT, words, topic, target=20, min_tokens=10, max_tokens=200, percentile=90)
    assert "".join(TEXT[s.start : s.end] for s in spans) == TEXT
    assert [s.start for s in spans] == [0, TEXT.index(" The tenderer")]
    # at the 80th percentile (0.29) the half-turns around it break too, but only once a chunk holds min_tokens:
    # the chunk opened at "Young pike" (9 words) does not end at the turn itself
    loose = split_semantic(TEXT, words, topic, target=20, min_tokens=10, max_tokens=200, percentile=80)
    assert [s.start for s in loose] == [0, TEXT.index(" Young pike"), TEXT.index(" The bid")]
    # the structure splitter, by size alone, cuts inside the pike sentences instead
    from pikelocal.ingest.split.split_struct import split_structured

    by_size = split_structured(TEXT, words, target=20, min_tokens=10, max_tokens=200)
    assert len(by_size) == 1 or by_size[1].start != TEXT.index(" The tenderer")


def test_max_tokens_still_bounds_a_chunk_without_breaks() -> None:
    text = " ".join(PIKE * 4) + "\n"
    spans = split_semantic(text, words, topic, target=20, min_tokens=10, max_tokens=30)
    assert "".join(text[s.start : s.end] for s in spans) == text
    assert len(spans) > 1 and all(s.tokens <= 30 for s in spans)


def test_the_pipeline_ingests_with_the_semantic_splitter(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\n" + TEXT * 3)
    enc = HashEncoder()
    with Store.open(tmp_path / "kb.kb", encoder_id=enc.model_id, dim=enc.dim) as store:
        options = IngestOptions.from_settings(
            Settings(), split=SplitOptions(target=20, min_tokens=10, max_tokens=60), splitter="semantic", late=True
        )
        report = Ingestor(store, enc, options).ingest_paths([folder])
        assert not report.failed
        (doc,) = store.docs.documents()
        chunks = store.chunks.chunks_of(doc.id)
        assert len(chunks) > 1 and document_text(chunks) == (folder / "notes.md").read_text()
        assert all(c.line_start is not None for c in chunks)
        counts = store.counts()
        assert counts["chunk_vectors"] == counts["late_vectors"] == counts["chunks"] == len(chunks)


@pytest.mark.parametrize("text", ["", "one line without an end", "   \n\n  "])
def test_short_texts_fall_back_to_the_structure_split(text: str) -> None:
    spans = split_semantic(text, words, topic, target=20, min_tokens=10, max_tokens=60)
    assert "".join(text[s.start : s.end] for s in spans) == text
