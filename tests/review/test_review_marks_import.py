"""The review workbook round trip: `--export review.xlsx`, the mark and note cells edited with openpyxl as a reviewer
edits them in a spreadsheet, `--import-marks` (rows matched by item id, whatever their order), and the KB read back
through the facade; then every way a workbook can be wrong, each one line naming the file, the rest going on."""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.review.clauses import document_clauses
from pikelocal.review.marks_import import MAX_NOTE_CHARS, MAX_ROWS, MAX_UNZIPPED_BYTES
from pikelocal.review.requirements import find_requirements
from pikelocal.review.risks import find_risks
from pikelocal.review.view_export import ViewsReport, write_views
from tests.support.cli import run_cli
from tests.support.search_corpus import make_pdf
from tests.support.workbooks import FORMULA_START, rows_as_a_spreadsheet_reads_them

RFP_PAGES = (
    ("Request for proposals: road works.", '=HYPERLINK("http://x") is not a formula here.'),
    (
        "Bids must be submitted before the closing date of 15 December 2025.",
        "The bid security is USD 50,000 in the form of a bank guarantee.",
    ),
)
CHECKLIST = """name = "mini-en"
title = "Mini RFP checklist"

[[items]]
id = "closing"
label = "Closing date"
section = "Dates"
kind = "date"
question.en = "What is the closing date for bids?"
hints = ["closing date"]

[[items]]
id = "security"
label = "Bid security"
section = "Money"
kind = "amount"
question.en = "How much is the bid security?"
hints = ["bid security"]

[[items]]
id = "warranty"
label = "Warranty"
section = "Terms"
kind = "duration"
question.en = "How long is the warranty?"
hints = ["warranty"]
"""
ANSWERS = {"closing date": ("closing date of", "15 December 2025"), "bid security?": ("bid security is", "USD 50,000")}
_NUMBER = re.compile(r"^\[\d+\]\s*")


def quote_first(messages: Sequence[Message], _params: GenParams) -> str:
    prompt = messages[-1].content
    for asked, (term, answer) in ANSWERS.items():
        if asked in prompt.rsplit("Question:", 1)[-1]:
            line = next((ln for ln in prompt.splitlines() if term in ln), None)
            if line is not None:
                return f"Quote: {_NUMBER.sub('', line).strip()}\nAnswer: {answer}"
    return "Quote: none\nAnswer: The documents do not state this."


Reviewed = tuple[Path, str, Settings]


@pytest.fixture
def reviewed(tmp_path: Path) -> Reviewed:
    """A KB with the three items answered, the closing date marked to_check with a note."""
    settings = load_settings(environ={})
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rfp.pdf").write_bytes(make_pdf(RFP_PAGES))
    checklist = tmp_path / "mini-en.toml"
    checklist.write_text(CHECKLIST, encoding="utf-8")
    path = tmp_path / "t.kb"
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=FakeLLM({"answer-quote": quote_first})) as kb:
        assert not kb.add([docs]).ingest.failed
        rows = {r.item_id: r.verdict for r in kb.review(api.ReviewRequest(str(checklist))).rows}
        kb.review_mark(str(checklist), "closing", "to_check", "two dates?")
    assert rows == {"closing": "found", "security": "found", "warranty": "not_stated"}
    return path, str(checklist), settings


def export(reviewed: Reviewed, out: Path) -> Path:
    path, checklist, settings = reviewed
    with api.open_kb(path, settings, encoder=HashEncoder()) as kb:  # no LLM: one would be an error
        return kb.export_review(checklist, out)


def import_marks(reviewed: Reviewed, workbook: Path) -> api.MarksImport:
    path, checklist, settings = reviewed
    with api.open_kb(path, settings, encoder=HashEncoder()) as kb:
        return kb.import_marks(checklist, workbook)


def marks(reviewed: Reviewed) -> dict[str, tuple[str, str]]:
    path, checklist, settings = reviewed
    with api.open_kb(path, settings, encoder=HashEncoder()) as kb:
        return {r.item_id: (r.mark, r.note) for r in kb.review_rows(checklist)[1]}


