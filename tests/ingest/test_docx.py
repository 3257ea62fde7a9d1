"""Word .docx files: clause numbers as Word shows them, headings as sections, tables as Markdown rows,
headers and footers apart from the body, pages only where Word stored them, and a one-line reason for every file
that cannot be read. The fixtures are written with python-docx (``tests/support/office.py``)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

from pikelocal.config import Settings
from pikelocal.domain.errors import DocumentError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.read import ooxml
from pikelocal.ingest.read.docx_styles import chinese_number, format_number
from pikelocal.ingest.read.parse import ParsedDocument, parse_document
from pikelocal.ingest.read.tables import find_tables
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from pikelocal.store.store import Store
from tests.support import office

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)
# the OLE compound-file signature, and the name of the stream an encrypted Office file keeps its keys in
ENCRYPTED = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "EncryptionInfo".encode("utf-16-le") + bytes(64)
LEGACY_DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "WordDocument".encode("utf-16-le") + bytes(64)


def parse(tmp_path: Path, data: bytes, name: str = "tender.docx") -> ParsedDocument:
    return parse_document(office.write(tmp_path, name, data))


def failure(tmp_path: Path, data: bytes, name: str = "bad.docx") -> DocumentError:
    with pytest.raises(DocumentError) as caught:
        parse(tmp_path, data, name)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(tmp_path / name)), message
    return caught.value


def row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


# --- text ------------------------------------------------------------------------------------------------


def test_automatic_clause_numbers_are_written_as_word_shows_them(tmp_path: Path) -> None:
    text = parse(tmp_path, office.tender_docx()).pages[0].text
    for line in [
        "1. General",
        "1.1 This tender covers the supply and installation",
        "1.2 Bidders shall be legal entities",
        "(a) manufacturers of the offered equipment",
        "(b) authorised agents holding",
        "2. Bid Security",
        "2.1 The bid security shall be RMB 50,000",
        "第一条 投标人应当具备承担招标项目的能力。",
        "第二条 投标保证金不得超过",
    ]:
        assert any(ln.startswith(line) for ln in text.splitlines()), (line, text)


def test_headings_numbered_through_their_style(tmp_path: Path) -> None:
    """The usual Chinese tender: "第一章" on Heading 1 and "1.1" on Heading 2 (legal numbering: the chapter's number
    in digits), set on the styles and tied to the list's levels, not on the paragraphs."""
    document = docx.Document()
    document.part.numbering_part.element.insert(
        0,
        parse_xml(
            f'<w:abstractNum {nsdecls("w")} w:abstractNumId="92"><w:multiLevelType w:val="multilevel"/>'
            '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/><w:pStyle w:val="Heading1"/>'
            '<w:lvlText w:val="第%1章"/><w:suff w:val="space"/></w:lvl>'
            '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading2"/><w:isLgl/>'
            '<w:lvlText w:val="%1.%2"/></w:lvl></w:abstractNum>'
        ),
    )
    document.part.numbering_part.element.append(
        parse_xml(f'<w:num {nsdecls("w")} w:numId="92"><w:abstractNumId w:val="92"/></w:num>')
    )
    for style_id in ("Heading1", "Heading2"):
        (style,) = document.styles.element.xpath(f'w:style[@w:styleId="{style_id}"]')
        style.get_or_add_pPr().insert(0, parse_xml(f'<w:numPr {nsdecls("w")}><w:numId w:val="92"/></w:numPr>'))
    for text, level in [("投标人须知", 1), ("总则", 2), ("资格要求", 2), ("评标办法", 1), ("评标委员会", 2)]:
        document.add_heading(text, level)
    out = io.BytesIO()
    document.save(out)
    lines = [ln for ln in parse(tmp_path, out.getvalue()).pages[0].text.splitlines() if ln]
    assert lines == ["# 第一章 投标人须知", "## 1.1 总则", "## 1.2 资格要求", "# 第二章 评标办法", "## 2.1 评标委员会"]


def test_chinese_counting_as_word_writes_it() -> None:
    expected = {1: "一", 9: "九", 10: "十", 11: "十一", 20: "二十", 21: "二十一", 99: "九十九", 100: "一百",
                105: "一百零五", 110: "一百一十", 1000: "一千", 1010: "一千零一十", 2024: "二千零二十四"}  # fmt: skip
    assert {n: chinese_number(n) for n in expected} == expected
    assert [format_number(n, "lowerLetter") for n in (1, 26, 27)] == ["a", "z", "aa"]
    assert [format_number(n, "upperRoman") for n in (4, 9, 14, 1994)] == ["IV", "IX", "XIV", "MCMXCIV"]
    assert format_number(3, "decimalEnclosedCircle") == "③" and format_number(2, "ideographTraditional") == "乙"


