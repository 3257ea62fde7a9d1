"""OCR of scanned pages: character error rate, speed, memory, and the garbled ANZ judgment.

    .venv/bin/python build/bench/bench_ocr.py [--ocr-pages 20] [--ask] [--out docs/BENCHMARKS.md]

- **CER** of three pages against a ground truth (tests/data/ocr/, tests/data/tender_rfp_zh_hant.txt): a page of
  the Civil Code (simplified Chinese) and of an Australian judgment (English), whose text layers are the ground
  truth (checked by hand; the Civil Code's page number moved to the foot, where it is printed), and a traditional
  Chinese tender text of ours rendered horizontally and vertically with AR PL UMing TW into bilevel 300-dpi scans
  (``build/make_ocr_scans.py``; no traditional-Chinese PDF is in ../shared). Each is rendered by PDFium at 150, 200
  and 300 dpi and read by ``PdfOcr`` (engine loaded before); CER = edit distance / reference length, whitespace out.
- **Ingest speed**: the parse stage (where OCR runs) through ``KnowledgeBase.add`` with the hashing encoder, for a
  text-layer PDF under ``--ocr auto`` and ``never``, and a scan of ``--ocr-pages`` pages with the reading process's
  resident memory at each progress event and its peaks (``VmHWM``; ``VmPeak``, what ``RLIMIT_AS`` limits).
- **ANZ**: ``pikelocal ingest KB FILE --ocr auto`` on the AustLII judgment with broken font maps (``--ask``: and a
  question in naive mode). Section written between markers in docs/BENCHMARKS.md."""

from __future__ import annotations

import argparse
import datetime as dt
import difflib
import io
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.read.ocr import OcrOptions, PdfOcr, threads_of  # noqa: E402
from pikelocal.ingest.read.ocr_engine import engine  # noqa: E402
from pikelocal.ingest.read.textcheck import garbled_share  # noqa: E402

BEGIN, END = "<!-- bench_ocr:begin -->", "<!-- bench_ocr:end -->"
PDFS = ROOT.parent / "shared" / "data" / "pdfs"
DATA = ROOT / "tests" / "data"
CIVIL_CODE = PDFS / "zh_law" / "中华人民共和国民法典.pdf"
JUDGMENT = PDFS / "en_legal_au" / "Breach of Contract.pdf"
ANZ = PDFS / "en_legal_au" / "Contract scope of the penalty doctrine(ANZ Bank).pdf"
TENDER = PDFS / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
HANT = DATA / "tender_rfp_zh_hant.txt"
PAGES = [  # (label, PDF, 0-based page, ground truth)
    ("Civil Code p. 11 (zh-Hans, text PDF)", CIVIL_CODE, 10, DATA / "ocr" / "zh_hans_civil_code_p11.txt"),
    ("Elisha v Vision Australia p. 3 (en, text PDF)", JUDGMENT, 2, DATA / "ocr" / "en_breach_of_contract_p3.txt"),
    ("tender, horizontal (zh-Hant, 300-dpi scan)", DATA / "ocr" / "zh_hant_tender_horizontal.pdf", 0, HANT),
    ("tender, vertical columns (zh-Hant, 300-dpi scan)", DATA / "ocr" / "zh_hant_tender_vertical.pdf", 0, HANT),
]
DPIS = (150, 200, 300)  # 200: the default (ingest.ocr_dpi)
EVAL = Path.home() / ".cache" / "pikelocal-eval" / "ocr"
QUESTIONS = (  # the answer, from the orders (p. 1) and paragraphs 84 and following (pp. 35-36): the circumstances
    # "do not render these fees incapable of characterisation as penalties"
    "Did the High Court hold that the honour, dishonour, non-payment and over limit fees could not be penalties"
    " because they were not charged upon breach of contract?",  # no
    "According to the High Court's orders, are the honour, dishonour, non-payment and over limit fees capable of"
    " being characterised as penalties?",  # yes
)
ANSWER_PAGES = {1, 35, 36}


def edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def cer(ocr: str, truth: str) -> float:
    got, want = re.sub(r"\s", "", ocr), re.sub(r"\s", "", truth)
    return edit_distance(got, want) / len(want)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def confusions(ocr: str, truth: str) -> str:
    """The edits from the truth to the OCR, most frequent first ("內→内 ×2, 、→∅")."""
    got, want = re.sub(r"\s", "", ocr), re.sub(r"\s", "", truth)
    edits = Counter(
        f"{want[j1:j2] or '∅'}→{got[i1:i2] or '∅'}"
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, got, want, autojunk=False).get_opcodes()
        if op != "equal"
    )
    return ", ".join(f"`{e}`" + (f" ×{n}" if n > 1 else "") for e, n in edits.most_common(8)) or "none"


def cer_table(max_side: int) -> tuple[list[str], dict[str, str]]:
    rows = ["| page | characters | " + " | ".join(f"CER {d} dpi | s/page (pages/min) {d} dpi" for d in DPIS) + " |"]
    rows.append("|---|---|" + "---|---|" * len(DPIS))
    texts: dict[str, str] = {}
    notes = []
    for label, pdf, index, truth_file in PAGES:
        truth = truth_file.read_text(encoding="utf-8")
        cells = []
        for dpi in DPIS:
            reader = PdfOcr(pdf.read_bytes(), None, OcrOptions(dpi=dpi, max_side=max_side))
            t0 = time.perf_counter()
            text = reader.text(index)
            seconds = time.perf_counter() - t0
            reader.close()
            texts[f"{label} @ {dpi}"] = text
            if dpi == OcrOptions().dpi:
                notes.append(f"- {label} at {dpi} dpi: {confusions(text, truth)}")
            cells += [f"{cer(text, truth):.2%}", f"{seconds:.1f} ({60 / seconds:.1f})"]
            print(f"[bench_ocr] {label} @ {dpi} dpi: CER {cells[-2]}, {seconds:.1f} s", flush=True)
        size = len(re.sub(r"\s", "", truth))
        rows.append(f"| {label} | {size:,} | " + " | ".join(cells) + " |")
    return [*rows, "", "The errors (truth→OCR, ∅ = nothing; the most frequent 8):", "", *notes], texts