def edit(workbook: Path, changes: dict[str, dict[str, object]], *, reverse: bool = False) -> None:
    """Set cells of the review sheet by item id and column name, as a reviewer does in a spreadsheet; ``reverse``
    turns the rows upside down first (a sort), so a row's position says nothing of its item."""
    book = load_workbook(workbook)
    sheet = book["review"]
    header = [c.value for c in sheet[1]]
    rows = [[c.value for c in row] for row in sheet.iter_rows(min_row=2)]
    if reverse:
        rows.reverse()
        for r, values in enumerate(rows, start=2):
            for c, value in enumerate(values, start=1):
                sheet.cell(r, c).value = value
    for r, values in enumerate(rows, start=2):
        for column, value in changes.get(str(values[header.index("item")]), {}).items():
            cell = sheet.cell(r, header.index(column) + 1)
            cell.value = value
            if isinstance(value, str):
                cell.data_type = "s"  # typed as text, as a spreadsheet keeps "=…" typed after a '
    book.save(workbook)


def test_marks_edited_in_the_workbook_are_stored_in_the_kb(reviewed: Reviewed, tmp_path: Path) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(
        workbook,
        {
            "security": {"mark": "accepted", "note": "USD 50,000 as on p. 2"},
            "closing": {"mark": "wrong", "note": "=the rules say 18 December"},  # a formula-looking note: text
            "warranty": {"mark": "to check"},  # as the reports write it
        },
        reverse=True,
    )
    done = import_marks(reviewed, workbook)
    assert (done.read, done.changed, done.unchanged, done.errors) == (3, 3, 0, ())
    assert marks(reviewed) == {
        "closing": ("wrong", "=the rules say 18 December"),
        "security": ("accepted", "USD 50,000 as on p. 2"),
        "warranty": ("to_check", ""),
    }


def test_a_second_import_of_the_same_workbook_changes_nothing(reviewed: Reviewed, tmp_path: Path) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(workbook, {"security": {"mark": "accepted", "note": "ok"}, "closing": {"mark": None, "note": None}})
    first = import_marks(reviewed, workbook)
    second = import_marks(reviewed, workbook)
    assert (first.changed, first.unchanged) == (2, 1)  # the closing mark cleared, the security one set
    assert (second.changed, second.unchanged, second.errors) == (0, 3, ())
    assert marks(reviewed) == {"closing": ("", ""), "security": ("accepted", "ok"), "warranty": ("", "")}
    trail = rows_as_a_spreadsheet_reads_them(export(reviewed, tmp_path / "again.xlsx"))["audit trail"]
    assert [r[1:] for r in trail[1:]] == [
        ("closing", "to check", "two dates?"),
        ("closing", None, None),
        ("security", "accepted", "ok"),
    ]  # three marks ever made: the fixture's, then the first import's two; none by the second import


def test_a_note_with_a_formula_start_survives_export_and_import_unchanged(reviewed: Reviewed, tmp_path: Path) -> None:
    path, checklist, settings = reviewed
    with api.open_kb(path, settings, encoder=HashEncoder()) as kb:
        kb.review_mark(checklist, "security", "accepted", "=SUM(1,2) is what it says")
    done = import_marks(reviewed, export(reviewed, tmp_path / "review.xlsx"))
    assert (done.changed, done.unchanged) == (0, 3)
    assert marks(reviewed)["security"] == ("accepted", "=SUM(1,2) is what it says")


def test_the_exported_workbook_reads_as_a_spreadsheet_reads_it(reviewed: Reviewed, tmp_path: Path) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    sheets = rows_as_a_spreadsheet_reads_them(workbook)
    assert list(sheets) == ["review", "quotes", "audit trail"]
    header, *rows = sheets["review"]
    by_item = {r[header.index("item")]: dict(zip(header, r, strict=True)) for r in rows}
    assert list(by_item) == ["closing", "security", "warranty"]
    closing = by_item["closing"]
    assert (closing["mark"], closing["note"], closing["verdict"]) == ("to_check", "two dates?", "found")
    assert "closing date of 15 December 2025" in str(closing["quote"])
    assert (closing["page"], closing["line_start"], closing["line_end"]) == (2, 1, 1)  # numbers, not text
    assert by_item["warranty"]["quote"] is None and by_item["warranty"]["quotes"] == 0
    quotes = sheets["quotes"]
    assert quotes[0] == ("item", "n", "quote", "value", "document", "page", "line_start", "line_end")
    assert [(q[0], q[1], q[5]) for q in quotes[1:]] == [("closing", 1, 2), ("security", 1, 2)]
    book = load_workbook(workbook)
    sheet = book["review"]
    assert sheet.protection.sheet  # only the mark and note cells are unlocked
    columns = range(1, sheet.max_column + 1)
    unlocked = {sheet.cell(1, c).value for c in columns if not sheet.cell(2, c).protection.locked}
    assert unlocked == {"mark", "note"}
    (choice,) = sheet.data_validations.dataValidation
    assert choice.formula1 == '"accepted,wrong,to_check"'


