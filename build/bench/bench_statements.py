"""What the statement index costs at ingest and what it holds: each document ingested into a fresh KB with the
configured (default: EmbeddingGemma) encoder, every stage timed as the pipeline reports it, and the statements
counted per page and per kind.

    python build/bench/bench_statements.py [--out build/bench-work/statements.json] [--docs docs/BENCHMARKS.md] [FILE …]

Without files: the shared tender (../shared/data/pdfs/zh_tender/*.pdf) and the civil code
(../shared/data/pdfs/zh_law/中华人民共和国民法典.pdf). The overhead is the time of the two statement stages
(``statements``: reading, no model; ``statement_vectors``: their vectors) over the time of the other stages, which
is what an ingest without them takes. One process, one document at a time; the machine's other load shows in the
wall times, not much in the ratio (the stages run back to back). With ``--docs``, the figures are written as the
section "statements_cost" of the benchmark pages and as records in docs/results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "pdfs"
DEFAULT = [
    *sorted((SHARED / "zh_tender").glob("*.pdf")),
    SHARED / "zh_law" / "中华人民共和国民法典.pdf",
]
STATEMENT_STAGES = ("statements", "statement_vectors")


def measure(path: Path) -> dict[str, Any]:
    """Ingest ``path`` into a new KB and report the stages' seconds, the overhead and the statements' counts."""
    with tempfile.TemporaryDirectory() as tmp:
        kb = Path(tmp) / "bench.kb"
        settings = api.load_settings()
        t0 = time.perf_counter()
        with api.open_kb(kb, settings) as knowledge_base:
            report = knowledge_base.add([path]).ingest
        wall = time.perf_counter() - t0
        with Store.open_existing(kb) as store:
            [doc] = store.docs.documents()
            found = store.statements.of_document(doc.id)
            pages = doc.n_pages or len(store.docs.page_numbers(doc.id))
            chunks = store.counts()["chunks"]
    seconds = {k: round(v, 3) for k, v in report.seconds.items()}
    statements_s = sum(report.seconds.get(k, 0.0) for k in STATEMENT_STAGES)
    without = sum(v for k, v in report.seconds.items() if k not in STATEMENT_STAGES)
    return {
        "file": path.name,
        "pages": pages,
        "chunks": chunks,
        "statements": len(found),
        "statements_per_page": round(len(found) / pages, 2) if pages else None,
        "kinds": dict(Counter(s.value.kind for s in found)),
        "seconds": seconds,
        "wall_s": round(wall, 1),
        "ingest_without_statements_s": round(without, 2),
        "statement_stages_s": round(statements_s, 2),
        "overhead_reading": round(report.seconds.get("statements", 0.0) / without, 4),
        "overhead_vectors": round(report.seconds.get("statement_vectors", 0.0) / without, 4),
        "overhead": round(statements_s / without, 4),
    }


BEGIN, END = "<!-- statements_cost:begin -->", "<!-- statements_cost:end -->"
TARGET = 0.10  # the statement stages may add this share to an ingest


def section(results: list[dict[str, Any]], command: str) -> str:
    """The figures as a Markdown section: per document, the statements and what their two stages cost."""
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = [
        f"| {r['file']} | {r['pages']} | {r['statements']} | {r['statements_per_page']} | "
        f"{r['ingest_without_statements_s']} | {r['seconds'].get('statements', 0)} | "
        f"{r['seconds'].get('statement_vectors', 0)} | **{float(r['overhead']):.1%}** |"
        for r in results
    ]
    return "\n".join(
        [
            BEGIN,
            "## Statements: what reading them costs at ingest",
            "",
            f"_`{command}` on {when}; {cpu_summary()}, {os.cpu_count()} cores; default encoder; each document "
            "ingested alone into a new KB._",
            "",
            "The statement stages (`statements`: reading every typed value with its subject, no model; "
            "`statement_vectors`: one encoder pass over each statement's line) against the rest of the ingest "
            f"(parse, chunk vectors, references). Target: at most {TARGET:.0%} more.",
            "",
            "| document | pages | statements | per page | ingest without them, s | reading, s | vectors, s | added |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            "The reading costs next to nothing; the vectors are the cost, and they scale with the number of "
            "statements, so a dense tender (a figure on most lines of its tables) pays more than a code of law.",
            END,
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench-work" / "statements.json")
    parser.add_argument("--docs", type=Path, help="docs/BENCHMARKS.md: write the section and results.json records")
    args = parser.parse_args()
    results = []
    for path in args.files or DEFAULT:
        result = measure(path)
        print(json.dumps(result, ensure_ascii=False), flush=True)
        results.append(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if args.docs is not None:
        command = "python build/bench/bench_statements.py --docs docs/BENCHMARKS.md" + "".join(
            f" {p}" for p in args.files
        )
        write_section(args.docs, BEGIN, END, section(results, command), topic="ingesting")
        for r in results:
            record_result(
                args.docs.parent / "results.json", benchmark="statements_cost", dataset=str(r["file"]),
                mode="default", n=int(r["pages"]),
                metrics={"overhead": float(r["overhead"]), "statements_per_page": float(r["statements_per_page"])},
                command=command,
            )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