class Sampler:
    """The reading process's memory (from /proc), sampled at each progress event, by the page being read."""

    def __init__(self) -> None:
        self.by_page: dict[int, list[int]] = {}  # resident MB while page n is read (and just after)
        self.peaks = (0, 0)  # VmHWM, VmPeak in MB

    def sample(self, page: int) -> None:
        kids = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
        try:  # the reading process is this process's youngest child
            status = Path(f"/proc/{kids[-1]}/status").read_text() if kids else ""
        except OSError:
            return
        value = {k: int(v) // 1024 for k, v in re.findall(r"(VmRSS|VmHWM|VmPeak):\s+(\d+)", status)}
        if value:
            self.by_page.setdefault(page, []).append(value["VmRSS"])
            self.peaks = (max(self.peaks[0], value["VmHWM"]), max(self.peaks[1], value["VmPeak"]))

    def summary(self) -> str:
        pages = sorted(self.by_page)
        tenths = [pages[i * len(pages) // 10 : (i + 1) * len(pages) // 10] for i in range(10)]
        low = [min(min(self.by_page[p]) for p in t) for t in tenths if t]
        high = [max(max(self.by_page[p]) for p in t) for t in tenths if t]
        names = [f"{t[0]}-{t[-1]}" for t in tenths if t]
        return "; ".join(f"{n}: {lo:,}–{hi:,}" for n, lo, hi in zip(names, low, high, strict=True))


def ingest(pdf: Path, mode: api.OcrMode, folder: Path, sampler: Sampler | None = None) -> tuple[float, int, list[str]]:
    """Parse-stage seconds, pages stored and warnings of one PDF ingested into a fresh KB (hashing encoder)."""
    folder.mkdir(parents=True, exist_ok=True)
    kb = folder / f"{pdf.stem}-{mode}.kb"
    warnings: list[str] = []

    def sink(event: api.Event) -> None:
        if isinstance(event, api.Notice):
            warnings.append(event.message)
        found = re.match(r"(OCR )?p\. ([\d,]+)/", event.detail) if isinstance(event, api.StageAdvanced) else None
        if sampler is not None and found:
            sampler.sample(int(found.group(2).replace(",", "")))

    with api.open_kb(kb, load_settings(None, {}), encoder=HashEncoder(dim=64)) as knowledge_base:
        report = knowledge_base.add([pdf], api.AddRequest(ocr=mode, late=False), sink).ingest
        pages = sum(len(knowledge_base.page_numbers(d.record.id)) for d in knowledge_base.documents().documents)
    assert not report.failed, report.failed
    return report.seconds.get("parse", 0.0), pages, warnings


def make_scan(pages: int, out: Path, dpi: int = 200) -> Path:
    """An image-only PDF of the Civil Code's 234 pages and then the tender's 116 (no page twice up to 350), as a
    200-dpi greyscale scanner makes them; built a page at a time, so only the compressed pages are held."""
    import pypdfium2 as pdfium
    from pypdf import PdfReader, PdfWriter

    sources = [pdfium.PdfDocument(CIVIL_CODE), pdfium.PdfDocument(TENDER)]
    order = [(doc, i) for doc in sources for i in range(len(doc))]
    writer = PdfWriter()
    for n in range(pages):
        doc, i = order[n % len(order)]
        page = io.BytesIO()
        doc[i].render(scale=dpi / 72, grayscale=True).to_pil().save(page, "PDF", resolution=dpi)
        writer.append(PdfReader(page))
    with out.open("wb") as fh:
        writer.write(fh)
    return out


def anz(ask: bool) -> list[str]:
    EVAL.mkdir(parents=True, exist_ok=True)
    kb = EVAL / "anz.kb"
    for stale in EVAL.glob("anz.kb*"):
        stale.unlink()
    cli = [str(ROOT / ".venv" / "bin" / "pikelocal")]
    t0 = time.perf_counter()
    run = subprocess.run([*cli, "ingest", str(kb), str(ANZ), "--ocr", "auto"], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    said = run.stdout + run.stderr
    ocr_line = next((line for line in said.splitlines() if "is OCR'd" in line), "(no page OCR'd)")
    garble_line = next((line for line in said.splitlines() if "looks garbled" in line), "(none)")
    summary = " / ".join(line.strip() for line in run.stdout.splitlines() if "Ingested" in line or "searchable" in line)
    lines = [f"`pikelocal ingest KB '{ANZ.name}' --ocr auto` (default encoder): exit {run.returncode}, {seconds:.0f} s"]
    lines.append(f"in all; it said: _{summary}_. Its OCR line: _{ocr_line.strip()}_. Its garble line:")
    lines.append(f"_{garble_line.strip()}_")
    ocr_pages = re.search(r"page\(s\) \(([\d, …]+)\) is OCR'd", ocr_line)
    lines.append("")
    with api.open_kb(kb, load_settings(None, {})) as knowledge_base:
        doc = knowledge_base.documents().documents[0].record
        for number in (int(n) for n in re.findall(r"\d+", ocr_pages.group(1) if ocr_pages else "")):
            text = knowledge_base.page(doc.id, number).text
            shown = " / ".join(text.split("\n")[:3])[:160]
            lines.append(f"- p. {number}: garbled share {garbled_share(text):.3f}; first lines: `{shown}`")
    for question in QUESTIONS if ask else ():
        t0 = time.perf_counter()
        answer = subprocess.run([*cli, "ask", str(kb), question, "--mode", "naive"], capture_output=True, text=True)
        body = " ".join(answer.stdout.split())
        cited = sorted({int(n) for n in re.findall(r"p\. ?(\d+)", body)})
        lines.append(f'\n`pikelocal ask KB "{question}" --mode naive` ({time.perf_counter() - t0:.0f} s, exit')
        lines.append(
            f"{answer.returncode}); pages named in its output: {cited} (the answer is on {sorted(ANSWER_PAGES)}):"
        )
        lines.append(f"\n> {body[:1500]}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ocr-pages", type=int, default=20, help="pages of the scanned PDF ingested")
    ap.add_argument("--ask", action="store_true", help="also ask the ANZ KB one question (loads the LLM)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args(argv)
    load_before, options = load(), OcrOptions()
    t0 = time.perf_counter()
    engine(options.models_dir, threads_of(options))
    engine_s = time.perf_counter() - t0
    cer_rows, texts = cer_table(max_side=1 << 14)
    speed = ["| document | pages | `--ocr` | parse stage, s | pages/s | reading process: peak RSS / address space |"]
    speed.append("|---|---|---|---|---|---|")
    rss_line = ""
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        folder = Path(tmp)
        for run, mode in enumerate(("never", "auto", "never", "auto")):  # alternated: the first pays for cold caches
            seconds, pages, _ = ingest(CIVIL_CODE, mode, folder / str(run))
            speed.append(
                f"| {CIVIL_CODE.name} (text layer), run {run + 1} | {pages} | {mode} | {seconds:.1f} |"
                f" {pages / seconds:.1f} | |"
            )
        scan = make_scan(args.ocr_pages, folder / f"scan-{args.ocr_pages}.pdf")
        sampler = Sampler()
        seconds, pages, warnings = ingest(scan, "auto", folder, sampler)
        peak = f"{sampler.peaks[0]:,} MB / {sampler.peaks[1]:,} MB"
        speed.append(
            f"| scan (Civil Code, tender), 200 dpi | {pages} | auto | {seconds:.1f} | {pages / seconds:.3f} | {peak} |"
        )
        rss_line = (
            f"Resident memory of the reading process over the {pages}-page scan (sampled with each progress event,"
            " at least every 0.25 s), lowest–highest in each tenth of the pages, MB: " + sampler.summary() + "."
            f" OCR warning: _{warnings[0] if warnings else 'none'}_"
        )
    anz_lines = anz(args.ask)
    machine = f"{platform.machine()}, {cpu_summary()}, {os.cpu_count()} CPU threads, Python {platform.python_version()}"
    ask = " --ask" if args.ask else ""
    cmd = "`.venv/bin/python build/bench/bench_ocr.py" + ask + f" --ocr-pages {args.ocr_pages}`"
    section = "\n".join(
        [
            BEGIN,
            "## OCR of scanned pages",
            "",
            f"_{cmd} on {dt.date.today().isoformat()}; {machine}; onnxruntime threads: {threads_of(options)};"
            f" load average (1, 5, 15 min) {load_before} before, {load()} after._",
            "",
            f"rapidocr {api_version('rapidocr')} with PP-OCRv6 small det/rec and the PP-OCR mobile v2.0 orientation"
            f" classifier; engine loaded in {engine_s:.1f} s. CER = edit distance / reference characters, whitespace"
            " removed; pages rendered by PDFium at the dpi shown, with no pixel cap.",
            "",
            *cer_rows,
            "",
            *speed,
            "",
            rss_line,
            "",
            "### The garbled ANZ judgment",
            "",
            *anz_lines,
            END,
        ]
    )
    write_section(args.out, BEGIN, END, section)
    print(section)
    for key, text in texts.items():
        print(f"\n=== {key}\n{text}")
    return 0


def api_version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


if __name__ == "__main__":
    sys.exit(main())
