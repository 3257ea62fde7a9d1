"""Every chunk within a size in characters and tokens whatever the reader returned and however the token counter
read it: a .docx paragraph of one-letter runs joins into one word that a WordPiece counter (and the hashing test
encoder) counts as one token, which once made a chunk of 2,000,000 characters."""

from __future__ import annotations

from pathlib import Path

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.read.parse import ParsedDocument, ParsedPage
from pikelocal.ingest.split.bounds import CHARS_PER_TOKEN, bounded
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from pikelocal.ingest.split.split_struct import ChunkSpan, split_structured
from pikelocal.store.store import Store
from tests.support import hostile_office as hostile

OPTIONS = SplitOptions()
MAX_CHARS = OPTIONS.max_tokens * CHARS_PER_TOKEN


def words(text: str) -> int:
    """A counter that, like WordPiece on a long unknown word, sees one token in a run without spaces."""
    return len(text.split())


def document(text: str) -> ParsedDocument:
    offsets = (0, *(i + 1 for i, ch in enumerate(text) if ch == "\n"))
    return ParsedDocument(Path("x.txt"), "text", "x", (ParsedPage(1, text, offsets),), "utf-8", ())


def test_a_run_the_counter_sees_as_one_token_is_cut_within_the_bounds() -> None:
    text = "Intro line.\n" + "a" * 200_000 + "\n\nthe end\n"
    chunks = chunk_document(document(text), words, OPTIONS).chunks
    assert "".join(c.text for c in chunks) == text  # cut, nothing lost or repeated
    assert max(len(c.text) for c in chunks) <= MAX_CHARS
    assert max(words(c.text) for c in chunks) <= OPTIONS.max_tokens
    assert len(chunks) >= 200_000 // MAX_CHARS


def test_a_long_run_is_cut_after_a_space_where_there_is_one() -> None:
    text = ("b" * 3_000 + " ") * 20
    chunks = chunk_document(document(text), words, OPTIONS).chunks
    assert all(c.text.endswith(" ") for c in chunks)
    assert max(len(c.text) for c in chunks) <= MAX_CHARS


def test_a_span_counted_over_its_tokens_is_halved_until_it_fits() -> None:
    text = " ".join(["w"] * 2_000)  # 3,999 characters, 2,000 tokens by words()
    spans = [ChunkSpan(0, len(text), ("Part 1",), 2_000, "| a | b |")]
    pieces = bounded(spans, text, words, max_tokens=600, max_chars=MAX_CHARS)
    assert all(i == 0 and words(text[s.start : s.end]) <= 600 for i, s in pieces)
    assert all(s.section_path == ("Part 1",) and s.table_header == "| a | b |" for _, s in pieces)
    assert "".join(text[s.start : s.end] for _, s in pieces) == text
    assert [s.tokens for _, s in pieces] == [words(text[s.start : s.end]) for _, s in pieces]


def test_chunks_within_the_bounds_are_left_as_the_splitter_made_them() -> None:
    text = "\n\n".join(f"Clause {n}. " + "The supplier delivers the goods on time. " * 12 for n in range(40))
    spans = split_structured(text, words, target=OPTIONS.target, min_tokens=OPTIONS.min_tokens,
                             max_tokens=OPTIONS.max_tokens)  # fmt: skip
    chunks = chunk_document(document(text), words, OPTIONS).chunks
    assert [(c.char_start, c.char_end) for c in chunks] == [(s.start, s.end) for s in spans]


def test_a_word_paragraph_of_many_runs_is_stored_in_bounded_chunks(tmp_path: Path) -> None:
    (tmp_path / "runs.docx").write_bytes(hostile.docx_of_runs(100_000))
    kb = tmp_path / "k.kb"
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert knowledge_base.add([tmp_path / "runs.docx"]).ingest.count("ingested") == 1
    enc = HashEncoder()
    with Store.open(kb, encoder_id=enc.model_id, dim=enc.dim) as store:
        doc = store.docs.documents()[0]
        texts = [c.text for c in store.chunks.chunks_of(doc.id)]
    assert "".join(texts).count("a") == 100_000
    assert max(len(t) for t in texts) <= MAX_CHARS
