"""Files a careless user feeds in. Every one fails (or is skipped) alone with a one-line reason naming it,
the rest of the batch is ingested and embedded, and the KB stays consistent: certificate-encrypted and AES PDFs,
an exception nobody foresaw, two writers racing on one file, disk images, oversized files, named pipes, devices,
symbolic links out of the folder or in a loop, and a damaged PDF that makes pypdf warn hundreds of times."""

from __future__ import annotations

import errno
import io
import logging
import os
import re
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pypdf
import pytest

from pikelocal.config import Settings, load_settings
from pikelocal.domain.errors import ConfigError
from pikelocal.domain.events import Event, Notice
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest import pipeline
from pikelocal.ingest.pipeline import FileOutcome, IngestOptions, Ingestor, IngestReport
from pikelocal.ingest.read.discover import Found
from pikelocal.ingest.read.parse import ParsedDocument
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)
CERTIFICATE = "encrypted (certificate security handler, not supported)"


# --- helpers ---------------------------------------------------------------------------------------------


def text_pdf(pages: Sequence[Sequence[str]], *, trailer: bytes = b"") -> bytes:
    """A small, valid PDF written byte by byte: one Helvetica text line per string; ``trailer`` is added to it."""
    n_objects = 3 + 2 * len(pages)
    page_ids = [4 + 2 * i for i in range(len(pages))]
    kids = b" ".join(b"%d 0 R" % i for i in page_ids)
    objects = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    for page_id, lines in zip(page_ids, pages, strict=True):
        content = b"BT /F1 12 Tf 72 720 Td 14 TL " + b" ".join(b"(%s) '" % line.encode() for line in lines) + b" ET"
        objects[page_id] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>"
            b" /Contents %d 0 R >>" % (page_id + 1)
        )
        objects[page_id + 1] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (n_objects + 1)
    out += b"".join(b"%010d 00000 n \n" % offsets[number] for number in sorted(objects))
    out += b"trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n" % (n_objects + 1, trailer, xref)
    return bytes(out)


def pike_pages(n: int) -> list[list[str]]:
    return [[f"Page {i} line {j}: the northern pike waits among the reeds." for j in range(4)] for i in range(n)]


def open_kb(path: Path) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim)


def ingest(store: Store, paths: Sequence[Path], events: list[Event] | None = None, **options: object) -> IngestReport:
    opts = IngestOptions.from_settings(Settings(), **{"split": SMALL, "late": True, **options})
    sink = events.append if events is not None else (lambda _event: None)
    return Ingestor(store, HashEncoder(), opts, sink).ingest_paths(list(paths))


def by_path(report: IngestReport) -> dict[str, FileOutcome]:
    out = {o.path: o for o in report.outcomes}
    assert len(out) == len(report.outcomes), "a path reported twice"
    return out


def key(path: Path) -> str:
    return str(path.resolve())


def assert_all_embedded(store: Store, paths: Sequence[Path]) -> None:
    """Exactly these files are documents, all ready, with an early and a late vector per chunk."""
    assert store.integrity_check() == []
    docs = store.docs.documents()
    assert sorted(d.path for d in docs) == sorted(key(p) for p in paths)
    assert {d.stage for d in docs} <= {"ready"}
    counts = store.counts()
    assert counts["chunk_vectors"] == counts["late_vectors"] == counts["chunks"] > 0


def assert_one_line_failure(outcome: FileOutcome, path: Path, reason: str) -> None:
    assert outcome.status == "failed" and outcome.reason == reason, outcome
    assert path.name in outcome.message and "\n" not in outcome.message, outcome


def warnings_of(events: list[Event]) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]


# --- 1. any exception is the file's failure; certificate encryption -------------------------------------


