"""Word and Excel files bounded like PDFs. They are read in the same child process as PDFs, within
its limits on time, memory and characters, and a cancel stops them mid-file; their readers stream (a paragraph's
runs joined once, only a sheet's stored cells looked at), the character limit holds inside one huge ``w:t`` or cell,
a workbook's rows are limited, and a DTD anywhere before the root element is refused. Each hostile file ends with a
one-line reason or a cut result, and the batch goes on.

The hostile packages are written here with zipfile (``tests/support/hostile_office.py``); sizes are chosen so that
the old readers took minutes (a quadratic paragraph, a row padded to Excel's last column) where the new ones take
seconds: the child's time limit or the test's own timeout is what catches a regression, never a timing assert.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pikelocal.domain.errors import DocumentError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.read import ooxml, parse_xlsx
from pikelocal.ingest.read.parse import parse_document
from pikelocal.ingest.read.parse_docx import read_docx
from pikelocal.ingest.read.pdf_worker import PdfLimits, PdfWorker
from pikelocal.store.store import Store
from tests.support import hostile_office as hostile
from tests.support import office
from tests.support.children import (
    ingest,
    no_child_left,  # noqa: F401  (an autouse fixture: every test here)
    outcome_of,
    reading_children,
)

RUNS = 2_000_000  # the review's paragraph: some 75 minutes when joined in quadratic time, seconds in linear time
LAST_COLUMN = 16_384  # XFD


@pytest.fixture(scope="module")
def many_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("runs") / "runs.docx"
    path.write_bytes(hostile.docx_of_runs(RUNS))
    assert path.stat().st_size < 200 * 1024  # the review's 160 KB file
    return path


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def total(doc: Any) -> int:
    return sum(len(page.text) for page in doc.pages)


def open_kb(path: Path) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim)


def far_column_xlsx(rows: int) -> bytes:
    """A title in A1, then ``rows`` rows each holding one number in Excel's last column (XFD) only."""
    title = b'<row r="1"><c r="A1" t="inlineStr"><is><t>price list</t></is></c></row>'
    far = (f'<row r="{r}"><c r="XFD{r}"><v>{r}</v></c></row>'.encode() for r in range(2, rows + 2))
    return hostile.xlsx(title + b"".join(far))


# --- Word ----------------------------------------------------------------------------------------------------


@pytest.mark.timeout(180)
def test_a_paragraph_of_two_million_runs_is_read_whole_in_the_reading_process(tmp_path: Path, many_runs: Path) -> None:
    heard: list[tuple[int, int]] = []
    with PdfWorker(PdfLimits(timeout_s=150)) as worker:
        doc = parse_document(
            many_runs, pdf_worker=worker, progress=lambda done, total, ocr=False: heard.append((done, total))
        )
    assert heard  # the reading process read it, and was heard from while it did
    assert doc.pages[0].text == "a" * RUNS + "\n\nthe end"
    assert doc.warnings == ()


