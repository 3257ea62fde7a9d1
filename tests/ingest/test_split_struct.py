"""Structure-aware splitting: exact rebuild, clause boundaries, section paths, sizes, positions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pikelocal.ingest.read.parse import ParsedPage, parse_document
from pikelocal.ingest.read.positions import DocumentText, Position
from pikelocal.ingest.read.textcheck import line_offsets
from pikelocal.ingest.split.split_struct import ChunkSpan, marker, split_structured


def count(text: str) -> int:
    """A stand-in token counter: one per CJK character, one per Latin word or number."""
    return len(re.findall(r"[\u4e00-\u9fff]|[A-Za-z0-9]+", text))


def assert_tiles(text: str, chunks: list[ChunkSpan]) -> None:
    assert "".join(text[c.start : c.end] for c in chunks) == text
    assert chunks[0].start == 0 and chunks[-1].end == len(text)
    assert all(a.end == b.start and a.end > a.start for a, b in zip(chunks, chunks[1:], strict=False))


@pytest.fixture(scope="module")
def tender_law(shared_data: Path) -> str:
    return (shared_data / "legal_zh/laws_lawrefbook/民法商法/招标投标法(2017-12-27).md").read_text(encoding="utf-8")


def test_law_chunks_follow_articles_and_know_their_section(tender_law: str) -> None:
    chunks = split_structured(tender_law, count, target=300, min_tokens=80, max_tokens=450)
    assert_tiles(tender_law, chunks)
    assert all(count(tender_law[c.start : c.end]) <= 450 for c in chunks)
    starts = [tender_law[c.start : c.end].lstrip() for c in chunks[1:]]
    at_structure = [s for s in starts if marker(s.splitlines()[0])]
    assert len(at_structure) >= 0.9 * len(starts), starts[:5]
    (art10,) = [c for c in chunks if "第十条" in tender_law[c.start : c.end].split("第十一条")[0]][:1]
    path = art10.section_path
    assert path[0] == "中华人民共和国招标投标法" and any(p.startswith("第二章") for p in path), path


def test_long_chinese_paragraph_is_cut_at_sentence_ends() -> None:
    text = "".join(f"投标人应当按照招标文件的要求编制第{i}份投标文件。" for i in range(60))
    chunks = split_structured(text, count, target=100, min_tokens=50, max_tokens=120)
    assert_tiles(text, chunks)
    assert len(chunks) > 5 and all(text[c.end - 1] == "。" for c in chunks)
    assert all(c.tokens <= 120 for c in chunks)


def test_unbreakable_run_is_cut_within_max() -> None:
    text = "甲" * 1000
    chunks = split_structured(text, count, target=100, min_tokens=50, max_tokens=120)
    assert_tiles(text, chunks)
    assert all(count(text[c.start : c.end]) <= 120 for c in chunks)


def test_english_numbered_clauses_give_section_paths() -> None:
    text = (
        "MASTER SERVICES AGREEMENT\n\n1. Definitions\nIn this Agreement the following terms apply. " * 1
        + "\n1.1 Services\nThe Supplier shall provide the services described in Schedule 1 with due care.\n"
        + "(a) on time;\n(b) within budget.\n\n2. Termination\nEither party may terminate on thirty days notice.\n"
    )
    chunks = split_structured(text, count, target=12, min_tokens=5, max_tokens=30)
    assert_tiles(text, chunks)
    paths = {text[c.start : c.end].strip().splitlines()[0]: c.section_path for c in chunks}
    assert paths["2. Termination"] == ("2. Termination",)
    assert any(p[:2] == ("1. Definitions", "1.1 Services") for p in paths.values()), paths


def test_markers() -> None:
    assert marker("第一编 总则") == (1, "第一编 总则") and marker("## 第二章 招标") == (2, "第二章 招标")
    assert marker("第十条 招标分为公开招标和邀请招标。") == (4, "第十条")
    assert marker("（一）大型基础设施") == (6, "（一）大型基础设施") and marker("三、评标办法")[0] == 5
    assert marker("2026年12月15日前提交") is None and marker("第三方应当") is None
    assert marker("第三章“评标办法”没有规定的方法、评审因素和标准，不作为评标依据。") is None
    assert marker("7.5.2 发出中标通知书后，招标人无正当理由拒签合同的") == (7, "7.5.2 发出中标通知书后")


def test_english_list_items_and_numbered_paragraphs_open_blocks_but_name_no_section() -> None:
    assert marker("1. Definitions") == (5, "1. Definitions") and marker("(iv) Damages") == (8, "(iv) Damages")
    assert marker("2.1 The penalty doctrine at common law") == (6, "2.1 The penalty doctrine at common law")
    assert marker("4. Set aside the orders with respect to the costs of the Separate") == (5, "")  # too long
    assert marker("(a) that the honour, dishonour, non-payment and over limit fees") == (8, "")  # lower case
    assert marker("1. Appeal allowed with costs.") == (5, "")  # a sentence
    assert marker("20.1 Interstar may terminate this Agreement immediately upon") == (6, "")  # wrapped
    text = "ORDERS\n1. Appeal allowed with costs.\n2. Set aside the orders of the primary judge made on 5 May.\n\n"
    text += "REASONS\n" + "The appellant sued the bank on its fees. " * 30
    text += "\n\n" + "The fees were not penalties. " * 30
    chunks = split_structured(text, count, target=60, min_tokens=20, max_tokens=90)
    assert_tiles(text, chunks)
    assert all(c.section_path == () for c in chunks)  # before: ("2. Set aside the orders of the primary",)


def test_the_anz_judgments_orders_do_not_name_its_reasons(shared_data: Path) -> None:
    parsed = parse_document(shared_data / "pdfs/en_legal_au/Contract scope of the penalty doctrine(ANZ Bank).pdf")
    doc = DocumentText.from_pages(parsed.pages)
    chunks = split_structured(doc.text, count)
    assert_tiles(doc.text, chunks)
    named = [c.section_path for c in chunks if c.section_path]
    assert not named, named[:3]  # the orders' items (1. Leave to appeal …, 4. Set aside …) are not headings


def test_positions_map_offsets_to_pages_and_lines() -> None:
    pages = [ParsedPage(1, "ab\ncd", line_offsets("ab\ncd")), ParsedPage(2, "ef\ngh\n", line_offsets("ef\ngh\n"))]
    doc = DocumentText.from_pages(pages)
    assert doc.text == "ab\ncd\nef\ngh\n" and doc.page_starts == (0, 6)
    assert doc.position(0) == Position(1, 1) and doc.position(4) == Position(1, 2)
    assert doc.position(6) == Position(2, 1) and doc.position(10) == Position(2, 2)
    assert doc.span(3, 12) == (Position(1, 2), Position(2, 2))


def test_tender_chunks_record_the_page_where_their_text_is(shared_data: Path) -> None:
    parsed = parse_document(shared_data / "pdfs/zh_tender/黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf")
    doc = DocumentText.from_pages(parsed.pages)
    chunks = split_structured(doc.text, count)
    assert_tiles(doc.text, chunks)
    by_page = {p.page_no: p.text for p in parsed.pages}
    for chunk in chunks[:: max(1, len(chunks) // 12)]:  # a dozen chunks spread over the document
        first, last = doc.span(chunk.start, chunk.end)
        lines = doc.text[chunk.start : chunk.end].strip().splitlines()
        head, tail = lines[0], lines[-1]  # a line never straddles two pages
        assert head in by_page[first.page_no] and tail in by_page[last.page_no], (first, last, head, tail)
        assert first.page_no <= last.page_no