def test_a_certificate_encrypted_pdf_fails_alone_and_the_other_files_are_embedded(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("The first file is about pike in spring.\n\nThey spawn in flooded meadows.\n")
    secret = folder / "b.pdf"
    secret.write_bytes(text_pdf(pike_pages(1), trailer=b"/Encrypt << /Filter /Adobe.PubSec /V 4 /R 4 >> "))
    with pytest.raises(NotImplementedError):  # what pypdf does with it: the file triggers the case of the issue
        pypdf.PdfReader(io.BytesIO(secret.read_bytes()))
    (folder / "c.txt").write_text("The third file is about pike under the ice.\n\nThey keep feeding all winter.\n")
    good = [folder / "a.txt", folder / "c.txt"]
    with open_kb(tmp_path / "kb.kb") as store:
        for run in ("first", "again"):
            events: list[Event] = []
            outcomes = by_path(ingest(store, [folder], events))
            expected = "ingested" if run == "first" else "unchanged"
            assert [outcomes[key(p)].status for p in good] == [expected, expected], run
            assert_one_line_failure(outcomes[key(secret)], secret, "encrypted")
            assert outcomes[key(secret)].message == f"{secret}: {CERTIFICATE}"
            assert [(f.path, f.reason) for f in store.docs.failures()] == [(key(secret), "encrypted")]
            assert_all_embedded(store, good)


def test_an_exception_nobody_foresaw_fails_its_file_and_the_batch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    names = ["a.txt", "b.txt", "c.txt"]
    for name in names:
        (folder / name).write_text(f"File {name} tells of pike.\n\nA second paragraph of {name}.\n")
    real = pipeline.parse_document

    def parse(path: Path, **kwargs: object) -> ParsedDocument:
        if path.name == "b.txt":
            raise ZeroDivisionError("a bug deep in a library")
        return real(path, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "parse_document", parse)
    events: list[Event] = []
    with open_kb(tmp_path / "kb.kb") as store:
        outcomes = by_path(ingest(store, [folder], events))
        bad = folder / "b.txt"
        assert_one_line_failure(outcomes[key(bad)], bad, "unexpected")
        assert "ZeroDivisionError: a bug deep in a library" in outcomes[key(bad)].message
        assert [e.message for e in events if isinstance(e, Notice) and e.level == "error"] == [
            outcomes[key(bad)].message
        ]
        assert_all_embedded(store, [folder / "a.txt", folder / "c.txt"])


# --- 2. AES with an empty user password ------------------------------------------------------------------


def test_an_aes_256_pdf_with_an_empty_user_password_is_ingested(tmp_path: Path) -> None:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(text_pdf(pike_pages(2))))
    writer.encrypt(user_password="", owner_password="x", algorithm="AES-256")
    path = tmp_path / "aes.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    assert b"/AESV3" in path.read_bytes()
    with open_kb(tmp_path / "kb.kb") as store:
        (outcome,) = ingest(store, [path]).outcomes
        assert outcome.status == "ingested" and outcome.pages == 2, outcome
        text = "".join(c.text for c in store.chunks.chunks_of(outcome.doc_id or 0))
        assert "Page 1 line 3: the northern pike waits among the reeds." in text
        assert_all_embedded(store, [path])


# --- 3. two writers racing on the same file -------------------------------------------------------------


def test_a_second_writer_storing_the_same_file_first_makes_this_one_a_duplicate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = tmp_path / "shared.txt"
    doc.write_text("Two ingests of this file run at once.\n\nOnly one copy may end up in the KB.\n")
    other = tmp_path / "other.txt"
    other.write_text("A second file in the same batch, after the race.\n")
    kb = tmp_path / "kb.kb"
    real = pipeline.parse_document
    raced: list[FileOutcome] = []

    def parse(path: Path, **kwargs: object) -> ParsedDocument:
        parsed = real(path, **kwargs)  # type: ignore[arg-type]
        if path.name == "shared.txt" and not raced:
            # the other writer: between this run's sha256 check and its insert, it stores the same content
            raced.append(FileOutcome("", "failed"))
            with open_kb(kb) as second:
                raced[:] = ingest(second, [doc]).outcomes
        return parsed

    monkeypatch.setattr(pipeline, "parse_document", parse)
    with open_kb(kb) as store:
        outcomes = by_path(ingest(store, [doc, other]))
        assert [o.status for o in raced] == ["ingested"]
        mine = outcomes[key(doc)]
        assert mine.status == "duplicate" and mine.doc_id == raced[0].doc_id, mine
        assert "another run" in mine.message and "\n" not in mine.message
        assert outcomes[key(other)].status == "ingested"
        assert store.docs.failures() == []
        assert_all_embedded(store, [doc, other])


