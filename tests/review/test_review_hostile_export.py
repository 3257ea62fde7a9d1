"""A hostile document cannot turn a review's report against its reviewer: each case of the probe, run as a user
runs it (a real KB reviewed with a scripted model, then `pikelocal review --export` and `pikelocal mark` in a
subprocess), and the report read back by the tool its reader opens it with.

The cases: a quote or a title that a spreadsheet would run as a formula; a temporary file planted as a link; a
control character in a document or a note (python-docx refused it); raw HTML and a `|` in a Markdown table; the
report's permissions (the KB's, not the umask's); a full disk (one line, nothing left behind); the XLSX workbook
read as a spreadsheet reads it, and imported back without a change."""

from __future__ import annotations

import csv
import errno
import os
import re
import stat
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

import docx
import pytest

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.domain.errors import DiskFullError
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.workbooks import rows_as_a_spreadsheet_reads_them

TENDER = '=HYPERLINK("http://127.0.0.1:9","x") The budget is 5,000 USD.\n+SUM(1+1) The budget is 7,000 USD.\n'
NOTES = (
    "# =cmd|' /C calc'!A0\n\nThe deposit is 300 USD \x1b[31m<script>alert(1)</script> | <img src=x onerror=alert(2)>.\n"
)
CHECKLIST = """[[items]]
id = "budget"
label = "Budget"
kind = "amount"
question.en = "What is the budget?"
hints = ["budget"]

[[items]]
id = "deposit"
label = "Deposit | <b>bold</b>"
kind = "amount"
question.en = "What is the deposit?"
hints = ["deposit"]
"""
_NUMBER = re.compile(r"^\[\d+\]\s*")
FORMULA_START = tuple("=+-@\t\r")