@pytest.mark.timeout(120)
def test_a_word_file_past_the_time_limit_fails_with_the_reason_and_the_batch_goes_on(
    tmp_path: Path, many_runs: Path
) -> None:
    good = write(tmp_path, "notes.txt", b"The site visit is on Monday.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [many_runs, good], pdf=PdfLimits(timeout_s=0.5))
    failed = outcome_of(report, many_runs)
    assert failed.status == "failed" and failed.reason == "timeout", failed
    assert failed.message == (
        f"{many_runs}: reading the Word file took longer than ingest.pdf_timeout_s = 0.5 s; stopped"
    )
    assert outcome_of(report, good).status == "ingested"


@pytest.mark.timeout(120)
def test_a_word_file_past_the_memory_limit_fails_with_the_reason(many_runs: Path) -> None:
    with PdfWorker(PdfLimits(memory_mb=256)) as worker, pytest.raises(DocumentError) as caught:
        parse_document(many_runs, pdf_worker=worker)
    assert caught.value.reason == "memory"
    assert str(caught.value) == (
        f"{many_runs}: reading the Word file needed more than ingest.pdf_memory_mb = 256 MB; stopped"
    )


class _Stop(Exception):
    pass


@pytest.mark.timeout(120)
def test_a_cancel_stops_a_word_file_mid_file_and_the_next_file_is_read(tmp_path: Path, many_runs: Path) -> None:
    calls: list[tuple[int, int]] = []

    def cancel(done: int, total: int, ocr: bool = False, /) -> None:
        calls.append((done, total))
        if len(calls) > 1:  # the first call comes as the file is sent; the next while it is being read
            raise _Stop

    after = write(tmp_path, "after.docx", office.tender_docx())
    with PdfWorker() as worker:
        with pytest.raises(_Stop):
            parse_document(many_runs, pdf_worker=worker, progress=cancel)
        assert worker.pid is None and reading_children() == []  # killed before the cancel went on
        assert "# General" in parse_document(after, pdf_worker=worker).pages[0].text  # a new process reads on
    assert calls[:2] == [(0, 0), (0, 0)]


def test_one_huge_w_t_is_cut_at_the_character_limit_while_it_is_read(tmp_path: Path) -> None:
    chars = ooxml.MAX_CHARS + 5_000_000
    path = write(tmp_path, "huge.docx", hostile.docx_of_one_text(chars))
    doc = parse_document(path)
    kept = total(doc)
    assert ooxml.MAX_CHARS - 10 <= kept <= ooxml.MAX_CHARS  # cut inside the one w:t, not after it
    assert "the end" not in doc.pages[-1].text
    assert doc.warnings == (f"{path}: text cut at {ooxml.MAX_CHARS:,} characters; the rest is left out",)


def test_the_reading_process_keeps_a_word_files_text_within_its_character_limit(tmp_path: Path) -> None:
    path = write(tmp_path, "long.docx", hostile.docx_of_one_text(1_000_000))
    with PdfWorker(PdfLimits(max_chars=100_000)) as worker:
        doc = parse_document(path, pdf_worker=worker)
    assert 99_990 <= total(doc) <= 100_000
    assert doc.warnings == (f"{path}: text cut at 100,000 characters; the rest is left out",)


def test_the_limit_counts_many_small_paragraphs_and_the_lines_between_them(tmp_path: Path) -> None:
    body = hostile.paragraph("clause") * 50_000
    path = write(tmp_path, "clauses.docx", hostile.docx(body))
    doc = read_docx(path, path.read_bytes(), max_chars=80_000)
    assert len(doc.pages[0]) <= 80_000 and doc.pages[0].endswith("clause")
    assert doc.warnings == (f"{path}: text cut at 80,000 characters; the rest is left out",)


@pytest.mark.parametrize("comment_bytes", [5_000, 1 << 20])
def test_a_dtd_after_a_long_comment_is_refused_with_a_one_line_reason(tmp_path: Path, comment_bytes: int) -> None:
    path = write(tmp_path, "entity.docx", hostile.docx_with_doctype(comment_bytes))
    with pytest.raises(DocumentError) as caught:
        parse_document(path)
    assert caught.value.reason == "corrupt"
    assert str(caught.value) == (
        f"{path}: word/document.xml declares a DTD, which Word and Excel never write: not read"
    )


def test_a_dtd_after_a_long_comment_in_a_sheet_is_refused(tmp_path: Path) -> None:
    prolog = hostile.XML_DECL + b"<!--" + b"y" * 5_000 + b'-->\n<!DOCTYPE worksheet [<!ENTITY boom "expanded">]>\n'
    data = hostile.xlsx(b'<row r="1"><c r="A1" t="inlineStr"><is><t>&boom;</t></is></c></row>', prolog=prolog)
    path = write(tmp_path, "entity.xlsx", data)
    with pytest.raises(DocumentError) as caught:
        parse_document(path)
    assert caught.value.reason == "corrupt" and "\n" not in str(caught.value)
    assert str(caught.value) == (
        f"{path}: xl/worksheets/sheet1.xml declares a DTD, which Word and Excel never write: not read"
    )


def test_comments_and_instructions_before_the_root_are_still_read(tmp_path: Path) -> None:
    prolog = hostile.XML_DECL + b"<!--" + b"z" * 10_000 + b"--><?mso-application progid='Word.Document'?>\n"
    path = write(tmp_path, "fine.docx", hostile.docx(hostile.paragraph("Bids close on Friday."), prolog=prolog))
    assert parse_document(path).pages[0].text == "Bids close on Friday."


# --- Excel ---------------------------------------------------------------------------------------------------


def test_a_cell_in_excels_last_column_costs_one_cell_not_a_padded_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """openpyxl's rows are padded with empty cells up to their last column: the reader must not walk them."""
    looked_at: list[object] = []
    value = parse_xlsx._value

    def counted(cell: Any, percent: dict[object, bool]) -> str:
        looked_at.append(cell)
        return value(cell, percent)

    monkeypatch.setattr(parse_xlsx, "_value", counted)
    path = write(tmp_path, "far.xlsx", far_column_xlsx(2_000))
    doc = parse_document(path)
    assert len(looked_at) == 1  # the title; the cells past the columns read are not even turned into text
    assert doc.pages[0].text == "# Sheet1\n\n| price list |\n|---|"
    limits = parse_xlsx._Budget.limits()
    assert doc.warnings == (f"{path}: over the reading limits ({limits}): sheet 'Sheet1' cut at column 256",)


@pytest.mark.timeout(120)
def test_a_sheet_with_a_cell_at_xfd_on_every_row_ends_at_the_row_limit_in_the_reading_process(tmp_path: Path) -> None:
    rows = 150_000  # past the row limit; a row padded to XFD cost the old reader about a millisecond: minutes
    path = write(tmp_path, "far.xlsx", far_column_xlsx(rows))
    good = write(tmp_path, "notes.txt", b"The site visit is on Monday.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [path, good], pdf=PdfLimits(timeout_s=100))
    done = outcome_of(report, path)
    assert done.status == "ingested", done
    assert len(done.warnings) == 1 and "cut at column 256 and at row" in done.warnings[0]  # both limits, said
    limits = parse_xlsx._Budget.limits()
    last = parse_xlsx.MAX_ROWS  # stored rows 1 … MAX_ROWS were read: the title row and MAX_ROWS - 1 far rows
    assert done.warnings == (
        f"{path}: over the reading limits ({limits}): sheet 'Sheet1' cut at column 256 and at row {last:,}",
    )
    assert outcome_of(report, good).status == "ingested"


def test_a_sheet_whose_values_all_lie_past_the_columns_read_fails_saying_so(tmp_path: Path) -> None:
    path = write(tmp_path, "far.xlsx", hostile.xlsx_rows(2_000, column=LAST_COLUMN))
    with pytest.raises(DocumentError) as caught:
        parse_document(path)
    limits = parse_xlsx._Budget.limits()
    assert caught.value.reason == "empty"
    assert str(caught.value) == (
        f"{path}: the file holds no text; over the reading limits ({limits}): sheet 'Sheet1' cut at column 256"
    )


def test_a_sheet_past_the_row_limit_is_cut_there_and_the_warning_names_the_last_row_kept(tmp_path: Path) -> None:
    rows = 120_000
    path = write(tmp_path, "rows.xlsx", hostile.xlsx_rows(rows))
    doc = parse_document(path)
    lines = doc.pages[0].text.splitlines()
    assert f"| {rows} |" not in lines and doc.warnings  # cut, and said so
    last = parse_xlsx.MAX_ROWS
    assert last < rows
    assert lines[2] == "| 1 |" and lines[-1] == f"| {last} |"  # row 1 is the header
    assert len(lines) == 2 + 1 + last  # the sheet's name, a blank line, the header line, then rows 2 … last
    limits = parse_xlsx._Budget.limits()
    assert doc.warnings == (f"{path}: over the reading limits ({limits}): sheet 'Sheet1' cut at row {last:,}",)


def test_one_huge_cell_is_cut_at_the_character_limit_in_the_reading_process(tmp_path: Path) -> None:
    path = write(tmp_path, "cell.xlsx", hostile.xlsx_of_one_cell(1_000_000))
    with PdfWorker(PdfLimits(max_chars=100_000)) as worker:
        doc = parse_document(path, pdf_worker=worker)
    kept = total(doc)
    assert 99_000 <= kept <= 100_000 and "end" not in doc.pages[0].text.splitlines()[-1]
    limits = parse_xlsx._Budget.limits(100_000)
    assert doc.warnings == (
        f"{path}: over the reading limits ({limits}): sheet 'Sheet1' cut in row 1 (the character limit)",
    )


def test_a_wide_table_is_counted_at_its_width(tmp_path: Path) -> None:
    """One row 256 cells wide makes every row of the table that wide: the Markdown, not the values, is counted."""
    first = "".join(f'<c r="{hostile.column_name(c)}1"><v>{c}</v></c>' for c in range(1, 257))
    rest = "".join(f'<row r="{r}"><c r="A{r}"><v>{r}</v></c></row>' for r in range(2, 5_002))
    path = write(tmp_path, "wide.xlsx", hostile.xlsx(f'<row r="1">{first}</row>{rest}'.encode()))
    doc = parse_xlsx.read_xlsx(path, path.read_bytes(), max_chars=500_000)
    assert len(doc.pages[0]) <= 500_000
    assert "cut in row" in doc.warnings[0]


# --- both ----------------------------------------------------------------------------------------------------


def test_the_reading_process_reads_word_and_excel_files_as_this_process_does(tmp_path: Path) -> None:
    files = [
        write(tmp_path, "tender.docx", office.tender_docx(paged=True)),
        write(tmp_path, "prices.xlsx", office.price_xlsx(cached=False)),
    ]
    with PdfWorker() as worker:
        for path in files:
            here = parse_document(path)
            there = parse_document(path, pdf_worker=worker)
            assert worker.pid is not None  # read there indeed
            assert there == here  # pages, paging, title and warnings alike