# --- 4. what a folder walk finds -------------------------------------------------------------------------


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Names of the files whose bytes were asked for (the pipeline's one read, ``read_found``); the big ones are
    never really read."""
    names: list[str] = []
    real = pipeline.read_found

    def read_found(found: Found, **kwargs: int | None) -> bytes:
        names.append(found.path.name)
        if os.stat(found.opened).st_size > 50 << 20:
            raise OSError(errno.EFBIG, "the test refuses to read a big file", str(found.path))
        return real(found, **kwargs)

    monkeypatch.setattr(pipeline, "read_found", read_found)
    yield names


def test_big_and_unsupported_files_are_refused_without_reading_a_byte(tmp_path: Path, reads: list[str]) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    for name in ("ubuntu.iso", "dump.txt"):
        with (folder / name).open("wb") as fh:
            fh.truncate(1 << 30)  # sparse: 1 GiB on paper, nothing on disk
    with (folder / "notes.md").open("wb") as fh:
        fh.truncate(3 << 20)
    (folder / "readme.txt").write_text("The one small document in the downloads folder.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        outcomes = by_path(ingest(store, [folder]))
        assert_one_line_failure(outcomes[key(folder / "ubuntu.iso")], folder / "ubuntu.iso", "unsupported")
        assert_one_line_failure(outcomes[key(folder / "dump.txt")], folder / "dump.txt", "too-large")
        assert "1,024 MB" in outcomes[key(folder / "dump.txt")].message
        assert "200 MB (ingest.max_file_mb)" in outcomes[key(folder / "dump.txt")].message
        assert outcomes[key(folder / "readme.txt")].status == "ingested"
        assert reads == ["notes.md", "readme.txt"]  # neither the image nor the big text file was read

        # a lower limit (ingest.max_file_mb) refuses the 3 MB file too, named explicitly as well
        reads.clear()
        (small,) = ingest(store, [folder / "notes.md"], max_file_mb=2).outcomes
        assert_one_line_failure(small, folder / "notes.md", "too-large")
        assert reads == []
        assert_all_embedded(store, [folder / "readme.txt"])


def test_max_file_mb_is_a_setting_of_at_least_1(tmp_path: Path) -> None:
    empty, toml = tmp_path / "empty.toml", tmp_path / "pikelocal.toml"
    empty.write_text("")
    toml.write_text("[ingest]\nmax_file_mb = 5\n")
    assert load_settings(empty, environ={}).ingest.max_file_mb == 200
    assert load_settings(toml, environ={}).ingest.max_file_mb == 5
    with pytest.raises(ConfigError, match=r"ingest.max_file_mb = 0: must be at least 1"):
        load_settings(empty, environ={"PIKELOCAL_INGEST_MAX_FILE_MB": "0"})


def test_links_out_of_a_walked_folder_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "secret.txt").write_text("Bank details that must never reach the KB.\n")
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    (folder / "inside.txt").write_text("A document that belongs to the folder.\n")
    (folder / "secret.txt").symlink_to(outside / "secret.txt")
    (folder / "sub" / "private").symlink_to(outside, target_is_directory=True)
    (folder / "alias.txt").symlink_to(folder / "inside.txt")  # inside the folder: the same file, once
    (folder / "loop.txt").symlink_to(folder / "loop.txt")
    events: list[Event] = []
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [folder], events)
        assert [(o.path, o.status) for o in report.outcomes] == [(key(folder / "alias.txt"), "ingested")]
        warnings = warnings_of(events)
        assert len(warnings) == 3, warnings
        for name in ("secret.txt", "sub/private"):
            (line,) = [w for w in warnings if w.startswith(f"{folder.resolve() / name}:")]
            assert "outside" in line and "not followed" in line
        assert any(w.startswith(f"{folder.resolve() / 'loop.txt'}:") and "loop" in w for w in warnings)
        assert store.docs.failures() == []
        assert_all_embedded(store, [folder / "inside.txt"])


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A named pipe; should anything open it to read, a writer shows up after 2 s so the test fails, not hangs."""
    path = tmp_path / "pipe.txt"
    os.mkfifo(path)
    stop = threading.Event()

    def unblock() -> None:
        stop.wait(2)
        while not stop.is_set():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # a reader waits: let it see end of file
            except OSError:
                stop.wait(0.1)

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join()


def test_a_named_pipe_a_device_and_a_link_loop_are_refused_and_the_batch_goes_on(tmp_path: Path, fifo: Path) -> None:
    loop = tmp_path / "loop.md"
    loop.symlink_to(loop)
    device = Path("/dev/null")
    good = tmp_path / "good.txt"
    good.write_text("After the pipe, the device and the loop, one real document.\n")
    folder = tmp_path / "walked"
    folder.mkdir()
    os.mkfifo(folder / "another-pipe.txt")
    (folder / "note.txt").write_text("A note next to a named pipe in a folder.\n")
    events: list[Event] = []
    with open_kb(tmp_path / "kb.kb") as store:
        outcomes = by_path(ingest(store, [fifo, device, loop, good, folder], events))
        assert_one_line_failure(outcomes[key(fifo)], fifo, "unsupported")
        assert "named pipe" in outcomes[key(fifo)].message
        assert_one_line_failure(outcomes[str(device)], device, "unsupported")
        assert "device" in outcomes[str(device)].message
        loop_outcome = outcomes[str(tmp_path.resolve() / "loop.md")]
        assert_one_line_failure(loop_outcome, loop, "unreadable")
        assert "loop" in loop_outcome.message
        assert outcomes[key(good)].status == outcomes[key(folder / "note.txt")].status == "ingested"
        (warning,) = warnings_of(events)  # the pipe in the walked folder: skipped, said once
        assert "another-pipe.txt" in warning and "named pipe" in warning
        assert_all_embedded(store, [good, folder / "note.txt"])


# --- 5. pypdf's warnings ----------------------------------------------------------------------------------


def damaged_pdf() -> bytes:
    """Every cross-reference offset off by 7 bytes: pypdf repairs it, warning once per object it looks up."""
    data = text_pdf(pike_pages(40))
    start = data.rindex(b"\nxref\n")
    table = re.sub(rb"(\d{10}) 00000 n", lambda m: b"%010d 00000 n" % (int(m.group(1)) + 7), data[start:])
    return data[:start] + table


def test_a_damaged_pdf_gives_a_few_warnings_not_hundreds(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "damaged.pdf"
    path.write_bytes(damaged_pdf())
    caplog.set_level(logging.DEBUG)
    events: list[Event] = []
    with open_kb(tmp_path / "kb.kb") as store:
        (outcome,) = ingest(store, [path], events).outcomes
        assert outcome.status == "ingested" and outcome.pages == 40, outcome
        assert_all_embedded(store, [path])
    leaked = [r for r in caplog.records if r.name.startswith("pypdf") and r.levelno >= logging.WARNING]
    assert leaked == []  # nothing of pypdf's reaches the terminal
    logged = [r for r in caplog.records if r.name.startswith("pikelocal.ingest") and r.getMessage().startswith("pypdf")]
    assert len(logged) > 100  # all of them are at DEBUG
    assert all(r.levelno == logging.DEBUG for r in logged)
    (warning,) = outcome.warnings
    assert warning.startswith(f"{path}: {len(logged)} problem(s) in the PDF's structure")
    assert warning.count("Ignoring wrong pointing object") == 3 and "\n" not in warning
    assert warnings_of(events) == [warning]


def test_the_max_file_mb_setting_reaches_ingestion(tmp_path: Path) -> None:
    """ingest.max_file_mb, set as a user would, is what the pipeline applies (kb/options.py passes it on)."""
    from pikelocal import api
    from pikelocal.embed.fake import HashEncoder

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "big.txt").write_text("The bid bond is due with the bid.\n" * 40_000)  # about 1.3 MB
    (folder / "small.txt").write_text("The site visit is on Monday.\n")
    settings = api.load_settings(environ={"PIKELOCAL_INGEST_MAX_FILE_MB": "1"})
    with api.open_kb(tmp_path / "kb.kb", settings, encoder=HashEncoder()) as knowledge_base:
        report = knowledge_base.add([folder]).ingest
    by_name = {Path(o.path).name: o for o in report.outcomes}
    assert by_name["small.txt"].status == "ingested"
    assert by_name["big.txt"].status == "failed" and "ingest.max_file_mb" in by_name["big.txt"].message
