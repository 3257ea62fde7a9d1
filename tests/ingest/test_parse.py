"""Parsing real PDFs and text files: pages, line positions, titles, and every bad-input reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.read.ocr import OcrOptions
from pikelocal.ingest.read.parse import ParsedDocument, clean_pdf_title, parse_document
from pikelocal.ingest.read.pdf_worker import PdfWorker
from pikelocal.ingest.read.textcheck import decode_text, garbled_share, line_offsets
from tests.support.hostile_office import docx

REVIEW_DATA = Path(__file__).resolve().parents[1] / "data" / "review"
TENDER = "zh_tender/黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
ENCRYPTED = "edge_cases/libreoffice-writer-password.pdf"


@pytest.fixture(scope="module")
def pdfs(shared_data: Path) -> Path:
    return shared_data / "pdfs"


def reason_of(path: Path, **kwargs: str) -> DocumentError:
    with pytest.raises(DocumentError) as err:
        parse_document(path, **kwargs)
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(path)), message
    return err.value


def assert_line_offsets_valid(doc: ParsedDocument) -> None:
    for page in doc.pages:
        assert page.line_offsets[0] == 0
        assert all(page.text[i - 1] == "\n" for i in page.line_offsets[1:])
        trailing = 1 if page.text.endswith("\n") else 0  # no empty "line" after a final newline
        assert len(page.line_offsets) == page.text.count("\n") + 1 - trailing


def test_chinese_tender_keeps_every_page_in_order(pdfs: Path) -> None:
    doc = parse_document(pdfs / TENDER)
    assert doc.kind == "pdf" and len(doc.pages) == 116
    assert [p.page_no for p in doc.pages] == list(range(1, 117))
    assert "招标文件" in doc.pages[0].text and not doc.warnings
    pages_with_term = [p.page_no for p in doc.pages if "投标保证金" in p.text]
    assert pages_with_term and pages_with_term != [1]  # the term lives on later pages, found where it is
    assert doc.title == Path(TENDER).stem  # its PDF metadata title is empty
    assert_line_offsets_valid(doc)


def test_encrypted_pdf_needs_its_password(pdfs: Path) -> None:
    assert reason_of(pdfs / ENCRYPTED).reason == "encrypted"
    wrong = reason_of(pdfs / ENCRYPTED, password="nope")
    assert wrong.reason == "encrypted" and "does not open it" in str(wrong)
    doc = parse_document(pdfs / ENCRYPTED, password="openpassword")
    assert "Lorem ipsum" in doc.pages[0].text


def test_image_only_pdf_is_named_as_such(pdfs: Path) -> None:
    err = reason_of(pdfs / "edge_cases" / "imagemagick-CCITTFaxDecode.pdf")  # a 4-point image: nothing to read
    assert err.reason == "image-only" and "OCR found no text" in str(err)


def test_garbled_extraction_warns_and_clean_text_does_not(pdfs: Path) -> None:
    anz = pdfs / "en_legal_au" / "Contract scope of the penalty doctrine(ANZ Bank).pdf"
    with PdfWorker(ocr=OcrOptions(mode="never")) as no_ocr:  # with OCR on, the 4 garbled pages are OCR'd
        garbled = parse_document(anz, pdf_worker=no_ocr)
    (warning,) = garbled.warnings
    assert "garbled on 4 of 37 page(s) (2, 4, 6, 37)" in warning
    # the AustLII stamp at the top of every other page is garbled too (one line of each page)
    assert "in some lines of 33 more page(s) (1, 3, 5, 7," in warning
    # ... and those lines (3 a page: "Signed by AustLII", "Retrieved from AustLII on …", "Verify version") are
    # blank in the text kept, each line keeping its number; the 4 pages garbled as a whole keep theirs (no OCR)
    assert warning.endswith("those 99 line(s) are left blank")
    page_1 = garbled.pages[0].text.split("\n")
    assert page_1[:3] == ["", "", "HIGH COURT OF AUSTRALIA "] and page_1[-1] == ""
    assert all(garbled_share(page.text) == 0.0 for page in garbled.pages if page.page_no not in (2, 4, 6, 37))
    assert garbled_share(garbled.pages[1].text) > 0.05
    with PdfWorker(ocr=OcrOptions(mode="never")) as no_ocr:
        pages = PdfWorker.read(no_ocr, anz, anz.read_bytes(), None).pages  # the text layer as extracted
    assert [len(page.text.split("\n")) for page in garbled.pages] == [len(text.split("\n")) for text in pages]
    clean = parse_document(pdfs / "en_legal_au" / "Breach of Contract.pdf")
    assert clean.warnings == () and "HIGH COURT OF AUSTRALIA" in clean.pages[0].text


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("empty.pdf", b"", "empty"),
        ("junk.pdf", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "corrupt"),
        ("truncated.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog", "corrupt"),
        ("notes.docx", b"PK\x03\x04", "corrupt"),  # a zip cut short
        ("notes.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "unsupported"),  # legacy Word: save it as .docx
        ("README", b"hello", "unsupported"),
        ("binary.txt", b"\x00\x01\x02\x03" * 100, "unsupported"),
        ("blank.md", b"   \n\n  ", "empty"),
    ],
)
def test_bad_files_get_a_one_line_reason(tmp_path: Path, name: str, content: bytes, reason: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert reason_of(path).reason == reason


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert reason_of(tmp_path / "gone.pdf").reason == "vanished"
    folder = tmp_path / "folder.pdf"
    folder.mkdir()
    assert reason_of(folder).reason == "unreadable"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("投标人应提交投标保证金。", "gb18030"),
        ("投標人應提交投標保證金，並於截止日前遞交。", "big5"),
        ("履约保证金 10%", "utf-8"),
    ],
)
def test_text_files_in_chinese_encodings(tmp_path: Path, text: str, encoding: str) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(text.encode(encoding))
    doc = parse_document(path)
    assert doc.pages[0].text == text and doc.encoding == encoding


def test_markdown_title_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "law.md"
    path.write_bytes("# 中华人民共和国招标投标法\r\n\r\n## 第一章 总则\r\n第一条 为了规范招标投标活动。\r\n".encode())
    doc = parse_document(path)
    assert doc.title == "中华人民共和国招标投标法" and "\r" not in doc.pages[0].text
    page = doc.pages[0]
    lines = ["# 中华人民共和国招标投标法", "", "## 第一章 总则", "第一条 为了规范招标投标活动。"]
    assert len(page.line_offsets) == len(lines)
    for offset, line in zip(page.line_offsets, lines, strict=True):
        assert page.text[offset:].split("\n", 1)[0] == line


def test_textcheck_helpers() -> None:
    assert line_offsets("a\nbc\n") == (0, 2) and line_offsets("") == (0,)
    assert garbled_share("5KIPGF\x03D[\x03#WUV") > 0.1 and garbled_share("正常的中文 text") == 0.0
    with pytest.raises(UnicodeDecodeError):
        decode_text(b"\x80\xff")  # neither UTF-8 nor Big5 nor GB18030


def test_a_garbled_line_is_a_broken_fonts_noise_not_a_symbol_bullet() -> None:
    from pikelocal.ingest.read.parse import _garbled_line

    stamp = ("5KIPGF\x03D[\x03#WUV.++", "8GTKH[\x03XGTUKQP")  # ANZ's "Signed by AustLII", "Verify version"
    assert all(_garbled_line(line) for line in stamp)
    assert _garbled_line("\ue000\ue001\ue002\ue003 price")  # mostly private-use glyphs
    bullets = ("\uf0b7 The tenderer shall submit", "\uf0b7 Price 30", "Item\x03one of the schedule's many rows")
    assert not any(_garbled_line(line) for line in bullets)  # one odd glyph in real text: kept
    assert not _garbled_line("\x03\x03\x03")  # too short to judge


CIVIL_CODE_HEX_TITLE = "<4D6963726F736F667420576F7264202D20D6D0BBAAC8CBC3F1B9B2BACDB9FAC3F1B7A8B5E42E646F63>"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # GBK bytes of "Microsoft Word - 中华人民共和国民法典.doc" as pypdf returns them (the real 民法典 PDF)
        (CIVIL_CODE_HEX_TITLE, "中华人民共和国民法典"),
        ("Microsoft Word - Tender Notice.docx", "Tender Notice"),
        ("imagemagick-CCITTFaxDecode\x00", "imagemagick-CCITTFaxDecode"),
        ("PDF Example Document", "PDF Example Document"),
        ("  ", None),
        ("untitled", None),
        ("bad\ufffdtitle", None),
        ("<ABC>", None),  # odd number of hex digits
        ("<>", None),
        # placeholders an editor or template leaves: the document is listed by its file name instead
        ("範本檔", None), ("Microsoft Word - Document1", None), ("文档1", None), ("新建 Microsoft Word 文档", None),
        ("Slide 1", None), ("Title", None), ("C:\\Users\\clerk\\rfp.doc", None),
        ("Test Plan 2025", "Test Plan 2025"), ("招标文件", "招标文件"),
    ],
)  # fmt: skip
def test_pdf_metadata_titles_are_cleaned(raw: str, expected: str | None) -> None:
    assert clean_pdf_title(raw) == expected


def test_the_civil_code_pdf_gets_its_real_title(shared_data: Path) -> None:
    doc = parse_document(shared_data / "pdfs" / "zh_law" / "中华人民共和国民法典.pdf")
    assert doc.title == "中华人民共和国民法典"


def test_a_docx_whose_title_is_a_placeholder_is_listed_by_its_file_name(tmp_path: Path) -> None:
    import docx  # python-docx writes the core properties a Word user's template leaves behind

    document = docx.Document()
    document.core_properties.title = "範本檔"
    document.add_paragraph("評選須知：評選委員會由委員7人組成。")
    path = tmp_path / "評選須知.docx"
    document.save(str(path))
    assert parse_document(path).title == "評選須知"
    document.core_properties.title = "採購評選須知"
    document.save(str(path))
    assert parse_document(path).title == "採購評選須知"


def test_a_word_form_s_symbol_boxes_are_read_as_boxes(tmp_path: Path) -> None:
    sym = '<w:r><w:sym w:font="Wingdings" w:char="{}"/></w:r>'
    body = "<w:p><w:r><w:t>1.10.1 分包 </w:t></w:r>" + sym.format("F0FE") + "<w:r><w:t>不允许 </w:t></w:r>"
    body += sym.format("00A8") + '<w:r><w:t>允许 </w:t></w:r><w:r><w:sym w:font="Segoe UI Symbol" w:char="2611"/>'
    body += "</w:r><w:r><w:t>同意</w:t></w:r></w:p>"
    path = tmp_path / "form.docx"
    path.write_bytes(docx(body.encode()))
    assert "1.10.1 分包 ☑不允许 □允许 ☑同意" in parse_document(path).pages[0].text
    other = '<w:p><w:r><w:sym w:font="Symbol" w:char="00B7"/></w:r><w:r><w:sym w:font="Wingdings" w:char="F04A"/>'
    path.write_bytes(docx((other + "</w:r><w:r><w:t>要点</w:t></w:r></w:p>").encode()))
    assert parse_document(path).pages[0].text.strip() == "·要点"  # a Symbol bullet as itself; a smiley: nothing
    two = '<w:r><w:sym w:font="Wingdings 2" w:char="{}"/></w:r>'
    body = "<w:p><w:r><w:t>履约保证金 </w:t></w:r>" + two.format("00A3") + "<w:r><w:t>要求 </w:t></w:r>"
    path.write_bytes(docx((body + two.format("0052") + "<w:r><w:t>不要求</w:t></w:r></w:p>").encode()))
    assert "履约保证金 □要求 ☑不要求" in parse_document(path).pages[0].text
    typed = '<w:r><w:rPr><w:rFonts w:ascii="Wingdings 2" w:hAnsi="Wingdings 2"/></w:rPr><w:t>{}</w:t></w:r>'
    body = "<w:p><w:r><w:t>14.4 </w:t></w:r>" + typed.format("R") + "<w:r><w:t>是 </w:t></w:r>" + typed.format("£")
    path.write_bytes(docx((body + "<w:r><w:t>否</w:t></w:r></w:p>").encode()))
    assert "14.4 ☑是 □否" in parse_document(path).pages[0].text  # a box typed as a letter in the font


def test_a_pdf_form_s_wingdings_boxes_are_read_as_boxes() -> None:
    doc = parse_document(REVIEW_DATA / "cn-tender-huayang-switchgear.pdf")
    text = "\n".join(p.text for p in doc.pages)
    assert "1.10.1 分包 ☑不允许 □允许" in text and "10.2 是否接收代理商投标 ☑否 □是" in text
    assert not any("\ue000" <= ch <= "\uf8ff" for ch in text)  # no private-use character is left
