"""A standing fuzz suite: seeded mutations of real PDFs, of text files and of Word and Excel
files through ingestion, each batch in a child process under a deadline. Every run must end with no crash (an
exception escaping the pipeline), no hang (a batch past its deadline), a reason for every failed file, a clean
integrity check and no duplicate rows.

``PIKELOCAL_FUZZ_SEED`` and ``PIKELOCAL_FUZZ_CASES`` choose the run (defaults below); the counts are printed, and
``build/bench/bench_reliability.py`` records them in docs/RELIABILITY.md. ``PIKELOCAL_FUZZ_OFFICE_CASES`` sets how many
.docx/.xlsx cases run: a mutation inside one XML member of the zip (the zip itself stays valid, so the XML readers
are what is tested) or of the zipped bytes (a damaged zip).
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import office
from tests.support.kb_checks import duplicates

pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("fuzz_worker.py")
REPO = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("PIKELOCAL_FUZZ_SEED", "20261122"))
CASES = int(os.environ.get("PIKELOCAL_FUZZ_CASES", "48"))
OFFICE_CASES = int(os.environ.get("PIKELOCAL_FUZZ_OFFICE_CASES", "40"))
BATCH = 8
DEADLINE_S = 90.0  # per batch of BATCH files (a normal batch takes a few seconds)
TEXTS = {
    "tender.md": (
        "# 招标公告\n\n## 第一章 投标须知\n\n1.1 投标保证金为人民币伍万元。\n\n"
        "| 项目 | 分值 |\n|---|---|\n| 价格 | 30 |\n"
    ),
    "contract.txt": "SUPPLY AGREEMENT\n\n9.1 The Buyer may terminate this Agreement by notice.\n(a) late delivery;\n",
    "minutes-gb18030.txt": "会议纪要\n\n一、项目进度\n二、付款安排：预付款百分之三十。\n",
}


@dataclass
class Tally:
    cases: int = 0
    crashes: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    max_rss_mb: float = 0.0


def seeds(shared_data: Path) -> list[tuple[str, bytes]]:
    pdfs = sorted((shared_data / "pdfs" / "edge_cases").glob("*.pdf"))
    out = [(p.name, p.read_bytes()) for p in pdfs if p.stat().st_size < 200_000]
    for name, text in TEXTS.items():
        out.append((name, text.encode("gb18030" if "gb18030" in name else "utf-8")))
    return out


def mutate(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """One seeded mutation of ``data`` and its name."""
    kind = rng.choice(["flip", "truncate", "insert", "delete", "duplicate", "zero"])
    n = len(data)
    at = rng.randrange(max(1, n))
    if kind == "flip":
        out = bytearray(data)
        for _ in range(rng.randint(1, 64)):
            i = rng.randrange(max(1, n))
            if out:
                out[i] ^= 1 << rng.randrange(8)
        return bytes(out), kind
    if kind == "truncate":
        return data[:at], kind
    if kind == "insert":
        return data[:at] + rng.randbytes(rng.randint(1, 4096)) + data[at:], kind
    if kind == "delete":
        return data[:at] + data[at + rng.randint(1, 4096) :], kind
    if kind == "duplicate":
        piece = data[at : at + rng.randint(16, 8192)]
        return data[:at] + piece * rng.randint(2, 50) + data[at:], kind
    return data[:at] + b"\0" * rng.randint(1, 4096) + data[at:], kind


CORE_XML = (  # fixed core properties: python-docx and openpyxl stamp the time of saving, the seeds must not vary
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties'
    b' xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"'
    b' xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Fuzz seed</dc:title></cp:coreProperties>'
)


def rezip(members: list[tuple[str, bytes]]) -> bytes:
    """A zip of ``members`` with fixed timestamps, so that one seed gives the same bytes every run."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members:
            zf.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), content, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def office_seeds() -> list[tuple[str, bytes]]:
    built = [
        ("tender.docx", office.tender_docx()),
        ("tender-paged.docx", office.tender_docx(paged=True)),
        ("prices.xlsx", office.price_xlsx()),
        ("prices-uncached.xlsx", office.price_xlsx(cached=False)),
    ]
    out = []
    for name, data in built:
        source = zipfile.ZipFile(io.BytesIO(data))
        members = [(i.filename, CORE_XML if i.filename == "docProps/core.xml" else source.read(i))
                   for i in source.infolist()]  # fmt: skip
        out.append((name, rezip(members)))
    return out


