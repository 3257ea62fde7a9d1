"""Realistic Word and Excel files for the tests, written with python-docx and openpyxl (as Word and Excel would
store them): a tender excerpt with numbered clauses, a scoring table and a running header; a price schedule with a
merged title, a header row, 32 priced items and a SUM formula with its saved value.

Numbering is defined the way Word defines it, in ``numbering.xml``: a multilevel list "%1." / "%1.%2" / "(%3)" and
a Chinese one "第%1条" in ``chineseCounting``; no number is written into the text.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from pathlib import Path

import docx
import openpyxl
from docx.enum.text import WD_BREAK
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

SCORING = [
    ("评分项", "分值", "评分标准"),
    ("技术方案", "40", "方案完整、先进、可行，得 30–40 分"),
    ("项目实施计划", "15", "进度安排合理，得 10–15 分"),
    ("售后服务", "10", "响应时间不超过 4 小时，得 10 分"),
    ("投标报价", "30", "满足招标文件要求且投标价格最低的投标报价为评标基准价，得满分"),
    ("企业业绩", "5", "近三年同类项目业绩每项得 1 分，最多 5 分"),
]
CLAUSES = [  # (level, text): level 0 "%1.", 1 "%1.%2", 2 "(%3)"
    (0, "General"),
    (1, "This tender covers the supply and installation of the data centre equipment."),
    (1, "Bidders shall be legal entities registered in the People's Republic of China."),
    (2, "manufacturers of the offered equipment; or"),
    (2, "authorised agents holding a letter of authorisation."),
    (0, "Bid Security"),
    (1, "The bid security shall be RMB 50,000 in the form of a bank guarantee."),
]
ARTICLES = ["投标人应当具备承担招标项目的能力。", "投标保证金不得超过招标项目估算价的百分之二。"]
HEADER = "CONFIDENTIAL — 招标编号 ZB-2024-017"
ITEMS = [(f"服务器 型号 S{i:02d}", 2 + i % 3, 45_000 + 500 * i) for i in range(1, 33)]  # (name, quantity, unit price)
TOTAL = sum(q * p for _, q, p in ITEMS)


def _numbering(document: docx.document.Document) -> None:
    numbering = document.part.numbering_part.element
    multilevel = (
        f'<w:abstractNum {nsdecls("w")} w:abstractNumId="90"><w:multiLevelType w:val="multilevel"/>'
        '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>'
        '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2"/></w:lvl>'
        '<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="(%3)"/></w:lvl>'
        "</w:abstractNum>"
    )
    chinese = (
        f'<w:abstractNum {nsdecls("w")} w:abstractNumId="91">'
        '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="chineseCounting"/><w:lvlText w:val="第%1条"/>'
        '<w:suff w:val="space"/></w:lvl></w:abstractNum>'
    )
    numbering.insert(0, parse_xml(chinese))  # abstract lists come before the lists that use them
    numbering.insert(0, parse_xml(multilevel))
    for num_id in (90, 91):
        numbering.append(
            parse_xml(f'<w:num {nsdecls("w")} w:numId="{num_id}"><w:abstractNumId w:val="{num_id}"/></w:num>')
        )


def _numbered(paragraph: docx.text.paragraph.Paragraph, num_id: int, level: int) -> None:
    ppr = paragraph._p.get_or_add_pPr()
    ppr.append(parse_xml(f'<w:numPr {nsdecls("w")}><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'))


def _rendered_break(paragraph: docx.text.paragraph.Paragraph) -> None:
    """Mark ``paragraph`` as starting a page in Word's last layout (what Word writes when it saves)."""
    run = paragraph.runs[0]._r
    run.insert(0, parse_xml(f"<w:lastRenderedPageBreak {nsdecls('w')}/>"))


def tender_docx(*, paged: bool = False) -> bytes:
    """A tender excerpt. ``paged``: Word's rendered page breaks stored (3 pages), else none (unpaged)."""
    document = docx.Document()
    _numbering(document)
    section = document.sections[0]
    section.header.paragraphs[0].text = HEADER
    section.footer.paragraphs[0].text = "1"  # a page number: no text worth keeping
    document.add_heading("第一章 投标人须知", level=1)
    document.add_heading("General Conditions", level=2)
    for level, text in CLAUSES:
        _numbered(document.add_paragraph(text), 90, level)
    second = document.add_heading("第二章 评标办法", level=1)
    document.add_paragraph("评标委员会按下表对投标文件评分：")
    table = document.add_table(rows=len(SCORING), cols=3)
    table.style = "Table Grid"
    for r, row in enumerate(SCORING):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    third = document.add_heading("第三章 法律条款", level=1)
    for text in ARTICLES:
        _numbered(document.add_paragraph(text), 91, 0)
    if paged:
        _rendered_break(second)
        _rendered_break(third)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def explicit_break_docx() -> bytes:
    """Two pages made by an explicit page break (Ctrl+Enter), no rendered breaks."""
    document = docx.Document()
    document.add_paragraph("Page one text about the pike.")
    document.add_paragraph().add_run().add_break(WD_BREAK.PAGE)
    document.add_paragraph("Page two text about the perch.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def price_xlsx(*, cached: bool = True) -> bytes:
    """A price schedule: sheet "报价一览表" (merged title, header, 32 items, a SUM total), sheet "说明" (notes),
    and a hidden sheet "lookup". ``cached``: the total's value saved with the formula, as Excel saves it."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "报价一览表"
    ws.merge_cells("A1:F1")
    ws["A1"] = "数据中心设备采购项目 分项报价表"
    ws.append(["序号", "货物名称", "数量", "单价（元）", "合价（元）", "交货日期"])
    for i, (name, quantity, price) in enumerate(ITEMS, 1):
        ws.append([i, name, quantity, float(price), float(quantity * price), dt.datetime(2024, 3, i % 28 + 1)])
    total_row = len(ITEMS) + 3
    ws.cell(total_row, 2, "合计")
    ws.cell(total_row, 5, f"=SUM(E3:E{total_row - 1})")
    ws.cell(total_row + 1, 2, "税率")
    ws.cell(total_row + 1, 3, 0.13).number_format = "0%"
    notes = wb.create_sheet("说明")
    notes.append(["说明"])
    notes.append(["1. 报价含税含运费。"])
    notes.append(["2. 质保期三年。"])
    lookup = wb.create_sheet("lookup")
    lookup.append(["secret lookup value"])
    lookup.sheet_state = "hidden"
    out = io.BytesIO()
    wb.save(out)
    data = out.getvalue()
    if cached:
        data = _with_cached_value(data, "xl/worksheets/sheet1.xml", f"E{total_row}", TOTAL)
    return data


def _with_cached_value(data: bytes, part: str, ref: str, value: float) -> bytes:
    """The package with ``<v>value</v>`` saved for the formula in cell ``ref`` (openpyxl saves none)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == part:
                text = content.decode()
                start = text.index(f'<c r="{ref}"')
                end = text.index("</c>", start)
                cell = text[start:end].replace("<v></v>", "").replace("<v/>", "")
                text = text[:start] + cell + f"<v>{value}</v>" + text[end:]
                content = text.encode()
            target.writestr(info, content)
    return out.getvalue()


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path
