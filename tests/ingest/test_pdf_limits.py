"""Bounded work per document: a PDF is read in a child process within limits on time, memory, pages and
characters, each ending in seconds with a one-line reason (or a cut document with a warning), and a cancel stops
it mid-file with no child process left behind. The batch goes on after every one of them."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import ContentStream, DictionaryObject, NameObject

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.errors import Cancelled, ConfigError, DocumentError
from pikelocal.domain.events import Event, Notice, StageAdvanced, cancellable
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.read.parse import parse_document
from pikelocal.ingest.read.parse_pdf import PdfPages
from pikelocal.ingest.read.pdf_worker import PdfLimits, PdfWorker
from pikelocal.store.store import Store
from tests.support.children import (
    ingest,
    no_child_left,  # noqa: F401  (an autouse fixture: every test here)
    outcome_of,
    reading_children,
)

BID_LINE = b"BT /F1 9 Tf 20 700 Td (" + b"bid bond " * 20 + b") Tj ET\n"


# --- PDFs --------------------------------------------------------------------------------------------------


def _writer_with_font() -> tuple[PdfWriter, DictionaryObject]:
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    return writer, resources


def _stream(writer: PdfWriter, data: bytes) -> object:
    stream = ContentStream(None, None)
    stream.set_data(data)
    return writer._add_object(stream.flate_encode())


def shared_stream_pdf(path: Path, pages: int = 2000, stream_mb: float = 3) -> Path:
    """A PDF of ``pages`` pages whose /Contents is one and the same ~3 MB content stream (~300 KB file)."""
    writer, resources = _writer_with_font()
    ref = _stream(writer, BID_LINE * int(stream_mb * 2**20 // len(BID_LINE)))
    shared = writer._add_object(resources)
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = ref
        page[NameObject("/Resources")] = shared
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def text_pdf(path: Path, pages: Sequence[Sequence[str]]) -> Path:
    """One text line per string, each page its own content stream."""
    writer, resources = _writer_with_font()
    for lines in pages:
        shown = b" ".join(b"(%s) '" % line.encode() for line in lines)
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = _stream(writer, b"BT /F1 12 Tf 72 720 Td 14 TL " + shown + b" ET")
        page[NameObject("/Resources")] = resources
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def one_huge_page_pdf(path: Path, stream_mb: int = 20) -> Path:
    """One page drawing millions of one-letter strings: pypdf holds an object per operand and operator."""
    writer, resources = _writer_with_font()
    op = b"(x) Tj\n"
    page = writer.add_blank_page(612, 792)
    page[NameObject("/Contents")] = _stream(writer, b"BT /F1 9 Tf 20 700 Td\n" + op * (stream_mb * 2**20 // 7) + b"ET")
    page[NameObject("/Resources")] = resources
    with path.open("wb") as fh:
        writer.write(fh)
    return path


def pages_of_lines(n_pages: int, n_lines: int = 10) -> list[list[str]]:
    return [
        [f"Page {p} line {j}: the northern pike waits among the reeds." for j in range(n_lines)] for p in range(n_pages)
    ]


@pytest.fixture(scope="module")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = shared_stream_pdf(tmp_path_factory.mktemp("bomb") / "bomb.pdf")
    assert path.stat().st_size < 400 * 1024  # the 321 KB file
    return path


# --- helpers -----------------------------------------------------------------------------------------------


def open_kb(path: Path) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim)


def good_text(folder: Path) -> Path:
    path = folder / "notes.txt"
    path.write_text("The site visit is on Monday.\n\nBids close on Friday at noon.\n")
    return path


# --- time --------------------------------------------------------------------------------------------------


def test_the_shared_stream_pdf_stops_at_the_time_limit_with_the_reason(tmp_path: Path, bomb: Path) -> None:
    other = good_text(tmp_path)
    with open_kb(tmp_path / "kb.kb") as store:
        t0 = time.monotonic()
        report = ingest(store, [bomb, other], pdf=PdfLimits(timeout_s=1.0))
        seconds = time.monotonic() - t0
        failed = outcome_of(report, bomb)
        assert failed.status == "failed" and failed.reason == "timeout", failed
        assert re.fullmatch(
            rf"{re.escape(str(bomb))}: reading the PDF took longer than ingest.pdf_timeout_s = 1 s"
            r" (after \d+ of 2,000 pages|while opening it); stopped",
            failed.message,
        ), failed.message
        assert seconds < 8, f"the time limit of 1 s ended the batch after {seconds:.1f} s"
        assert outcome_of(report, other).status == "ingested"
        assert [(f.path, f.reason) for f in store.docs.failures()] == [(str(bomb.resolve()), "timeout")]


def test_pages_sharing_a_content_stream_are_extracted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The text of a page is what its content stream and resources draw: the 2,000 shared pages cost one page."""
    from pypdf import PageObject

    path = shared_stream_pdf(tmp_path / "shared.pdf", pages=2000, stream_mb=0.01)
    real, calls = PageObject.extract_text, []

    def counted(page: PageObject, *args: object, **kwargs: object) -> str:
        calls.append(page)
        return real(page, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(PageObject, "extract_text", counted)
    pdf = PdfPages(path, path.read_bytes(), None)
    texts = [pdf.text(i) for i in range(pdf.n_pages)]
    assert len(calls) == 1 and len(set(texts)) == 1 and "bid bond bid bond" in texts[0]
    # pages with streams of their own are each extracted
    own = text_pdf(tmp_path / "own.pdf", pages_of_lines(3, 2))
    calls.clear()
    pdf = PdfPages(own, own.read_bytes(), None)
    assert [pdf.text(i).splitlines()[0] for i in range(3)] == [
        f"Page {p} line 0: the northern pike waits among the reeds." for p in range(3)
    ]
    assert len(calls) == 3


def test_the_shared_stream_pdf_ends_as_one_capped_page_with_both_warnings(tmp_path: Path) -> None:
    """The shared-stream flood: 2,000 pages drawing one 3 MB stream. Each page's text (about 3 M characters) is cut at
    100,000, and every page after the first repeats it, so the KB gets one page's worth, not 20 M characters."""
    path = shared_stream_pdf(tmp_path / "flood.pdf", pages=40, stream_mb=0.5)
    doc = parse_document(path)
    assert len(doc.pages) == 40
    first = doc.pages[0].text
    assert 99_000 < len(first) <= 100_000 and first.count("bid bond") > 10_000
    assert [p.page_no for p in doc.pages if p.text] == [1]
    assert any(w == f"{path}: text of 40 page(s) cut at 100,000 characters a page (1, 2, 3, 4, 5, 6, 7, 8, 9, 10 …):"
               " far more than a page holds" for w in doc.warnings), doc.warnings  # fmt: skip
    assert any(w.startswith(f"{path}: 39 page(s) repeat an earlier page's text exactly (2, 3,") for w in doc.warnings)


def test_short_repeated_pages_are_kept(tmp_path: Path) -> None:
    """A short page that recurs (a blank-page notice, a cover) stays on every page it is on."""
    path = text_pdf(tmp_path / "blank.pdf", [["This page is intentionally left blank."]] * 3)
    doc = parse_document(path)
    assert [p.text.strip() for p in doc.pages] == ["This page is intentionally left blank."] * 3
    assert not any("repeat" in w for w in doc.warnings)


# --- memory ------------------------------------------------------------------------------------------------


def test_a_pdf_needing_too_much_memory_stops_with_the_reason_and_the_batch_goes_on(tmp_path: Path) -> None:
    heavy = one_huge_page_pdf(tmp_path / "heavy.pdf")
    after = text_pdf(tmp_path / "after.pdf", pages_of_lines(2))
    with open_kb(tmp_path / "kb.kb") as store:
        t0 = time.monotonic()
        report = ingest(store, [heavy, after], pdf=PdfLimits(memory_mb=128))
        failed = outcome_of(report, heavy)
        assert failed.status == "failed" and failed.reason == "memory", failed
        assert failed.message == (
            f"{heavy}: reading the PDF needed more than ingest.pdf_memory_mb = 128 MB after 0 of 1 pages; stopped"
        )
        assert time.monotonic() - t0 < 30
        # the next PDF is read by a fresh process, under the same limit
        assert outcome_of(report, after).status == "ingested" and outcome_of(report, after).pages == 2


# --- pages and characters ----------------------------------------------------------------------------------


def test_a_pdf_over_the_page_limit_fails_unread(tmp_path: Path) -> None:
    long = text_pdf(tmp_path / "long.pdf", pages_of_lines(30, 1))
    short = text_pdf(tmp_path / "short.pdf", pages_of_lines(20, 1))
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [long, short], pdf=PdfLimits(max_pages=20))
        failed = outcome_of(report, long)
        assert failed.status == "failed" and failed.reason == "too-many-pages", failed
        assert failed.message == f"{long}: 30 pages is over the limit of 20 (ingest.pdf_max_pages); not read"
        assert outcome_of(report, short).status == "ingested" and outcome_of(report, short).pages == 20