def test_headings_become_sections_and_table_rows_stay_whole(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.tender_docx())
    assert doc.kind == "docx" and doc.title == "tender" and not doc.paged and len(doc.pages) == 1
    chunks = chunk_document(doc, HashEncoder().count_tokens, SMALL).chunks
    by_text = {c.text: c for c in chunks}
    clause = next(c for t, c in by_text.items() if t.startswith("1.2 Bidders"))  # a chunk's path: where it starts
    assert clause.section_path[:3] == ("第一章 投标人须知", "General Conditions", "1. General")
    security = next(c for t, c in by_text.items() if "2.1 The bid security" in t)
    assert security.section_path == ("第一章 投标人须知", "General Conditions", "2. Bid Security")
    scoring = [c for t, c in by_text.items() if "| 技术方案 |" in t]
    assert scoring and scoring[0].section_path[0] == "第二章 评标办法"
    article = next(c for t, c in by_text.items() if "第二条" in t)
    assert article.section_path[0] == "第三章 法律条款"
    whole = "".join(c.text for c in chunks)
    for cells in office.SCORING[1:]:  # each row is one line, in one chunk
        line = row(*cells)
        assert whole.count(line) == 1 and any(line in c.text for c in chunks), line
    (table,) = find_tables(doc.pages[0].text)
    assert table.header.splitlines()[0] == row(*office.SCORING[0]) and (table.n_rows, table.n_cols) == (5, 3)


def test_header_and_footer_are_kept_out_of_the_body(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.tender_docx())
    text = doc.pages[0].text
    body, _, end = text.partition("# Header and footer")
    assert office.HEADER not in body and "CONFIDENTIAL" not in body
    assert end.strip() == office.HEADER  # once, at the end; the footer's page number "1" is no text
    chunks = chunk_document(doc, HashEncoder().count_tokens, SMALL).chunks
    holding = [c for c in chunks if "CONFIDENTIAL" in c.text]
    assert len(holding) == 1 and holding[0].section_path == ("Header and footer",)


# --- pages -----------------------------------------------------------------------------------------------


def test_no_stored_page_breaks_means_page_unknown(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.tender_docx())
    chunks = chunk_document(doc, HashEncoder().count_tokens, SMALL).chunks
    assert chunks and all(c.page_start is None and c.page_end is None for c in chunks)
    assert all(c.line_start is not None for c in chunks)  # lines are still known


def test_rendered_page_breaks_make_pages(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.tender_docx(paged=True))
    assert doc.paged and [p.page_no for p in doc.pages] == [1, 2, 3]
    assert doc.pages[1].text.startswith("# 第二章 评标办法") and row(*office.SCORING[1]) in doc.pages[1].text
    assert doc.pages[2].text.startswith("# 第三章 法律条款")
    chunks = chunk_document(doc, HashEncoder().count_tokens, SMALL).chunks
    scoring = next(c for c in chunks if "| 技术方案 |" in c.text)
    assert (scoring.page_start, scoring.page_end) == (2, 2)
    assert next(c for c in chunks if "第一条" in c.text).page_start == 3


def test_an_explicit_page_break_makes_a_page(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.explicit_break_docx())
    assert doc.paged and [p.text for p in doc.pages] == [
        "Page one text about the pike.",
        "Page two text about the perch.",
    ]


# --- tables ----------------------------------------------------------------------------------------------


def test_merged_and_nested_cells(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=5, cols=3)
    grid = [["序号", "价格", ""], ["", "单价", "合价"], ["1", "100", "200"], ["", "300", "600"], ["备注", "", ""]]
    for r, cells in enumerate(grid):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    for tr in table.rows[:2]:  # both header rows repeat on every page
        tr._tr.get_or_add_trPr().append(parse_xml(f"<w:tblHeader {nsdecls('w')}/>"))
    table.cell(0, 0).merge(table.cell(1, 0))  # 序号 down over both header rows
    table.cell(0, 1).merge(table.cell(0, 2))  # 价格 across 单价 and 合价
    table.cell(2, 0).merge(table.cell(3, 0))  # item 1 down over two rows
    nested = table.cell(4, 1).add_table(rows=2, cols=2)
    for r, cells in enumerate([["交货", "30 天"], ["质保", "三年"]]):
        for c, value in enumerate(cells):
            nested.cell(r, c).text = value
    out = io.BytesIO()
    document.save(out)
    lines = parse(tmp_path, out.getvalue()).pages[0].text.splitlines()
    assert lines[0] == row("序号", "价格 单价", "价格 合价")  # two header rows folded into one
    assert lines[2:4] == [row("1", "100", "200"), row("1", "300", "600")]  # merged down: each row reads alone
    assert lines[4].startswith("| 备注 | 交货 / 30 天; 质保 / 三年")  # the inner table in its cell's text


