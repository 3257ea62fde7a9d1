"""Chunk positions in real PDFs: a chunk's recorded page and line hold its text, checked against pypdf directly."""

from __future__ import annotations

from pathlib import Path

import pypdf
import pytest

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.store.store import Store


@pytest.fixture(scope="module")
def tender_kb(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> tuple[Path, Path]:
    pdf = next((shared_data / "pdfs" / "zh_tender").glob("*.pdf"))
    kb = tmp_path_factory.mktemp("pages") / "tender.kb"
    enc = HashEncoder()
    with Store.open(kb, encoder_id=enc.model_id, dim=enc.dim) as store:
        report = Ingestor(store, enc, IngestOptions.from_settings(Settings(), late=False)).ingest_paths([pdf])
    assert report.count("ingested") == 1
    return kb, pdf


def _first_line(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if len(line.strip()) >= 6)


def test_recorded_page_and_line_hold_the_chunk_text(tender_kb: tuple[Path, Path]) -> None:
    kb, pdf = tender_kb
    pages = [p.extract_text() for p in pypdf.PdfReader(pdf).pages]  # independent extraction
    with Store.open_existing(kb) as store:
        (doc,) = store.docs.documents()
        chunks = store.chunks.chunks_of(doc.id)
    assert doc.n_pages == len(pages) == 116
    sample = [c for c in chunks if c.page_start > 1][::15]
    assert len(sample) >= 8
    for c in sample:
        first = _first_line(c.text)
        page_text = pages[c.page_start - 1]
        assert first in page_text, (c.ord, c.page_start, first)
        # the line number counts lines of that page: the chunk's first non-blank line is (the end of) that line
        opening = next(line.strip() for line in c.text.splitlines() if line.strip())
        page_lines = page_text.replace("\r\n", "\n").split("\n")
        assert page_lines[c.line_start - 1].strip().endswith(opening), (c.ord, c.line_start, opening)
        last = [ln.strip() for ln in c.text.splitlines() if ln.strip()][-1]
        assert last in pages[c.page_end - 1], (c.ord, c.page_end, last)
        # a chunk that starts a new page right away is not attributed to the page before
        if c.page_start != c.page_end:
            assert first not in pages[c.page_end - 1] or first in page_text


def test_a_known_clause_is_on_its_page(tender_kb: tuple[Path, Path]) -> None:
    kb, pdf = tender_kb
    reader = pypdf.PdfReader(pdf)
    wanted = "向未中标的投标人和中标人退还投标保证金"
    truth = {i + 1 for i, p in enumerate(reader.pages) if wanted in (p.extract_text() or "").replace("\n", "")}
    assert truth, "the clause is in the tender document"
    with Store.open_existing(kb) as store:
        (doc,) = store.docs.documents()
        found = [c for c in store.chunks.chunks_of(doc.id) if wanted in c.text.replace("\n", "")]
    assert found
    for c in found:
        assert set(range(c.page_start, c.page_end + 1)) & truth, (c.page_start, c.page_end, truth)
