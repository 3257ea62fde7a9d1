"""A real PDF whose producer wrote common characters as CJK compatibility ideographs (年 as U+F98E): read, its text
holds the unified characters, so 押標金 and its dates are found."""

from __future__ import annotations

from pathlib import Path

from pikelocal.ingest.read.parse import parse_document

PDF = Path(__file__).resolve().parents[1] / "data" / "review" / "tw-tender-ntpc-dispatch.pdf"


def test_compatibility_ideographs_are_read_as_the_characters_they_stand_for() -> None:
    doc = parse_document(PDF)
    text = "".join(p.text for p in doc.pages)
    assert not any(0xF900 <= ord(c) <= 0xFAFF or 0x2F00 <= ord(c) <= 0x2FDF for c in text)
    assert "押標金" in text
    for page in doc.pages:  # the line offsets still index the page's text
        assert all(0 <= o <= len(page.text) for o in page.line_offsets)
