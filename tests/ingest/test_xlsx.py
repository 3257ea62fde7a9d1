"""Excel .xlsx files: each sheet a section of Markdown table rows, values as a reader expects them, merged
cells filled, formulas as their saved values (or a warning when none was saved), hidden sheets left out, limits
kept, no page invented, and a one-line reason for every file that cannot be read. Fixtures are written with
openpyxl (``tests/support/office.py``)."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import openpyxl
import pytest

from pikelocal.domain.errors import DocumentError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.read import parse_xlsx
from pikelocal.ingest.read.parse import ParsedDocument, parse_document
from pikelocal.ingest.read.tables import find_tables
from pikelocal.ingest.split.chunking import SplitOptions, chunk_document
from tests.support import office

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)
ENCRYPTED = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "EncryptionInfo".encode("utf-16-le") + bytes(64)
LEGACY_XLS = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "Workbook".encode("utf-16-le") + bytes(64)


def parse(tmp_path: Path, data: bytes, name: str = "prices.xlsx") -> ParsedDocument:
    return parse_document(office.write(tmp_path, name, data))


def messages(doc: ParsedDocument) -> list[str]:
    """The warnings without the path they start with (a test's folder name may hold any word)."""
    prefix = f"{doc.path}: "
    assert all(w.startswith(prefix) for w in doc.warnings)
    return [w[len(prefix) :] for w in doc.warnings]


def saved(wb: openpyxl.Workbook) -> bytes:
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def row(*cells: object) -> str:
    return "| " + " | ".join(map(str, cells)) + " |"


def item_row(i: int) -> str:
    name, quantity, price = office.ITEMS[i - 1]
    return row(i, name, quantity, price, quantity * price, f"2024-03-{i % 28 + 1:02d}")


def test_each_sheet_is_a_section_of_table_rows(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.price_xlsx())
    assert doc.kind == "xlsx" and doc.title == "prices" and not doc.paged and len(doc.pages) == 1
    text = doc.pages[0].text
    schedule, _, notes = text.partition("# 说明")
    assert schedule.startswith("# 报价一览表\n\n数据中心设备采购项目 分项报价表\n\n")  # the merged title: a line
    header = row("序号", "货物名称", "数量", "单价（元）", "合价（元）", "交货日期")
    lines = schedule.splitlines()
    assert header in lines and lines[lines.index(header) + 1] == "|---|---|---|---|---|---|"
    for i in range(1, len(office.ITEMS) + 1):
        assert item_row(i) in lines, item_row(i)  # whole numbers as integers, dates as ISO
    assert row("", "合计", "", "", office.TOTAL, "") in lines  # the formula's saved value
    assert row("", "税率", "13%", "", "", "") in lines
    assert row("1. 报价含税含运费。") in notes.splitlines()
    tables = find_tables(text)
    assert [t.n_rows for t in tables] == [len(office.ITEMS) + 2, 2]


def test_hidden_sheets_are_left_out_with_a_warning(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.price_xlsx())
    assert "secret lookup value" not in doc.pages[0].text
    assert messages(doc) == ["1 hidden sheet(s) left out: lookup"]


def test_chunks_are_in_their_sheet_with_no_page(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.price_xlsx())
    chunks = chunk_document(doc, HashEncoder().count_tokens, SMALL).chunks
    assert len(chunks) > 3 and all(c.page_start is None and c.page_end is None for c in chunks)
    for i in (1, 17, 32):
        (holding,) = [c for c in chunks if item_row(i) in c.text]  # the row whole, in one chunk
        assert holding.section_path[0] == "报价一览表"
    assert next(c for c in chunks if "质保期三年" in c.text).section_path[0] == "说明"


def test_a_formula_saved_without_its_value_reads_blank_with_one_warning(tmp_path: Path) -> None:
    doc = parse(tmp_path, office.price_xlsx(cached=False))
    assert row("", "合计", "", "", "", "") in doc.pages[0].text.splitlines()
    (warning,) = [w for w in messages(doc) if "formula" in w]
    assert warning.startswith("1 formula cell(s) saved without a value read as blank")


def test_a_two_row_header_with_a_group_merged_across(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "分项"
    ws.append(["序号", "价格", None, "备注"])
    ws.append([None, "单价", "合价", None])
    ws.append([1, 100, 200, "含税"])
    ws.append([2, 0.1 + 0.2, 45123.0, dt.datetime(2024, 3, 15, 14, 30)])
    ws.merge_cells("A1:A2")
    ws.merge_cells("B1:C1")
    ws.merge_cells("D1:D2")
    lines = parse(tmp_path, saved(wb)).pages[0].text.splitlines()
    assert lines[2] == row("序号", "价格 单价", "价格 合价", "备注")
    assert lines[4:] == [row(1, 100, 200, "含税"), row(2, 0.3, 45123, "2024-03-15 14:30")]


def test_merged_cells_read_as_their_value_in_every_row(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    for values in (["分类", "名称", "金额"], ["硬件", "服务器", 10], [None, "交换机", 5], ["软件", "数据库", 8]):
        ws.append(values)
    ws.merge_cells("A2:A3")
    lines = parse(tmp_path, saved(wb)).pages[0].text.splitlines()
    assert row("硬件", "服务器", 10) in lines and row("硬件", "交换机", 5) in lines


def test_a_sheet_past_the_cell_limit_is_cut_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_xlsx, "MAX_CELLS", 300)
    wb = openpyxl.Workbook()
    ws = wb.active
    for r in range(1, 1001):
        ws.append([r, f"item {r}", r * 10])
    wb.create_sheet("second").append(["never read"])
    doc = parse(tmp_path, saved(wb))
    lines = doc.pages[0].text.splitlines()
    assert row(100, "item 100", 1000) in lines and row(101, "item 101", 1010) not in lines
    assert "never read" not in doc.pages[0].text
    (warning,) = messages(doc)
    assert "over the reading limits (300 cells" in warning and "sheet 'second' left out" in warning


def test_far_away_cells_cost_little(tmp_path: Path) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"] = "name", "value"
    ws["A2"], ws["B2"] = "pike", 7
    ws["A1048576"] = "bottom"  # Excel's last row: the sheet's dimension claims a million rows
    ws["XFD3"] = "corner"  # Excel's last column: past the columns read
    doc = parse(tmp_path, saved(wb))
    lines = doc.pages[0].text.splitlines()
    assert lines[2:] == [row("name", "value"), "|---|---|", row("pike", 7), row("bottom", "")], lines
    assert "corner" not in doc.pages[0].text
    assert messages(doc) == [
        f"over the reading limits ({parse_xlsx._Budget.limits()}): sheet 'Sheet' cut at column 256"
    ]


def test_bad_excel_files_fail_with_one_line_reasons(tmp_path: Path) -> None:
    def failure(data: bytes) -> DocumentError:
        with pytest.raises(DocumentError) as caught:
            parse(tmp_path, data, "bad.xlsx")
        assert "\n" not in str(caught.value) and str(caught.value).startswith(str(tmp_path / "bad.xlsx"))
        return caught.value

    err = failure(ENCRYPTED)
    assert err.reason == "encrypted" and "password-protected Excel file; remove the password in Excel" in str(err)
    err = failure(LEGACY_XLS)
    assert err.reason == "unsupported" and "legacy Excel .xls" in str(err)
    good = office.price_xlsx()
    assert failure(good[: len(good) * 2 // 3]).reason == "corrupt"
    err = failure(office.tender_docx())
    assert err.reason == "unsupported" and "a Word document, not an Excel file" in str(err)
    directory = good.index(b"PK\x01\x02")  # the first central directory entry: "version needed" at offset 6
    newer = good[: directory + 6] + bytes([148, 0]) + good[directory + 8 :]  # zip version 14.8: zipfile refuses it
    assert failure(newer).reason == "corrupt"
    with pytest.raises(DocumentError) as caught:
        parse(tmp_path, b"\xd0\xcf\x11\xe0" + bytes(100), "old.xls")
    assert caught.value.reason == "unsupported" and "save it as .xlsx" in str(caught.value)
