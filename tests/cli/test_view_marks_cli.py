"""Marks on the review views' rows through the command line, on a real tender PDF (hashing encoder, no model):
`review KB --risks --mark ROW_ID MARK --note …`, the listings (text and --json) showing each row's id, mark and
note, a bad id or mark as one line naming the row; and the views' workbook round trip: `--export views.xlsx`, the
mark and note cells edited with openpyxl as a reviewer edits them in a spreadsheet, `--import-marks views.xlsx`, the
KB read back through the facade; a second import changing nothing; bad rows named one line each, the rest taken."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from pikelocal import api
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from tests.support.cli import assert_one_line_error, run_cli

TENDER = Path(__file__).parents[1] / "data" / "review" / "tw-tender-ntpc-dispatch.pdf"
# Read off the tender by hand: page 17's declaration, item 6 (line 15), a ground for refusing a bid; page 6's
# clarification deadline, 115年1月16日 (2026-01-16).
ITEM_6 = "6 本投標廠商是否非屬採購法第 103 條規定不得參加投標之廠商？"
CLARIFICATION = "廠商請求釋疑之期限至 115年1月16日止。"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("view-marks-cli") / "tender.kb"
    with api.open_kb(path, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
        assert knowledge_base.add([TENDER]).ingest.count("ingested") == 1
    return path


@pytest.fixture
def kb(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / built.name
    shutil.copyfile(built, copy)
    return copy


def _json(*args: str) -> list[dict[str, object]]:
    proc = run_cli("review", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert isinstance(rows, list)
    return rows


def _row(rows: list[dict[str, object]], text: str) -> dict[str, object]:
    [row] = [r for r in rows if r["clause"]["text"] == text]  # type: ignore[index]
    return row


def test_a_row_marked_from_the_command_line_is_listed_with_its_id_mark_and_note(kb: Path) -> None:
    risk = _row(_json(str(kb), "--risks"), ITEM_6)
    row_id = str(risk["row_id"])
    assert row_id.startswith("R-") and (risk["mark"], risk["note"]) == ("", "")
    proc = run_cli("review", str(kb), "--risks", "--mark", row_id, "accepted", "--note", "excluded bidders")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"{row_id}: accepted (excluded bidders) at ") and ITEM_6 in proc.stdout
    listing = run_cli("review", str(kb), "--risks")
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{row_id}  “{ITEM_6}”"))
    assert lines[at + 1].strip().startswith("accepted: excluded bidders  (")  # the mark under its row
    assert sum(line.strip().startswith("accepted") for line in lines) == 1  # no other row is marked
    marked = _row(_json(str(kb), "--risks"), ITEM_6)
    assert (marked["row_id"], marked["mark"], marked["note"]) == (row_id, "accepted", "excluded bidders")
    assert str(marked["marked_at"]).startswith("20")
    cleared = run_cli("review", str(kb), "--risks", "--mark", row_id, "none")  # none clears it, as `mark` does
    assert cleared.returncode == 0, cleared.stderr
    assert _row(_json(str(kb), "--risks"), ITEM_6)["mark"] == ""


def test_a_timeline_row_is_marked_with_its_own_view(kb: Path) -> None:
    entry = _row(_json(str(kb), "--timeline"), CLARIFICATION)
    assert entry["date"] == "2026-01-16"
    proc = run_cli("review", str(kb), "--timeline", "--mark", str(entry["row_id"]), "to_check", "--json")
    assert proc.returncode == 0, proc.stderr
    [shown] = json.loads(proc.stdout)
    assert (shown["row_id"], shown["mark"], shown["date"]) == (entry["row_id"], "to_check", "2026-01-16")
    assert _row(_json(str(kb), "--timeline"), CLARIFICATION)["mark"] == "to_check"


def test_a_bad_id_or_mark_is_one_line_naming_the_row(kb: Path) -> None:
    row_id = str(_row(_json(str(kb), "--risks"), ITEM_6)["row_id"])
    assert_one_line_error(run_cli("review", str(kb), "--risks", "--mark", "R-0000000000", "wrong"), 6,
                          "risks: no row 'R-0000000000'")  # fmt: skip
    assert_one_line_error(run_cli("review", str(kb), "--risks", "--mark", row_id, "fine"), 6,
                          f"risks row '{row_id}': mark 'fine' is not one of accepted, wrong, to_check")  # fmt: skip
    assert_one_line_error(run_cli("review", str(kb), "--timeline", "--mark", row_id, "wrong"), 6,
                          f"no row '{row_id}'", "an id of risks")  # fmt: skip
    assert_one_line_error(run_cli("review", str(kb), "--risks", "--timeline", "--mark", row_id, "wrong"), 6,
                          "one view")  # fmt: skip
    assert_one_line_error(run_cli("review", str(kb), "--mark", row_id, "wrong"), 6, "give one of --risks")
    assert_one_line_error(run_cli("review", str(kb), "--risks", "--note", "x"), 6, "--note goes with --mark")
    assert not any(r["mark"] for r in _json(str(kb), "--risks"))  # nothing was stored


def _cells(sheet: object, column: str) -> int:
    header = [c.value for c in sheet[1]]  # type: ignore[index]
    return header.index(column) + 1


def _find(sheet: object, text: str) -> int:
    """The sheet row whose quote is ``text``."""
    quote = _cells(sheet, "quote")
    return next(r for r in range(2, sheet.max_row + 1) if sheet.cell(r, quote).value == text)  # type: ignore[attr-defined]


def _export(kb: Path, out: Path) -> None:
    proc = run_cli("review", str(kb), "--risks", "--requirements", "--timeline", "--export", str(out))
    assert proc.returncode == 0, proc.stderr


def _import(kb: Path, workbook: Path) -> tuple[int, dict[str, object]]:
    proc = run_cli("review", str(kb), "--import-marks", str(workbook), "--json")
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_marks_edited_in_the_views_workbook_are_stored_in_the_kb(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "views.xlsx"
    _export(kb, out)
    book = load_workbook(out)
    assert book.sheetnames == ["risks", "requirements", "timeline"]
    risks, timeline = book["risks"], book["timeline"]
    at = _find(risks, ITEM_6)
    mark, note = _cells(risks, "mark"), _cells(risks, "note")
    # only mark and note are the reviewer's to fill in, as on a checklist's review sheet
    assert risks.protection.sheet and not risks.cell(at, mark).protection.locked
    assert not risks.cell(at, note).protection.locked and risks.cell(at, _cells(risks, "quote")).protection.locked
    assert risks.cell(at, mark).value is None and str(risks.cell(at, _cells(risks, "id")).value).startswith("R-")
    n_rows = sum(book[s].max_row - 1 for s in book.sheetnames)
    risks.cell(at, mark).value = "wrong"
    risks.cell(at, note).value = "a declaration item, not a rule"
    due = _find(timeline, CLARIFICATION)
    timeline.cell(due, _cells(timeline, "mark")).value = "To Check"  # as the reports show it, in any case
    book.save(out)
    code, done = _import(kb, out)
    assert code == 0
    assert (done["checklist"], done["views"], done["errors"]) == ("", ["risks", "requirements", "timeline"], [])
    assert (done["read"], done["changed"], done["unchanged"]) == (n_rows, 2, n_rows - 2)
    with api.open_kb(kb, load_settings(environ={})) as knowledge_base:
        assert [(r.clause.text, r.mark, r.note) for r in knowledge_base.risks() if r.mark] == [
            (ITEM_6, "wrong", "a declaration item, not a rule")
        ]
        assert [(e.clause.text, e.mark) for e in knowledge_base.timeline() if e.mark] == [(CLARIFICATION, "to_check")]
        assert not any(r.mark for r in knowledge_base.requirements())
    code, again = _import(kb, out)  # the same workbook again: nothing changes
    assert code == 0 and (again["read"], again["changed"], again["unchanged"]) == (n_rows, 0, n_rows)
    _export(kb, out)  # the marks are written into the next export
    book = load_workbook(out)
    at = _find(book["risks"], ITEM_6)
    assert book["risks"].cell(at, _cells(book["risks"], "mark")).value == "wrong"
    assert book["risks"].cell(at, _cells(book["risks"], "note")).value == "a declaration item, not a rule"


def test_bad_view_rows_are_named_one_line_each_and_the_rest_is_taken(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "views.xlsx"
    _export(kb, out)
    book = load_workbook(out)
    risks = book["risks"]
    ident, mark, note = _cells(risks, "id"), _cells(risks, "mark"), _cells(risks, "note")
    at = _find(risks, ITEM_6)
    risks.cell(at, mark).value = "accepted"
    risks.cell(2 if at != 2 else 3, mark).value = "maybe"
    gone = 3 if at not in (2, 3) else 4
    risks.cell(gone, ident).value = "R-ffffffffff"  # a row the KB no longer finds
    risks.cell(gone, mark).value = "wrong"
    twice = risks.max_row + 1
    risks.cell(twice, ident).value = risks.cell(at, ident).value  # the same row again
    risks.cell(twice, note).value = "again"
    book.save(out)
    code, done = _import(kb, out)
    assert code == 1
    errors = [str(e) for e in done["errors"]]  # type: ignore[union-attr]
    assert len(errors) == 3 and all(e.startswith(f"{out}: sheet 'risks' row ") for e in errors)
    assert any("mark 'maybe' is not one of accepted, wrong, to_check" in e for e in errors)
    assert any("row 'R-ffffffffff' is not in this KB's risks" in e for e in errors)
    assert any(f"row {twice}: row " in e and "again (first on row" in e for e in errors)
    assert done["read"] == done["changed"] + done["unchanged"] + len(errors)  # type: ignore[operator]
    assert done["changed"] == 1
    with api.open_kb(kb, load_settings(environ={})) as knowledge_base:
        assert [(r.clause.text, r.mark) for r in knowledge_base.risks() if r.mark] == [(ITEM_6, "accepted")]


def test_a_checklists_workbook_without_its_checklist_is_one_line(kb: Path, tmp_path: Path) -> None:
    out = tmp_path / "review.xlsx"
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "review"
    sheet.append(["checklist", "item", "mark", "note"])
    sheet.append(["tender-zh", "bond", "accepted", ""])
    book.save(out)
    assert_one_line_error(run_cli("review", str(kb), "--import-marks", str(out)), 6, "--checklist tender-zh")
    other = tmp_path / "other.xlsx"
    sheet.title = "notes"
    book.save(other)
    assert_one_line_error(run_cli("review", str(kb), "--import-marks", str(other)), 6,
                          "no sheet 'risks', 'requirements', 'timeline'", "'notes'")  # fmt: skip
