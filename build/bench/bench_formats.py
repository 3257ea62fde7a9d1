"""Ingest speed per format: the parse stage of ``KnowledgeBase.add``, in pages and characters a second.

    .venv/bin/python build/bench/bench_formats.py [--repeat 2] [--out docs/BENCHMARKS.md]

The same text in every format, so the rates compare formats and not documents: the Civil Code's 234 pages as
extracted from its PDF, written as

- the PDF itself (text layer; ``--ocr auto``, which OCRs none of its pages, and ``never``);
- a .txt and a .md (each page's text; the .md with a ``#`` heading per 编 and 章);
- a .docx made with python-docx: one paragraph a line, a heading per 编 and 章, Word's rendered page break at the
  start of each source page (as Word stores its last layout), so it reads as 234 pages;
- an .xlsx made with openpyxl: the tender's kind of price schedule, 20 sheets of 1,000 rows × 6 columns with a
  header row (no pages: a workbook is unpaged; its rate is in characters).

Scanned pages are measured by ``build/bench/bench_ocr.py`` (the OCR is the cost there). The encoder is the hashing one
(no model: the embed stage is not what is measured), and late vectors are off. Each file is ingested ``--repeat``
times into a fresh KB; the table shows the fastest run. Section written between markers in docs/BENCHMARKS.md;
one record per file and format in docs/results.json (benchmark "ingest_format", the file's name as data set,
the format's label as mode).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402

BEGIN, END = "<!-- bench_formats:begin -->", "<!-- bench_formats:end -->"
CIVIL_CODE = ROOT.parent / "shared" / "data" / "pdfs" / "zh_law" / "中华人民共和国民法典.pdf"
_PART = re.compile(r"^\s*第[一二三四五六七八九十百零]+[编章]")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def civil_code_pages() -> list[str]:
    from pypdf import PdfReader

    return [(page.extract_text() or "").replace("\r\n", "\n") for page in PdfReader(CIVIL_CODE).pages]


def write_docx(pages: list[str], out: Path) -> Path:
    import docx
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    for number, page in enumerate(pages):
        first = number > 0  # the first page needs no break before it
        for line in page.splitlines():
            if not line.strip():
                continue
            paragraph = document.add_heading(line, level=1) if _PART.match(line) else document.add_paragraph(line)
            if first and paragraph.runs:  # the page starts here in Word's last layout
                paragraph.runs[0]._r.insert(0, parse_xml(f"<w:lastRenderedPageBreak {nsdecls('w')}/>"))
            first = False
    document.save(str(out))
    return out


def write_xlsx(out: Path, sheets: int = 20, rows: int = 1_000) -> Path:
    import openpyxl

    wb = openpyxl.Workbook(write_only=True)
    for s in range(sheets):
        ws = wb.create_sheet(f"分项报价表{s + 1}")
        ws.append(["序号", "货物名称", "规格型号", "数量", "单价（元）", "合价（元）"])
        for i in range(1, rows + 1):
            quantity, price = 1 + i % 7, 1_000 + 37 * i
            ws.append(
                [i, f"设备{s + 1}-{i}", f"型号 X{i % 97:02d}-{s}", quantity, float(price), float(quantity * price)]
            )
    wb.save(str(out))
    return out


def ingest(path: Path, folder: Path, ocr: api.OcrMode = "auto") -> tuple[float, int, int]:
    """(parse-stage seconds, pages stored, characters stored) of ``path`` ingested into a fresh KB."""
    folder.mkdir(parents=True, exist_ok=True)
    kb = folder / f"{path.name}-{ocr}.kb"
    for stale in folder.glob(f"{kb.name}*"):
        stale.unlink()
    with api.open_kb(kb, load_settings(None, {}), encoder=HashEncoder(dim=64)) as knowledge_base:
        report = knowledge_base.add([path], api.AddRequest(ocr=ocr, late=False)).ingest
        assert not report.failed, report.failed
        (doc,) = knowledge_base.documents().documents
        numbers = knowledge_base.page_numbers(doc.record.id)
        chars = sum(len(knowledge_base.page(doc.record.id, n).text) for n in numbers)
    return report.seconds.get("parse", 0.0), len(numbers), chars


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    args = ap.parse_args(argv)
    load_before = load()
    rows = [
        "| file | format | pages | characters | parse stage, s | pages/s | characters/s |",
        "|---|---|---|---|---|---|---|",
    ]
    measured: list[tuple[str, str, int, int, float]] = []  # file, format, pages, characters, parse seconds
    with tempfile.TemporaryDirectory(prefix="bench-formats-") as tmp:
        folder = Path(tmp)
        pages = civil_code_pages()
        text = "\n".join(pages)
        txt = folder / "civil-code.txt"
        txt.write_text(text, encoding="utf-8")
        md = folder / "civil-code.md"
        md.write_text("\n".join(f"# {line}" if _PART.match(line) else line for line in text.splitlines()), "utf-8")
        files: list[tuple[Path, str, api.OcrMode]] = [
            (CIVIL_CODE, "PDF, text layer, `--ocr auto`", "auto"),
            (CIVIL_CODE, "PDF, text layer, `--ocr never`", "never"),
            (txt, "plain text (UTF-8)", "auto"),
            (md, "Markdown", "auto"),
            (write_docx(pages, folder / "civil-code.docx"), "Word .docx (rendered page breaks)", "auto"),
            (write_xlsx(folder / "schedule.xlsx"), "Excel .xlsx, 20 sheets × 1,000 rows", "auto"),
        ]
        for path, label, ocr in files:
            runs = [ingest(path, folder / "kbs", ocr) for _ in range(args.repeat)]
            seconds, n_pages, chars = min(runs)
            size = f"{path.stat().st_size / 1e6:.1f} MB"
            shown_pages = f"{n_pages}" if n_pages > 1 or path.suffix == ".pdf" else "1 (unpaged)"
            page_rate = f"{n_pages / seconds:.1f}" if n_pages > 1 else "–"
            rows.append(
                f"| {path.name} ({size}) | {label} | {shown_pages} | {chars:,} | {seconds:.2f} | {page_rate} |"
                f" {chars / seconds:,.0f} |"
            )
            print(rows[-1], f"(runs: {', '.join(f'{r[0]:.2f}' for r in runs)} s)", flush=True)
            measured.append((path.name, label, n_pages, chars, seconds))
    machine = f"{platform.machine()}, {cpu_summary()}, {os.cpu_count()} CPU threads, Python {platform.python_version()}"
    section = "\n".join(
        [
            BEGIN,
            "## Ingest speed per format",
            "",
            f"_`.venv/bin/python build/bench/bench_formats.py --repeat {args.repeat}` on {dt.date.today().isoformat()};"
            f" {machine}; load average (1, 5, 15 min) {load_before} before, {load()} after._",
            "",
            "The Civil Code's text in each format (how each file is made: the script's docstring); the parse stage of"
            " `KnowledgeBase.add` (reading, splitting, storing with FTS), hashing encoder, no late vectors; the"
            f" fastest of {args.repeat} runs into a fresh KB. A .txt, .md or .xlsx is one unpaged page. Scanned"
            " pages: see *OCR of scanned pages*.",
            "",
            *rows,
            END,
        ]
    )
    write_section(args.out, BEGIN, END, section)
    for name, label, n_pages, chars, seconds in measured:
        record_result(
            args.json,
            benchmark="ingest_format",
            dataset=name,
            mode=label,
            n=n_pages,
            metrics={
                "pages": n_pages,
                "characters": chars,
                "parse_s": seconds,
                "chars_per_s": chars / seconds,
                **({"pages_per_s": n_pages / seconds} if n_pages > 1 else {}),
            },
            command=f".venv/bin/python build/bench/bench_formats.py --repeat {args.repeat}",
            machine=machine,
        )
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
