"""Late windows that read the document's title and section path first (ingest.late_context)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from pikelocal.config import Settings
from pikelocal.domain.documents import ChunkRecord
from pikelocal.domain.events import Event, Notice
from pikelocal.embed.base import EncodeRole
from pikelocal.embed.fake import HashEncoder
from pikelocal.embed.late import token_span
from pikelocal.ingest.enrich.embed import HEADER_MIX, document_text, header_at, mixed_with_headers
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)
GUIDE = (
    "# Field Guide to the Northern Pike\n\n"
    "## Habitat\n\n"
    "Pike favour shallow bays with submerged vegetation. In summer they move to deeper, cooler water "
    "near drop-offs and return to the shallows when the temperature falls in autumn.\n\n"
    "## Diet\n\n"
    "Fish make up most of the diet: perch, roach and smaller pike. Frogs, ducklings and voles are taken "
    "when the chance arises. A pike swallows its prey head first after turning it in its jaws.\n"
)


def chunk(ord_: int, start: int, end: int, header: str) -> ChunkRecord:
    return ChunkRecord(ord_ + 1, 1, ord_, "x" * (end - start), start, end, None, None, None, None, (), header, None)


def test_header_at_gives_the_first_header_line_of_the_chunk_holding_an_offset() -> None:
    chunks = [
        chunk(0, 0, 50, "Law A › Chapter 1\nA summary of law A."),
        chunk(1, 50, 120, "Law A › Chapter 2 › Article 9"),
        chunk(2, 120, 200, "Law A › Chapter 3\n| col | col |"),
    ]
    at = header_at(chunks)
    assert [at(o) for o in (0, 49, 50, 119, 120, 199, 5000)] == [
        "Law A › Chapter 1",
        "Law A › Chapter 1",
        "Law A › Chapter 2 › Article 9",
        "Law A › Chapter 2 › Article 9",
        "Law A › Chapter 3",
        "Law A › Chapter 3",
        "Law A › Chapter 3",
    ]
    assert header_at([])(0) == ""


def ingest(store: Store, folder: Path, context: str, events: list[Event] | None = None) -> None:
    options = IngestOptions.from_settings(Settings(), split=SMALL, late=True, late_context=context)
    sink = events.append if events is not None else (lambda _e: None)
    Ingestor(store, HashEncoder(), options, sink).ingest_paths([folder])


def pooled_by_hand(enc: HashEncoder, chunks: list[ChunkRecord], row: int) -> np.ndarray:
    """The hashing encoder's token vectors ignore their window, and a small document is one window read after the
    header of its first chunk: so a chunk's pooled vector is the mean of its own tokens and that header's tokens."""
    tokens = enc.encode_tokens(document_text(chunks))
    context = enc.encode_tokens(chunks[0].header.split("\n")[0])
    assert context.vectors.shape[0] > 3
    c = chunks[row]
    i, j = token_span(tokens.offsets, c.char_start, c.char_end)
    mean = (tokens.vectors[i:j].sum(axis=0) + context.vectors.sum(axis=0)) / (j - i + len(context.vectors))
    return mean / np.linalg.norm(mean)


def late_matrix(store: Store) -> tuple[list[ChunkRecord], np.ndarray]:
    (doc,) = store.docs.documents()
    chunks = store.chunks.chunks_of(doc.id)
    vectors = [store.index.vector("late", c.id) for c in chunks]
    assert all(v is not None for v in vectors)
    return chunks, np.stack(vectors)  # type: ignore[arg-type]


def guide_kb(tmp_path: Path, context: str | None) -> tuple[list[ChunkRecord], np.ndarray, dict[str, str]]:
    """The guide ingested into its own KB with that late context (None: the default late context): its chunks, their
    late vectors and the KB's meta."""
    folder = tmp_path / "docs"
    if not folder.exists():
        folder.mkdir()
        (folder / "guide.md").write_text(GUIDE)
    enc = HashEncoder()
    with Store.open(tmp_path / f"{context or 'default'}.kb", encoder_id=enc.model_id, dim=enc.dim) as store:
        if context is None:
            Ingestor(store, enc, IngestOptions.from_settings(Settings(), split=SMALL, late=True)).ingest_paths([folder])
        else:
            ingest(store, folder, context)
        chunks, late = late_matrix(store)
        return chunks, late, store.meta()


def test_pooled_context_is_counted_in_every_late_vector_and_recorded_in_the_kb(tmp_path: Path) -> None:
    enc = HashEncoder()
    _, off, meta_off = guide_kb(tmp_path, "off")
    assert meta_off.get("late_context", "off") == "off"
    chunks, pooled, meta = guide_kb(tmp_path, "pooled")
    assert meta["late_context"] == "pooled"
    assert len(chunks) > 2
    tokens = enc.encode_tokens(document_text(chunks))
    for row, c in enumerate(chunks):
        np.testing.assert_allclose(pooled[row], pooled_by_hand(enc, chunks, row), rtol=1e-5, atol=1e-6)
        i, j = token_span(tokens.offsets, c.char_start, c.char_end)
        own = tokens.vectors[i:j].mean(axis=0)
        np.testing.assert_allclose(off[row], own / np.linalg.norm(own), rtol=1e-5, atol=1e-6)
    assert not np.allclose(pooled, off, atol=1e-3)


