"""A workbook pikelocal wrote, read back the way a spreadsheet opens it: every sheet, its header row, and every
cell a value, never a formula (a document's "=HYPERLINK(…)" must stay text)."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

# What a spreadsheet reads as the start of a formula (review/escape.py prefixes a text cell that starts so).
FORMULA_START = tuple("=+-@\t\r＝＋－＠")


def rows_as_a_spreadsheet_reads_them(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Each sheet's rows (values), after checking what a user's spreadsheet would trip on: a sheet without a header
    row (or with an empty or repeated heading), a cell past the header's columns, a formula cell, or a text cell that
    a spreadsheet would take for a formula; the same values read again in read-only mode."""
    book = load_workbook(path)  # formulas as formulas: a formula cell would show as one here
    out: dict[str, list[tuple[object, ...]]] = {}
    for sheet in book.worksheets:
        rows = list(sheet.iter_rows())
        assert rows, f"{sheet.title}: no header row"
        header = [c.value for c in rows[0]]
        assert all(isinstance(h, str) and h for h in header), f"{sheet.title}: header {header}"
        assert len(set(header)) == len(header), f"{sheet.title}: a heading twice in {header}"
        for row in rows:
            for cell in row:
                assert cell.data_type != "f", f"{sheet.title}!{cell.coordinate} is a formula: {cell.value!r}"
                if isinstance(cell.value, str):
                    assert not cell.value.lstrip(" ").startswith(FORMULA_START), f"{sheet.title}!{cell.coordinate}"
                if cell.column > len(header):
                    assert cell.value is None, f"{sheet.title}!{cell.coordinate} outside the header's columns"
        out[sheet.title] = [tuple(c.value for c in row) for row in rows]
    book.close()
    quick = load_workbook(path, read_only=True)
    try:
        assert quick.sheetnames == list(out)
        for name, rows_read in out.items():
            assert [tuple(r) for r in quick[name].iter_rows(values_only=True)] == rows_read, name
    finally:
        quick.close()
    return out