def test_a_pdf_over_the_character_limit_is_cut_at_a_line_with_a_warning(tmp_path: Path) -> None:
    path = text_pdf(tmp_path / "book.pdf", pages_of_lines(10))  # 10 lines of 56 characters a page
    whole = parse_document(path)
    per_page = len(whole.pages[0].text)
    limit = 3 * per_page + 200  # page 4 is cut after 3 of its lines
    with PdfWorker(PdfLimits(max_chars=limit)) as worker:
        cut = parse_document(path, pdf_worker=worker)
    assert [p.page_no for p in cut.pages] == [1, 2, 3, 4]
    assert [p.text for p in cut.pages[:3]] == [p.text for p in whole.pages[:3]]
    assert whole.pages[3].text.startswith(cut.pages[3].text) and cut.pages[3].text.endswith("\n")
    assert 0 < len(cut.pages[3].text) <= 200
    assert cut.pages[3].line_offsets == whole.pages[3].line_offsets[: len(cut.pages[3].line_offsets)]
    assert sum(len(p.text) for p in cut.pages) <= limit
    assert cut.warnings == (
        f"{path}: text cut at ingest.pdf_max_chars = {limit:,} characters, on page 4 of 10; the last 6 page(s) are"
        " left out",
    )
    with open_kb(tmp_path / "kb.kb") as store:
        events: list[Event] = []
        report = ingest(store, [path], events.append, pdf=PdfLimits(max_chars=limit))
        assert outcome_of(report, path).status == "ingested" and outcome_of(report, path).pages == 4
        assert [e.message for e in events if isinstance(e, Notice) and e.level == "warning"] == list(cut.warnings)