def quote_line_with(messages: Sequence[Message], _params: GenParams) -> str:
    """The scripted model: the first source line holding the asked term, quoted; its amount as the answer."""
    prompt = messages[-1].content
    asked = prompt.rsplit("Question:", 1)[-1]
    for term in ("budget", "deposit"):
        if term in asked:
            line = next((ln for ln in prompt.splitlines() if f"The {term} is" in ln), None)
            if line is not None:
                quote = _NUMBER.sub("", line).strip()
                amount = re.search(r"[\d,]+ USD", quote)
                return f"Quote: {quote}\nAnswer: {amount.group() if amount else quote}"
    return "Quote: none\nAnswer: The documents do not state this."


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A KB of the two hostile documents, reviewed with the two-item checklist; the deposit marked with a note
    holding BEL."""
    root = tmp_path_factory.mktemp("hostile-export")
    docs = root / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(TENDER, encoding="utf-8")
    (docs / "notes.md").write_text(NOTES, encoding="utf-8")
    checklist = root / "c.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    kb = root / "k.kb"
    llm = FakeLLM({"answer-quote": quote_line_with})
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder(), llm=llm) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
        report = knowledge_base.review(api.ReviewRequest(str(checklist)))
    rows = {r.item_id: r for r in report.rows}
    assert rows["budget"].verdict == "conflicting", rows["budget"]
    assert any("HYPERLINK" in q.text for q in rows["budget"].quotes)
    assert any("<script>" in q.text for q in rows["deposit"].quotes)
    marked = run_cli("mark", str(kb), str(checklist), "deposit", "to_check", "--note", "x\x07 =1+1 <i>note</i>")
    assert marked.returncode == 0, marked.stderr
    return kb, checklist


def export(reviewed: tuple[Path, Path], out: Path) -> subprocess.CompletedProcess[str]:
    kb, checklist = reviewed
    return run_cli("review", str(kb), "--checklist", str(checklist), "--export", str(out))


def exported(reviewed: tuple[Path, Path], out: Path) -> Path:
    proc = export(reviewed, out)
    assert proc.returncode == 0, proc.stderr
    return out


def test_no_csv_cell_starts_a_formula(reviewed: tuple[Path, Path], tmp_path: Path) -> None:
    with exported(reviewed, tmp_path / "r.csv").open(encoding="utf-8", newline="") as fh:
        lines = list(csv.reader(fh))
    cells = [cell for line in lines[1:] for cell in line]
    assert not [cell for cell in cells if cell.startswith(FORMULA_START)]
    quotes = [line[8] for line in lines[1:]]
    assert "'+SUM(1+1) The budget is 7,000 USD." in quotes
    assert any("HYPERLINK(" in quote for quote in quotes)
    assert "'=cmd|' /C calc'!A0" in [line[9] for line in lines[1:]]  # the document's title
    assert all(len(line) == len(lines[0]) for line in lines)


def test_no_xlsx_cell_is_a_formula_and_the_workbook_imports_back_unchanged(
    reviewed: tuple[Path, Path], tmp_path: Path
) -> None:
    out = exported(reviewed, tmp_path / "r.xlsx")
    sheets = rows_as_a_spreadsheet_reads_them(out)  # no formula cell, no text a spreadsheet would take for one
    quotes = [row[2] for row in sheets["quotes"][1:]]
    assert "'+SUM(1+1) The budget is 7,000 USD." in quotes
    assert "'=cmd|' /C calc'!A0" in [row[4] for row in sheets["quotes"][1:]]  # the document's title
    header, *rows = sheets["review"]
    notes = {row[header.index("item")]: row[header.index("note")] for row in rows}
    assert notes == {"budget": None, "deposit": "x\ufffd =1+1 <i>note</i>"}  # BEL as the replacement mark
    kb, checklist = reviewed
    proc = run_cli("review", str(kb), "--checklist", str(checklist), "--import-marks", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("2 rows read from r.xlsx: 0 changed, 2 unchanged, 0 not taken.")


def test_a_planted_temporary_link_is_not_followed(reviewed: tuple[Path, Path], tmp_path: Path) -> None:
    secret = tmp_path / "v"
    secret.write_text("SECRET\n")
    (tmp_path / "r.html.partial").symlink_to(secret)
    (tmp_path / "other.html").symlink_to(tmp_path / "elsewhere.html")  # a link at the target itself: replaced
    exported(reviewed, tmp_path / "r.html")
    exported(reviewed, tmp_path / "other.html")
    assert secret.read_text() == "SECRET\n"
    assert not (tmp_path / "elsewhere.html").exists()
    for name in ("r.html", "other.html"):
        assert not (tmp_path / name).is_symlink() and "<table>" in (tmp_path / name).read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.html", "r.html", "r.html.partial", "v"]


def test_the_docx_holds_control_characters_as_replacement_marks(reviewed: tuple[Path, Path], tmp_path: Path) -> None:
    document = docx.Document(str(exported(reviewed, tmp_path / "r.docx")))
    cells = [[c.text for c in row.cells] for table in document.tables for row in table.rows]
    deposit = next(r for r in cells if r[0].startswith("Deposit"))
    assert "300 USD \ufffd[31m<script>" in deposit[3]
    assert deposit[4] == "to check\nx\ufffd =1+1 <i>note</i>"


def test_markdown_carries_no_raw_html_and_keeps_its_columns(reviewed: tuple[Path, Path], tmp_path: Path) -> None:
    text = exported(reviewed, tmp_path / "r.md").read_text(encoding="utf-8")
    assert "<script" not in text and "<img" not in text and "<b>" not in text and "<i>" not in text
    assert "&lt;script&gt;" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    for row in rows:
        cells = re.split(r"(?<!\\)\|", row)[1:-1]  # a | not escaped by a backslash starts a cell
        assert len(cells) in (7, 4), row  # the items' tables and the audit trail's
    assert "\x1b" not in text and "\x07" not in text


def test_the_report_has_the_kbs_permissions(reviewed: tuple[Path, Path], tmp_path: Path) -> None:
    kb, _ = reviewed
    assert stat.S_IMODE(kb.stat().st_mode) == 0o600
    for name in ("r.md", "r.csv", "r.html", "r.docx"):
        assert stat.S_IMODE(exported(reviewed, tmp_path / name).stat().st_mode) == 0o600, name
    kb.chmod(0o640)
    try:
        assert stat.S_IMODE(exported(reviewed, tmp_path / "g.md").stat().st_mode) == 0o640
    finally:
        kb.chmod(0o600)


def test_a_full_disk_is_one_line_and_leaves_nothing(
    reviewed: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kb, checklist = reviewed
    real_write = os.write
    written: list[int] = []

    def full(fd: int, data: bytes | memoryview) -> int:
        if written:  # the first write goes through; the disk is full after it
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(fd)
        return real_write(fd, bytes(data)[:100])

    out = tmp_path / "r.html"
    with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        monkeypatch.setattr(os, "write", full)
        with pytest.raises(DiskFullError) as caught:
            knowledge_base.export_review(str(checklist), out)
        monkeypatch.undo()
    assert written
    assert str(caught.value) == f"{out}: the disk is full; nothing was written: free some space and export again"
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs; skipped where no tmpfs can be mounted (not root, no mount namespace)."""
    point = tmp_path / "disk"
    point.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(point)], capture_output=True)
    except FileNotFoundError:
        pytest.skip("no mount command here")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], capture_output=True)


def test_a_really_full_disk_leaves_no_partial_file(reviewed: tuple[Path, Path], small_disk: Path) -> None:
    with (small_disk / "filler").open("wb", buffering=0) as fh:  # the disk filled to its last byte
        try:
            while True:
                fh.write(b"\0" * 512)
        except OSError as err:
            assert err.errno == errno.ENOSPC
    proc = export(reviewed, small_disk / "r.html")
    assert_one_line_error(proc, 5, f"{small_disk / 'r.html'}: the disk is full; nothing was written")
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]


def test_a_folder_that_is_not_there_is_one_line(reviewed: tuple[Path, Path], tmp_path: Path) -> None:
    assert_one_line_error(export(reviewed, tmp_path / "nope" / "r.md"), 6, f"{tmp_path / 'nope'}: no such folder")


def test_a_note_holding_bytes_that_are_not_utf8_is_stored_with_replacement_marks(
    reviewed: tuple[Path, Path], tmp_path: Path
) -> None:
    """Python hands such an argument over as a lone surrogate, which SQLite cannot store: once an unexpected
    UnicodeEncodeError."""
    kb, checklist = reviewed
    marked = run_cli("mark", str(kb), str(checklist), "budget", "wrong", "--note", "x\udcff\x07y")  # the byte 0xff
    assert marked.returncode == 0, marked.stderr
    with exported(reviewed, tmp_path / "r.csv").open(encoding="utf-8", newline="") as fh:
        notes = {line["item"]: line["note"] for line in csv.DictReader(fh)}
    assert notes["budget"] == "x\ufffd\ufffdy"
