"""OCR of scanned PDF pages (pikelocal/ingest/read/ocr.py) through the reading process, the pipeline and the CLI.

The scans are made here from a real text-layer PDF: one page rendered by PDFium and written into a new PDF as an
image (Pillow), so that PDF has no text layer and its ground truth is the original page's text layer. Tests marked
slow run the OCR models (5-10 s a page on 2 cores); the others load no model.
"""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.errors import DocumentError
from pikelocal.ingest.read.ocr import OcrOptions, OcrPageError, OcrReport
from pikelocal.ingest.read.parse import parse_document
from pikelocal.ingest.read.pdf_worker import PdfWorker
from tests.support.cli import run_cli
from tests.support.pdfs import text_page_writer

JUDGMENT = "en_legal_au/Breach of Contract.pdf"  # page 3: the catchwords, 2,100 characters of English
REPO = Path(__file__).resolve().parents[2]


def text_layer(pdf: Path, index: int) -> str:
    import pypdf

    return pypdf.PdfReader(pdf).pages[index].extract_text()


def scan_of(pdf: Path, index: int, out: Path, dpi: int = 200) -> Path:
    """An image-only PDF of one page of ``pdf``: rendered by PDFium, written as a greyscale image by Pillow."""
    import pypdfium2 as pdfium

    image = pdfium.PdfDocument(pdf)[index].render(scale=dpi / 72, grayscale=True).to_pil()
    image.save(out, "PDF", resolution=dpi)
    return out