def test_a_kb_keeps_the_context_its_late_vectors_were_made_with(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "guide.md").write_text(GUIDE)
    enc = HashEncoder()
    with Store.open(tmp_path / "kb.kb", encoder_id=enc.model_id, dim=enc.dim) as store:
        ingest(store, folder, "pooled")
        (folder / "more.md").write_text(GUIDE.replace("Northern Pike", "Common Perch"))
        events: list[Event] = []
        ingest(store, folder, "off", events)  # the new file's late vectors follow the KB, not the setting
        warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
        assert any("late_context = pooled" in w and "pikelocal reembed" in w for w in warnings), warnings
        assert store.meta()["late_context"] == "pooled"
        perch = next(d for d in store.docs.documents() if d.path.endswith("more.md"))
        chunks = store.chunks.chunks_of(perch.id)
        got = store.index.vector("late", chunks[1].id)
        assert got is not None
        np.testing.assert_allclose(got, pooled_by_hand(enc, chunks, 1), rtol=1e-5, atol=1e-6)
        # once every vector is gone (what reembed does), the configured context is taken and recorded
        store.index.reset_vectors({})
        ingest(store, folder, "prefix")
        assert store.meta()["late_context"] == "prefix"
        assert store.counts()["late_vectors"] == store.counts()["chunks"]


def test_mix_is_the_plain_late_vector_mixed_with_its_header_line_and_is_the_default(tmp_path: Path) -> None:
    enc = HashEncoder()
    _, off, _ = guide_kb(tmp_path, "off")
    chunks, mix, meta = guide_kb(tmp_path, None)
    assert meta["late_context"] == "mix"
    heads = [c.header.split("\n")[0] for c in chunks]
    assert len(set(heads)) >= 3 and heads[0].startswith("Field Guide to the Northern Pike")
    for row, head in enumerate(heads):
        h = enc.encode([head], role="passage")[0]
        v = (1 - HEADER_MIX) * off[row] + HEADER_MIX * h
        np.testing.assert_allclose(mix[row], v / np.linalg.norm(v), rtol=1e-5, atol=1e-6)


def test_mix_keeps_the_late_vector_of_a_chunk_without_a_header() -> None:
    enc = HashEncoder()
    late = enc.encode(["pike in reeds", "perch in the bay"], role="passage")
    chunks = [chunk(0, 0, 10, ""), chunk(1, 10, 20, "Guide › Diet\nsummary")]
    out = mixed_with_headers(enc, chunks, late)
    np.testing.assert_array_equal(out[0], late[0])
    v = (1 - HEADER_MIX) * late[1] + HEADER_MIX * enc.encode(["Guide › Diet"], role="passage")[0]
    np.testing.assert_allclose(out[1], v / np.linalg.norm(v), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(mixed_with_headers(enc, chunks[:1], late[:1]), late[:1])  # nothing to mix


class HeaderMixCrash(HashEncoder):
    """Raises on the first encode call made of header lines alone (the mix's; early texts are header, blank line,
    text) while armed."""

    armed = True

    def encode(self, texts: Sequence[str], *, role: EncodeRole) -> NDArray[np.float32]:
        if self.armed and all("\n" not in t for t in texts):
            raise RuntimeError("crash in the header mix")
        return super().encode(texts, role=role)


def test_a_crash_in_the_header_mix_stores_nothing_of_that_group_and_resumes_to_a_clean_runs_vectors(
    tmp_path: Path,
) -> None:
    _, clean, _ = guide_kb(tmp_path, None)
    enc = HeaderMixCrash()
    with Store.open(tmp_path / "crash.kb", encoder_id=enc.model_id, dim=enc.dim) as store:
        with pytest.raises(RuntimeError, match="header mix"):
            Ingestor(store, enc, IngestOptions.from_settings(Settings(), split=SMALL, late=True)).ingest_paths(
                [tmp_path / "docs"]
            )
        counts = store.counts()
        assert counts["chunk_vectors"] == counts["chunks"] > 2 and counts["late_vectors"] == 0
        enc.armed = False
        report = Ingestor(store, enc, IngestOptions.from_settings(Settings(), split=SMALL, late=True)).ingest_paths(
            [tmp_path / "docs"]
        )
        assert report.units["late"] == counts["chunks"] and report.units["embed"] == 0
        _, resumed = late_matrix(store)
        assert store.meta()["late_context"] == "mix"
    np.testing.assert_allclose(resumed, clean, rtol=1e-6, atol=1e-7)