def mutate_office(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    """A mutation of one XML member of the package (three cases in four), else of the zipped bytes."""
    if rng.random() < 0.25:
        return mutate(data, rng)
    source = zipfile.ZipFile(io.BytesIO(data))
    infos = source.infolist()
    target = rng.choice([i for i in infos if i.filename.endswith((".xml", ".rels"))])
    content, kind = mutate(source.read(target), rng)
    members = [(i.filename, content if i is target else source.read(i)) for i in infos]
    return rezip(members), f"{kind}@{target.filename.replace('/', '_')}"


def run_batch(kb: Path, files: list[Path], tally: Tally) -> None:
    proc = subprocess.Popen([sys.executable, str(WORKER), str(kb), *map(str, files)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        out, err = proc.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        tally.hangs.append(f"{[f.name for f in files]} past {DEADLINE_S:.0f} s")
        return
    if proc.returncode != 0:
        tally.crashes.append(f"{[f.name for f in files]}: exit {proc.returncode}: {err.strip().splitlines()[-1:]}")
        return
    for line in out.splitlines():
        row = json.loads(line)
        if row.get("summary"):
            tally.max_rss_mb = max(tally.max_rss_mb, row["rss_mb"])
            continue
        tally.statuses[row["status"]] = tally.statuses.get(row["status"], 0) + 1
        if row["status"] == "failed" and not (row["reason"] and row["message"]):
            tally.unexplained.append(row["path"])


def fuzz(
    tmp_path: Path,
    corpus: list[tuple[str, bytes]],
    mutation: Callable[[bytes, random.Random], tuple[bytes, str]],
    rng: random.Random,
    cases: int,
    tally: Tally,
) -> dict[str, int]:
    """``cases`` mutated files ingested into one KB, ``BATCH`` to a worker, the KB checked for duplicate rows
    after each batch; returns how many cases each kind of mutation made."""
    kb = tmp_path / "fuzz.kb"
    kinds: dict[str, int] = {}
    for start in range(0, cases, BATCH):
        folder = tmp_path / f"batch{start // BATCH}"
        folder.mkdir()
        files = []
        for i in range(start, min(cases, start + BATCH)):
            name, data = rng.choice(corpus)
            mutated, kind = mutation(data, rng)
            kinds[kind.split("@")[0]] = kinds.get(kind.split("@")[0], 0) + 1
            path = folder / f"{i:03d}-{kind}-{name}"
            path.write_bytes(mutated)
            files.append(path)
        tally.cases += len(files)
        run_batch(kb, files, tally)
        problems = duplicates(kb) if kb.exists() else []
        assert problems == [], problems
    return kinds


def test_mutated_inputs_never_crash_hang_or_corrupt_the_kb(tmp_path: Path, shared_data: Path) -> None:
    tally = Tally()
    fuzz(tmp_path, seeds(shared_data), mutate, random.Random(SEED), CASES, tally)
    summary = (f"fuzz seed {SEED}: {tally.cases} cases, {len(tally.crashes)} crashes, {len(tally.hangs)} hangs,"
               f" max RSS {tally.max_rss_mb:.0f} MB, outcomes {dict(sorted(tally.statuses.items()))}")  # fmt: skip
    print(summary)
    assert tally.crashes == [] and tally.hangs == [] and tally.unexplained == [], (tally, summary)
    assert sum(tally.statuses.values()) == tally.cases


def test_mutated_word_and_excel_files_never_crash_hang_or_corrupt_the_kb(tmp_path: Path) -> None:
    tally = Tally()
    kinds = fuzz(tmp_path, office_seeds(), mutate_office, random.Random(SEED + 18), OFFICE_CASES, tally)
    summary = (f"office fuzz seed {SEED + 18}: {tally.cases} cases, {len(tally.crashes)} crashes,"
               f" {len(tally.hangs)} hangs, max RSS {tally.max_rss_mb:.0f} MB,"
               f" outcomes {dict(sorted(tally.statuses.items()))}, mutations {dict(sorted(kinds.items()))}"
               )  # fmt: skip
    print(summary)
    assert tally.crashes == [] and tally.hangs == [] and tally.unexplained == [], (tally, summary)
    assert sum(tally.statuses.values()) == tally.cases


def test_the_suite_sees_a_crash(tmp_path: Path) -> None:
    """The control: a worker that dies (here: its KB cannot be created) is counted as a crash, not as a pass."""
    tally = Tally()
    sample = tmp_path / "a.txt"
    sample.write_text("The bid bond is due with the bid.\n")
    run_batch(tmp_path / "no" / "such" / "folder" / "kb.kb", [sample], tally)
    assert len(tally.crashes) == 1 and "exit 1" in tally.crashes[0]