# --- cancel and crashes ------------------------------------------------------------------------------------


def test_a_cancel_stops_the_shared_stream_pdf_mid_file_leaving_no_process(tmp_path: Path, bomb: Path) -> None:
    asked: list[float] = []
    details: list[str] = []

    def watch(event: Event) -> None:
        if isinstance(event, StageAdvanced) and event.stage == "parse" and event.done == 0:
            details.append(event.detail)
            asked.append(time.monotonic())  # the user presses cancel on seeing the first progress

    sink = cancellable(watch, lambda: bool(asked))
    with open_kb(tmp_path / "kb.kb") as store, pytest.raises(Cancelled):
        ingest(store, [bomb], sink)
    stopped = time.monotonic() - asked[0]
    assert stopped < 1.0, f"the cancel took {stopped:.1f} s"
    assert details and details[0] in ("opening bomb.pdf", "p. 0/2,000 bomb.pdf")
    assert reading_children() == []


def test_a_killed_reading_process_fails_its_file_and_the_next_pdf_gets_a_new_one(tmp_path: Path, bomb: Path) -> None:
    victim = text_pdf(tmp_path / "victim.pdf", pages_of_lines(3))
    after = text_pdf(tmp_path / "after.pdf", pages_of_lines(2))
    with PdfWorker() as worker:

        def kill_it(done: int, total: int) -> None:
            if total and worker.pid is not None:  # opened: the process is busy on the first page
                os.kill(worker.pid, signal.SIGKILL)

        with pytest.raises(DocumentError) as info:
            parse_document(bomb, pdf_worker=worker, progress=kill_it)
        assert info.value.reason == "crashed"
        assert str(info.value) == (
            f"{bomb}: the PDF reading process was killed by SIGKILL (out of memory?) after 0 of 2,000 pages"
        )
        assert worker.pid is None
        assert len(parse_document(after, pdf_worker=worker).pages) == 2  # a new process reads the next PDF
        assert len(parse_document(victim, pdf_worker=worker).pages) == 3


# --- settings ----------------------------------------------------------------------------------------------


def test_the_pdf_limits_are_settings_that_reach_ingestion(tmp_path: Path) -> None:
    defaults = load_settings(environ={}).ingest
    assert (defaults.pdf_timeout_s, defaults.pdf_memory_mb, defaults.pdf_max_pages, defaults.pdf_max_chars) == (
        300.0,
        1536,
        5000,
        20_000_000,
    )
    for name, value, message in [
        ("PDF_TIMEOUT_S", "0", "ingest.pdf_timeout_s = 0.0: must be more than 0 seconds"),
        ("PDF_MEMORY_MB", "100", "ingest.pdf_memory_mb = 100: must be at least 256"),
        ("PDF_MAX_PAGES", "0", "ingest.pdf_max_pages = 0: must be at least 1"),
        ("PDF_MAX_CHARS", "10", "ingest.pdf_max_chars = 10: must be at least 1000"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_settings(environ={f"PIKELOCAL_INGEST_{name}": value})
    folder = tmp_path / "docs"
    folder.mkdir()
    text_pdf(folder / "long.pdf", pages_of_lines(6, 1))
    text_pdf(folder / "short.pdf", pages_of_lines(5, 1))
    settings = api.load_settings(environ={"PIKELOCAL_INGEST_PDF_MAX_PAGES": "5"})
    with api.open_kb(tmp_path / "kb.kb", settings, encoder=HashEncoder()) as knowledge_base:
        report = knowledge_base.add([folder]).ingest
    by_name = {Path(o.path).name: o for o in report.outcomes}
    assert by_name["short.pdf"].status == "ingested"
    assert by_name["long.pdf"].reason == "too-many-pages" and "ingest.pdf_max_pages" in by_name["long.pdf"].message


def test_a_big_parent_does_not_make_its_reading_process_look_big(tmp_path: Path) -> None:
    """The child's peak is its own (VmHWM), not the forked parent's (ru_maxrss survives exec): a process holding
    models, like the TUI, keeps one reading process for its PDFs instead of a fresh one after each."""
    ballast = bytearray(600 * 1024 * 1024)  # the parent resident above 1/4 of the child's 1,536 MB limit
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1
    path = text_pdf(tmp_path / "small.pdf", pages_of_lines(2))
    with PdfWorker() as worker:
        first = worker.read(path, path.read_bytes(), None)
        pid = worker.pid
        assert pid is not None and len(first.pages) == 2
        worker.read(path, path.read_bytes(), None)
        assert worker.pid == pid
    del ballast