def test_the_views_workbook_reads_as_a_spreadsheet_reads_it(tmp_path: Path) -> None:
    """The views' workbook too: a quote that starts like a formula stays text there."""
    lines = ["=HYPERLINK(1) 投标将被否决。", "投标人应当提交投标保证金。"]
    text = "".join(line + "\n" for line in lines)
    page = api.PageRecord(1, 1, text, (0, len(lines[0]) + 1))
    clauses = document_clauses(1, "doc", [page], [])
    out = write_views(ViewsReport("kb", find_risks(clauses), find_requirements(clauses), ()), tmp_path / "v.xlsx")
    sheets = rows_as_a_spreadsheet_reads_them(out)
    assert list(sheets) == ["risks", "requirements"]
    quote = sheets["risks"][1][3]
    assert isinstance(quote, str) and quote.startswith("'=HYPERLINK(1)") and not quote.startswith(FORMULA_START)


def test_the_cli_imports_and_names_each_row_not_taken(reviewed: Reviewed, tmp_path: Path) -> None:
    path, checklist, _settings = reviewed
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(workbook, {"security": {"mark": "accepted"}, "warranty": {"mark": "maybe"}})
    proc = run_cli("review", str(path), "--checklist", checklist, "--import-marks", str(workbook))
    assert proc.returncode == 1, proc.stderr  # a row was not taken
    out = proc.stdout.splitlines()
    assert out[0] == (
        f"  not taken  {workbook}: row 4: item 'warranty': mark 'maybe' is not one of accepted, wrong, to_check"
        " (or empty)"
    )
    assert out[1] == "mini-en: 3 rows read from review.xlsx: 1 changed, 1 unchanged, 1 not taken."
    assert marks(reviewed)["security"] == ("accepted", "")


# --- a workbook that is wrong: one line naming the file and the reason ---------------------------------------


def test_an_item_the_checklist_does_not_hold_is_named_and_the_rest_is_taken(reviewed: Reviewed, tmp_path: Path) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(workbook, {"security": {"item": "performance", "mark": "wrong"}, "warranty": {"mark": "accepted"}})
    done = import_marks(reviewed, workbook)
    assert done.errors == (f"{workbook}: row 3: item 'performance' is no item of mini-en: not taken",)
    assert (done.changed, done.unchanged) == (1, 1)
    assert marks(reviewed)["warranty"] == ("accepted", "")


def test_an_invalid_mark_a_repeated_item_and_a_long_note_are_named_and_the_rest_is_taken(
    reviewed: Reviewed, tmp_path: Path
) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(workbook, {"closing": {"mark": 3}, "security": {"note": "x" * (MAX_NOTE_CHARS + 1)},
                    "warranty": {"mark": "accepted"}})  # fmt: skip
    book = load_workbook(workbook)
    book["review"].append(["mini-en", "warranty", None, None, None, None, None, None, None, None, None, None, None,
                           None, None, "wrong"])  # fmt: skip
    book.save(workbook)
    done = import_marks(reviewed, workbook)
    assert done.errors == (
        f"{workbook}: row 2: item 'closing': the mark is a int, not one of accepted, wrong, to_check",
        f"{workbook}: row 3: item 'security': a note of {MAX_NOTE_CHARS + 1:,} characters (at most"
        f" {MAX_NOTE_CHARS:,}): not taken",
        f"{workbook}: row 5: item 'warranty' again (first on row 4): not taken",
    )
    assert (done.read, done.changed, done.unchanged) == (4, 1, 0)  # every row that held something is counted
    assert marks(reviewed)["warranty"] == ("accepted", "") and marks(reviewed)["closing"] == ("to_check", "two dates?")


def test_an_item_not_answered_yet_is_named(reviewed: Reviewed, tmp_path: Path) -> None:
    path, _checklist, settings = reviewed
    bigger = tmp_path / "mini-en-2.toml"
    bigger.write_text(CHECKLIST + CHECKLIST.split("\n\n", 3)[3].replace('"warranty"', '"delivery"', 1), "utf-8")
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(workbook, {"warranty": {"item": "delivery", "mark": "wrong"}})
    with api.open_kb(path, settings, encoder=HashEncoder()) as kb:
        done = kb.import_marks(str(bigger), workbook)
    assert done.errors == (f"{workbook}: row 4: item 'delivery' is not answered on this KB yet: not taken",)


