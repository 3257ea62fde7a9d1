"""The semantic splitter and late windows with a context on the real default encoder over a real PDF (slow)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pikelocal import api
from pikelocal.ingest.enrich.embed import HEADER_MIX, document_text
from pikelocal.store.store import Store
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def kbs(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[Path, Path, Path]:
    """The constitution PDF three times, with late vectors: structure split with plain late windows, semantic split
    with pooled contexts, and the default split and late context (structure split, late vectors mixed with their
    header's)."""
    installed_model("embeddinggemma-300m/model.onnx")
    pdf = shared_data / "pdfs" / "zh_law" / "中华人民共和国宪法.pdf"
    root = tmp_path_factory.mktemp("semantic")
    out = []
    for name, overrides in (
        ("structure", {"ingest.late_context": "off"}),
        ("semantic", {"ingest.splitter": "semantic", "ingest.late_context": "pooled"}),
        ("default", {}),
    ):
        kb = root / f"{name}.kb"
        settings = api.load_settings(environ={}, overrides={"ingest.late": True, **overrides})
        with api.open_kb(kb, settings) as knowledge_base:
            report = knowledge_base.add([pdf]).ingest
        assert [o.status for o in report.outcomes] == ["ingested"]
        out.append(kb)
    return out[0], out[1], out[2]


def test_semantic_chunks_rebuild_the_text_with_pages_and_lines(kbs: tuple[Path, Path, Path]) -> None:
    structure, semantic, _ = kbs
    with Store.open_existing(structure) as a, Store.open_existing(semantic) as b:
        (doc_a,), (doc_b,) = a.docs.documents(), b.docs.documents()
        chunks_a, chunks_b = a.chunks.chunks_of(doc_a.id), b.chunks.chunks_of(doc_b.id)
        assert document_text(chunks_b) == document_text(chunks_a)  # the same text, cut elsewhere
        assert [(c.char_start, c.char_end) for c in chunks_b] != [(c.char_start, c.char_end) for c in chunks_a]
        assert all(c.page_start is not None and c.line_start is not None for c in chunks_b)
        assert all(c.header.startswith("中华人民共和国宪法") for c in chunks_b)
        counts = b.counts()
        assert counts["chunks"] == counts["chunk_vectors"] == counts["late_vectors"] > 10
        assert b.meta()["late_context"] == "pooled" and a.meta().get("late_context", "off") == "off"
        assert b.integrity_check() == []


def test_a_late_vector_with_the_pooled_context_leans_towards_the_laws_name(kbs: tuple[Path, Path, Path]) -> None:
    """A chunk deep in the constitution: its late vector read after "中华人民共和国宪法 › …" is nearer the law's name
    than a late vector made without it (late vectors of the two KBs, for chunks that start at the same place)."""
    structure, semantic, _ = kbs
    from pikelocal.embed.factory import open_encoder

    encoder = open_encoder(api.load_settings(environ={}))
    name = encoder.encode(["中华人民共和国宪法"], role="query")[0]
    with Store.open_existing(structure) as a, Store.open_existing(semantic) as b:
        by_start_a = {c.char_start: c for c in a.chunks.chunks_of(a.docs.documents()[0].id)}
        by_start_b = {c.char_start: c for c in b.chunks.chunks_of(b.docs.documents()[0].id)}
        shared = sorted(set(by_start_a) & set(by_start_b))[2:]  # past the title page
        assert len(shared) >= 3
        gains = []
        for start in shared:
            plain = a.index.vector("late", by_start_a[start].id)
            pooled = b.index.vector("late", by_start_b[start].id)
            assert plain is not None and pooled is not None
            gains.append(float(pooled @ name) - float(plain @ name))
        assert np.median(gains) > 0, gains


def test_the_default_late_vectors_are_mixed_with_the_header_and_lean_towards_the_laws_name(
    kbs: tuple[Path, Path, Path],
) -> None:
    """The default KB (late_context "mix"): the same chunks as the plain one, each late vector nearer the law's name,
    and (up to the encoder's batch noise) in the direction of (1 − β)·plain + β·(the header's early vector)."""
    structure, _, default = kbs
    from pikelocal.embed.factory import open_encoder

    encoder = open_encoder(api.load_settings(environ={}))
    name = encoder.encode(["中华人民共和国宪法"], role="query")[0]
    with Store.open_existing(structure) as a, Store.open_existing(default) as b:
        assert b.meta()["late_context"] == "mix"
        chunks_a = a.chunks.chunks_of(a.docs.documents()[0].id)
        chunks_b = b.chunks.chunks_of(b.docs.documents()[0].id)
        assert [(c.char_start, c.char_end, c.header) for c in chunks_a] == [
            (c.char_start, c.char_end, c.header) for c in chunks_b
        ]
        gains = []
        for ca, cb in zip(chunks_a[2:], chunks_b[2:], strict=True):
            plain, mixed = a.index.vector("late", ca.id), b.index.vector("late", cb.id)
            assert plain is not None and mixed is not None
            head = encoder.encode([cb.header.split("\n")[0]], role="passage")[0]
            want = (1 - HEADER_MIX) * plain + HEADER_MIX * head
            # the int8 encoder's output moves a little with the batch a text is encoded in: compare directions
            assert float(mixed @ want) / float(np.linalg.norm(want)) > 0.999
            gains.append(float(mixed @ name) - float(plain @ name))
        assert np.median(gains) > 0, gains