def text_page_pdf(text: str) -> bytes:
    """A one-page PDF with a real text layer (Helvetica), written by pypdf."""
    writer = text_page_writer(text)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def joined(*parts: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for part in parts:
        for page in PdfReader(io.BytesIO(part)).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def image_pdf(draw_ink: bool) -> bytes:
    """A one-page image-only PDF: a white page, with a black bar on it when ``draw_ink``."""
    from PIL import Image, ImageDraw

    image = Image.new("L", (850, 1100), 255)
    if draw_ink:
        ImageDraw.Draw(image).rectangle((100, 100, 700, 130), fill=0)
    out = io.BytesIO()
    image.save(out, "PDF", resolution=100)
    return out.getvalue()


def zero_byte_image_pdf() -> bytes:
    """A page that draws an image XObject whose stream holds 0 bytes."""
    from pypdf import PdfWriter
    from pypdf.generic import ContentStream, DictionaryObject, NameObject, NumberObject, StreamObject

    writer = PdfWriter()
    page = writer.add_blank_page(612, 792)
    image = StreamObject()
    image.update({NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Image"),
                  NameObject("/Width"): NumberObject(100), NameObject("/Height"): NumberObject(100),
                  NameObject("/ColorSpace"): NameObject("/DeviceGray"),
                  NameObject("/BitsPerComponent"): NumberObject(8)})  # fmt: skip
    image.set_data(b"")
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/XObject"): DictionaryObject({NameObject("/Im0"): writer._add_object(image)})}  # noqa: SLF001
    )
    stream = ContentStream(None, None)
    stream.set_data(b"q 300 0 0 300 100 300 cm /Im0 Do Q")
    page[NameObject("/Contents")] = writer._add_object(stream)  # noqa: SLF001
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def mapped_libraries(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


# --- no model loaded ---------------------------------------------------------------------------------------


def test_auto_reads_a_text_pdf_without_loading_the_ocr_engine(shared_data: Path) -> None:
    pdf = shared_data / "pdfs" / JUDGMENT  # 63 pages, two of them blank (no text layer, nothing printed)
    with PdfWorker(ocr=OcrOptions(mode="auto")) as worker:
        doc = parse_document(pdf, pdf_worker=worker)
        assert worker.pid is not None  # the reading process lives on for the next PDF: it did no OCR
        maps = mapped_libraries(worker.pid)
    assert "onnxruntime" not in maps and "cv2" not in maps  # the engine's libraries were never loaded
    assert not any("OCR" in w for w in doc.warnings)
    assert doc.pages[1].text.strip() == "" and "CATCHWORDS" in doc.pages[2].text


def test_blank_and_zero_byte_image_pages_are_empty_pages_and_need_no_engine(tmp_path: Path) -> None:
    pdf = tmp_path / "mixed.pdf"
    pdf.write_bytes(joined(text_page_pdf("The bid bond is five percent."), image_pdf(False), zero_byte_image_pdf()))
    with PdfWorker(ocr=OcrOptions(mode="auto")) as worker:
        doc = parse_document(pdf, pdf_worker=worker)
        assert worker.pid is not None and "onnxruntime" not in mapped_libraries(worker.pid)
    assert [p.text.strip() for p in doc.pages] == ["The bid bond is five percent.", "", ""]
    assert doc.warnings == ()


def test_a_page_ocr_cannot_read_is_one_warning_line_and_the_rest_is_kept(tmp_path: Path) -> None:
    models = tmp_path / "models"  # a model folder whose manifest has no OCR models: OCR is unavailable
    models.mkdir()
    (models / "manifest.json").write_text('{"format": 1, "artifacts": []}')
    pdf = tmp_path / "notice.pdf"
    pdf.write_bytes(joined(text_page_pdf("Tenders close on 1 May."), image_pdf(True)))
    with PdfWorker(ocr=OcrOptions(mode="auto", models_dir=str(models))) as worker:
        doc = parse_document(pdf, pdf_worker=worker)
        (warning,) = doc.warnings
        assert warning.startswith(f"{pdf}: OCR failed on page 2: ") and "no OCR models" in warning
        assert "\n" not in warning
        assert doc.pages[0].text.strip() == "Tenders close on 1 May." and doc.pages[1].text == ""
        scan = tmp_path / "scan.pdf"
        scan.write_bytes(image_pdf(True))
        with pytest.raises(DocumentError) as err:
            parse_document(scan, pdf_worker=worker)
    assert err.value.reason == "image-only" and "OCR failed" in str(err.value) and "no OCR models" in str(err.value)


def test_each_reason_of_failure_is_one_line_naming_the_file_and_pages() -> None:
    report = OcrReport("auto", (1,), ((3, "OcrPageError: cannot render"), (5, "OcrPageError: cannot render")))
    lines = report.warnings(Path("/docs/scan.pdf"), 5)
    assert lines[0].startswith("/docs/scan.pdf: the text of 1 of 5 page(s) (1) is OCR'd")
    assert lines[1] == (
        "/docs/scan.pdf: OCR failed on 2 pages (3, 5): OcrPageError: cannot render; the text layer is kept as it is"
    )
    assert OcrReport("never").image_only(2).endswith("(OCR is off; --ocr auto reads it)")
    assert isinstance(OcrPageError("x"), Exception)


# --- the OCR models (slow) ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_scanned_page_is_ocrd_into_a_real_kb_through_the_cli(tmp_path: Path, shared_data: Path) -> None:
    source = shared_data / "pdfs" / JUDGMENT
    scan = scan_of(source, 2, tmp_path / "elisha-scan.pdf")
    truth = text_layer(source, 2)
    kb = tmp_path / "scans.kb"
    run = run_cli("--encoder", "minilm", "ingest", str(kb), str(scan), "--ocr", "auto", "--no-late")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Ingested 1 file(s)" in run.stdout
    assert f"{scan}: the text of 1 of 1 page(s) (1) is OCR'd" in run.stdout + run.stderr

    with api.open_kb(kb, load_settings(None, {"encoder.model": "minilm"})) as knowledge_base:
        (status,) = knowledge_base.documents().documents
        assert knowledge_base.page_numbers(status.record.id) == [1]
        page = knowledge_base.page(status.record.id, 1)
        hits = knowledge_base.search("psychiatric injury manner of dismissal", api.SearchRequest(mode="bm25", k=3))
    ocr_text = page.text.lower()
    distinctive = sorted({w for w in re.findall(r"[a-z]{10,}", truth.lower())})
    found = [w for w in distinctive if w in ocr_text]
    assert len(distinctive) >= 15 and len(found) >= 0.9 * len(distinctive), set(distinctive) - set(found)
    lines = page.lines()
    truth_lines = [line for line in truth.splitlines() if line.strip()]
    assert abs(len(lines) - len(truth_lines)) <= 3  # one line per visual line, as the text layer has them
    assert lines[0].strip() == "CATCHWORDS"  # the heading is a line of its own, and the first
    assert any("Whether damage too remote" in line for line in lines)
    assert hits and hits[0].chunk.page_start == 1 and hits[0].chunk.line_start is not None

    never = run_cli("--encoder", "minilm", "ingest", str(tmp_path / "never.kb"), str(scan), "--ocr", "never")
    assert never.returncode == 1
    assert "[image-only]" in never.stdout and "OCR is off; --ocr auto reads it" in never.stdout


@pytest.mark.slow
def test_vertical_traditional_chinese_is_read_column_by_column_right_to_left() -> None:
    from pikelocal.ingest.read.ocr import PdfOcr

    truth = (REPO / "tests" / "data" / "tender_rfp_zh_hant.txt").read_text(encoding="utf-8")
    scan = REPO / "tests" / "data" / "ocr" / "zh_hant_tender_vertical.pdf"  # columns of 60 characters at most
    reader = PdfOcr(scan.read_bytes(), None, OcrOptions(dpi=150))
    lines = reader.text(0).splitlines()
    reader.close()
    title = truth.splitlines()[0]  # the first column, at the right edge of the page
    assert lines[0].startswith(title[:8])

    def start(line: str) -> str:  # its first characters, punctuation left out (a vertical 、 is often missed)
        return re.sub(r"\W", "", line)[:6]

    wanted = [start(line) for line in truth.splitlines() if line.strip()]
    positions = [next((i for i, line in enumerate(lines) if start(line) == w), -1) for w in wanted]
    read = [p for p in positions if p >= 0]
    assert len(read) >= 0.8 * len(wanted) and read == sorted(read)  # found in the order they were written


@pytest.mark.slow
def test_rapidocr_logs_to_the_pdf_log_and_never_to_stdout_or_stderr(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    import numpy as np

    from pikelocal.assets import resolve_ocr_models
    from pikelocal.ingest.read.ocr_engine import Engine

    caplog.set_level(logging.DEBUG, logger="pikelocal.ingest.read.pdflog")
    engine = Engine(resolve_ocr_models(), threads=2)  # rapidocr logs the engine and each model it loads
    assert engine.read(np.full((400, 300, 3), 255, np.uint8)) == ""  # nothing to detect
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    said = [r.getMessage() for r in caplog.records if r.name == "pikelocal.ingest.read.pdflog"]
    assert any(line.startswith("rapidocr info: Using") for line in said), said