def test_a_workbook_of_another_checklist_is_refused(reviewed: Reviewed, tmp_path: Path) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    edit(workbook, {"security": {"checklist": "tender-zh"}})
    with pytest.raises(api.InputError, match=r"review\.xlsx: a review of checklist tender-zh, not mini-en$"):
        import_marks(reviewed, workbook)


def test_a_file_that_is_not_an_xlsx_workbook_is_one_line(reviewed: Reviewed, tmp_path: Path) -> None:
    text = tmp_path / "notes.xlsx"
    text.write_text("item,mark\nclosing,accepted\n", encoding="utf-8")
    with pytest.raises(api.InputError, match=r"notes\.xlsx: not an \.xlsx workbook: not a readable Excel file: dam"):
        import_marks(reviewed, text)
    legacy = tmp_path / "old.xlsx"
    legacy.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600))
    with pytest.raises(api.InputError, match=r"old\.xlsx: a password-protected or legacy \(\.xls\) Excel file"):
        import_marks(reviewed, legacy)
    with pytest.raises(api.InputError, match=r"missing\.xlsx: no such file"):
        import_marks(reviewed, tmp_path / "missing.xlsx")


def test_a_damaged_workbook_is_one_line(reviewed: Reviewed, tmp_path: Path) -> None:
    good = export(reviewed, tmp_path / "review.xlsx").read_bytes()
    cut = tmp_path / "cut.xlsx"
    cut.write_bytes(good[: len(good) // 2])
    with pytest.raises(api.InputError, match=r"cut\.xlsx: not an \.xlsx workbook: not a readable Excel file"):
        import_marks(reviewed, cut)
    hollow = tmp_path / "hollow.xlsx"  # a zip, but no workbook in it
    with zipfile.ZipFile(hollow, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
    with pytest.raises(api.InputError, match=r"hollow\.xlsx: not a readable \.xlsx workbook \("):
        import_marks(reviewed, hollow)
    broken = tmp_path / "broken.xlsx"  # the review sheet's XML cut short
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(broken, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data[: len(data) // 2] if info.filename == "xl/worksheets/sheet1.xml" else data)
    with pytest.raises(api.InputError, match=r"broken\.xlsx: sheet 'review' cannot be read \("):
        import_marks(reviewed, broken)


def test_a_missing_sheet_or_column_is_one_line(reviewed: Reviewed, tmp_path: Path) -> None:
    workbook = export(reviewed, tmp_path / "review.xlsx")
    book = load_workbook(workbook)
    book["review"].title = "Sheet1"
    book.save(tmp_path / "renamed.xlsx")
    with pytest.raises(api.InputError, match=r"renamed\.xlsx: no sheet 'review' \(it has 'Sheet1', 'quotes'"):
        import_marks(reviewed, tmp_path / "renamed.xlsx")
    book = load_workbook(workbook)
    book["review"].delete_cols(17)  # the note column
    book.save(tmp_path / "no-note.xlsx")
    with pytest.raises(api.InputError, match=r"no-note\.xlsx: sheet 'review' has no column 'note' in its first row"):
        import_marks(reviewed, tmp_path / "no-note.xlsx")


def test_a_hostile_workbook_is_refused_within_its_bounds(reviewed: Reviewed, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xlsx"  # a member declaring more than the limit uncompressed: refused unread
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", b"<" + b" " * (MAX_UNZIPPED_BYTES + 1))
    mib = MAX_UNZIPPED_BYTES >> 20
    with pytest.raises(
        api.InputError, match=rf"bomb\.xlsx: the workbook declares {mib} MiB uncompressed \(limit {mib}\b"
    ):
        import_marks(reviewed, bomb)
    dtd = tmp_path / "dtd.xlsx"
    good = export(reviewed, tmp_path / "review.xlsx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(good)) as src, zipfile.ZipFile(dtd, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = b'<!DOCTYPE worksheet [<!ENTITY a "aaaa">]>' + data
            dst.writestr(info, data)
    with pytest.raises(api.InputError, match=r"dtd\.xlsx: not an \.xlsx workbook: .*declares a DTD"):
        import_marks(reviewed, dtd)
    far = tmp_path / "far.xlsx"  # a row a million rows down: read up to the bound, then refused
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "review"
    sheet.append(["item", "mark", "note"])
    sheet.cell(1_000_000, 1).value = "closing"
    sheet.cell(MAX_ROWS + 2, 1).value = "security"
    book.save(far)
    with pytest.raises(api.InputError, match=rf"far\.xlsx: sheet 'review' has over {MAX_ROWS:,} rows"):
        import_marks(reviewed, far)
