"""What the statement index costs at ingest and what it holds: each document ingested into a fresh KB with the
configured (default: EmbeddingGemma) encoder, every stage timed as the pipeline reports it, and the statements
counted per page and per kind.

    python build/bench/bench_statements.py [--out build/bench-work/statements.json] [FILE …]

Without files: the shared tender (../shared/data/pdfs/zh_tender/*.pdf) and the civil code
(../shared/data/pdfs/zh_law/中华人民共和国民法典.pdf). The overhead is the time of the two statement stages
(``statements``: reading, no model; ``statement_vectors``: their vectors) over the time of the other stages, which
is what an ingest without them takes. One process, one document at a time; the machine's other load shows in the
wall times, not much in the ratio (the stages run back to back).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal import api  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "pdfs"
DEFAULT = [
    *sorted((SHARED / "zh_tender").glob("*.pdf")),
    SHARED / "zh_law" / "中华人民共和国民法典.pdf",
]
STATEMENT_STAGES = ("statements", "statement_vectors")


def measure(path: Path) -> dict[str, object]:
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "bench-work" / "statements.json")
    args = parser.parse_args()
    results = []
    for path in args.files or DEFAULT:
        result = measure(path)
        print(json.dumps(result, ensure_ascii=False), flush=True)
        results.append(result)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