# --- bad input -------------------------------------------------------------------------------------------


def zipped(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return out.getvalue()


def test_bad_word_files_fail_with_one_line_reasons(tmp_path: Path) -> None:
    good = office.tender_docx()
    err = failure(tmp_path, ENCRYPTED)
    assert err.reason == "encrypted" and "password-protected Word file; remove the password in Word" in str(err)
    err = failure(tmp_path, LEGACY_DOC)
    assert err.reason == "unsupported" and "legacy Word .doc" in str(err) and "save it as .docx" in str(err)
    assert failure(tmp_path, good[: len(good) // 2]).reason == "corrupt"
    err = failure(tmp_path, zipped({"hello.txt": b"not a document"}))
    assert err.reason == "corrupt" and "not a Word file" in str(err)
    err = failure(tmp_path, office.price_xlsx())
    assert err.reason == "unsupported" and "an Excel workbook, not a Word file" in str(err)
    source = zipfile.ZipFile(io.BytesIO(good))
    members = {name: source.read(name) for name in source.namelist()}
    broken = {**members, "word/document.xml": members["word/document.xml"][:-200]}
    err = failure(tmp_path, zipped(broken))
    assert err.reason == "corrupt" and "broken XML" in str(err)
    dtd = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]>' + members["word/document.xml"].split(b"?>", 1)[1]
    err = failure(tmp_path, zipped({**members, "word/document.xml": dtd}))
    assert err.reason == "corrupt" and "DTD" in str(err)


def test_zip_bombs_are_refused_before_a_member_is_inflated(tmp_path: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("word/document.xml", "w") as member:
        chunk = bytes(1 << 20)
        for _ in range(ooxml.MAX_UNZIPPED_MB + 1):
            member.write(chunk)
    assert len(out.getvalue()) < 2 << 20  # a few hundred KB on disk, over 200 MB inflated
    err = failure(tmp_path, out.getvalue())
    assert err.reason == "too-large" and f"limit {ooxml.MAX_UNZIPPED_MB} MB" in str(err)
    many = zipped({f"word/media/{i}.xml": b"" for i in range(ooxml.MAX_MEMBERS + 1)})
    err = failure(tmp_path, many)
    assert err.reason == "too-large" and f"limit {ooxml.MAX_MEMBERS:,}" in str(err)


def test_a_batch_with_a_bad_word_file_ingests_the_others(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    good = office.write(folder, "a_tender.docx", office.tender_docx())
    office.write(folder, "b_locked.docx", ENCRYPTED)
    office.write(folder, "c_cut.docx", office.tender_docx()[:3000])
    prices = office.write(folder, "d_prices.xlsx", office.price_xlsx())
    enc = HashEncoder()
    with Store.open(tmp_path / "kb.kb", encoder_id=enc.model_id, dim=enc.dim) as store:
        report = Ingestor(
            store, enc, IngestOptions.from_settings(Settings(), split=SMALL), lambda _e: None
        ).ingest_paths([folder])
        status = {Path(o.path).name: (o.status, o.reason) for o in report.outcomes}
        assert status == {
            "a_tender.docx": ("ingested", None),
            "b_locked.docx": ("failed", "encrypted"),
            "c_cut.docx": ("failed", "corrupt"),
            "d_prices.xlsx": ("ingested", None),
        }
        assert all("\n" not in o.message for o in report.failed)
        docs = {Path(d.path).name: d for d in store.docs.documents()}
        assert docs["a_tender.docx"].kind == "docx" and docs["d_prices.xlsx"].kind == "xlsx"
        assert store.integrity_check() == []
        assert {Path(f.path).name for f in store.docs.failures()} == {"b_locked.docx", "c_cut.docx"}
    assert good.exists() and prices.exists()
