"""A small real KB for the answering tests: the search corpus (Markdown + a two-page PDF) and a long document."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import Settings
from pikelocal.domain.documents import ChunkRecord
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store
from tests.support.search_corpus import DOCS, PDF_PAGES, add_stand_in_questions, make_pdf

ENC = HashEncoder()
OPTIONS = IngestOptions.from_settings(
    Settings(), split=SplitOptions(target=40, min_tokens=10, max_tokens=60), late=False
)
# Eight numbered sections of ~30 tokens each: several chunks in one document, for neighbours and merging.
LONG_DOC = "# Maintenance manual\n\n" + "\n\n".join(
    f"## Section {n}\n\nStep {n} of the pump maintenance: check valve {n}, record pressure reading {n} in the"
    f" logbook and tighten bolt set {n} before moving on to the next section of the manual."
    for n in range(1, 9)
)


def build(root: Path, *, questions: bool = True) -> Path:
    """Ingest the corpus into ``root/kb.sqlite`` (with stand-in atomic questions unless ``questions`` is False)."""
    folder = root / "docs"
    folder.mkdir(parents=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "manual.md").write_text(LONG_DOC, encoding="utf-8")
    (folder / "contract.pdf").write_bytes(make_pdf(PDF_PAGES))
    kb = root / "kb.sqlite"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        report = Ingestor(store, ENC, OPTIONS).ingest_paths([folder])
        assert not report.failed
        if questions:
            add_stand_in_questions(store)
    return kb


def chunk_with(store: Store, words: str) -> ChunkRecord:
    """The one chunk whose text holds ``words``."""
    found = [c for d in store.docs.documents() for c in store.chunks.chunks_of(d.id) if words in c.text]
    assert len(found) == 1, f"{len(found)} chunks hold {words!r}"
    return found[0]
