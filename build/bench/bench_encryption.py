"""Encryption at rest: ingest and search of the same documents into a plain and an encrypted KB.

    python build/bench/bench_encryption.py [--pdf PATH…] [--dim 768] [--reps 3] [--out docs/BENCHMARKS.md]

The encoder is the hashing fake (``HashEncoder``) at EmbeddingGemma's width (768-d), so the figures are the store's
cost (parsing, SQLite, vec0, FTS5, and for the encrypted KB ChaCha20-Poly1305 on every page) without a model's
seconds in front of them; with the real encoder, ingest time is the encoder's and the difference shrinks. Searches
go through ``KnowledgeBase.search`` as the CLI does: each opens its own connection (for an encrypted KB that
includes the key derivation) and reads through a cold page cache. Writes its section into docs/BENCHMARKS.md between
markers, leaving the rest of the file alone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.store import keys  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_encryption:begin -->", "<!-- bench_encryption:end -->"
PDFS = [
    ROOT.parent / "shared" / "data" / "pdfs" / "zh_law" / "中华人民共和国民法典.pdf",
    ROOT.parent / "shared" / "data" / "pdfs" / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf",
]
QUERIES = ["合同的解除条件", "继承人的范围和顺序", "居住权", "物业服务合同", "监护人的职责", "借款合同利息",
           "投标保证金", "履约保证金", "勘察设计 工期", "dissolution of marriage"]  # fmt: skip
MODES: tuple[api.SearchMode, ...] = ("bm25", "dense", "hybrid")
KEY = "benchmark key, not a secret"


def ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"{statistics.median(values) * 1000:.0f} / {p90 * 1000:.0f}"


def run_variant(folder: Path, docs: list[Path], dim: int, reps: int, key: str | None) -> dict[str, object]:
    kb = folder / ("encrypted.kb" if key else "plain.kb")
    settings = load_settings(None, {})
    encoder = HashEncoder(dim=dim)
    with api.open_kb(kb, settings, encoder=encoder, key=key) as knowledge_base:
        t0 = time.perf_counter()
        report = knowledge_base.add(docs).ingest
        ingest_s = time.perf_counter() - t0
        assert not report.failed, report.failed
        opens = []
        for _ in range(10):
            t = time.perf_counter()
            Store.open_existing(kb).close()
            opens.append(time.perf_counter() - t)
        searches: dict[str, list[float]] = {}
        for mode in MODES:
            for _ in range(reps):
                for q in QUERIES:
                    t = time.perf_counter()
                    hits = knowledge_base.search(q, api.SearchRequest(mode=mode, k=10))
                    searches.setdefault(mode, []).append(time.perf_counter() - t)
                    assert hits or mode == "bm25"
        chunks = knowledge_base.stats().counts.chunks
    assert keys.file_kind(kb) == ("encrypted" if key else "plain")
    return {"ingest_s": ingest_s, "open": opens, "search": searches, "chunks": chunks, "mb": kb.stat().st_size / 1e6}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", type=Path, nargs="*", default=[p for p in PDFS if p.exists()])
    ap.add_argument("--dim", type=int, default=768)
    ap.add_argument("--reps", type=int, default=3, help="times each query is searched per mode")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--note", default="", help="a line about the machine's state (e.g. busy with another job)")
    args = ap.parse_args(argv)
    docs = [p for p in args.pdf if p.exists()] or [ROOT / "pikelocal" / "samples"]
    os.environ.pop(keys.ENV_KEY, None)
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench-enc-") as tmp:
        for name, key in (("plain", None), ("encrypted", KEY)):
            print(f"[bench_encryption] {name}: ingesting {', '.join(p.name for p in docs)}", flush=True)
            results[name] = run_variant(Path(tmp), docs, args.dim, args.reps, key)
    plain, enc = results["plain"], results["encrypted"]
    n = args.reps * len(QUERIES)
    rows = [
        "| measure | plain | encrypted | encrypted / plain |",
        "|---|---|---|---|",
        f"| ingest, s ({plain['chunks']:,} chunks) | {plain['ingest_s']:.1f} | {enc['ingest_s']:.1f} |"
        f" {enc['ingest_s'] / plain['ingest_s']:.2f}x |",  # type: ignore[operator]
        f"| KB file, MB | {plain['mb']:.1f} | {enc['mb']:.1f} | {enc['mb'] / plain['mb']:.2f}x |",  # type: ignore[operator]
        f"| open + close, ms (median / p90 of 10) | {ms(plain['open'])} | {ms(enc['open'])} |"  # type: ignore[arg-type]
        f" {statistics.median(enc['open']) / statistics.median(plain['open']):.1f}x |",  # type: ignore[arg-type]
    ]
    for mode in MODES:
        p, e = plain["search"][mode], enc["search"][mode]  # type: ignore[index]
        rows.append(
            f"| search `{mode}`, ms (median / p90 of {n}) | {ms(p)} | {ms(e)} |"
            f" {statistics.median(e) / statistics.median(p):.2f}x |"
        )
    extra = (statistics.median(enc["search"]["hybrid"]) - statistics.median(plain["search"]["hybrid"])) * 1000  # type: ignore[index]
    machine = f"{platform.machine()}, {os.cpu_count()} CPU threads, Python {platform.python_version()}"
    section = "\n".join(
        [
            BEGIN,
            "## Encryption at rest: ingest, open and search against a plain KB",
            "",
            (
                f"_`python build/bench/bench_encryption.py` on {dt.date.today().isoformat()}; {machine}. {args.note}_"
            ).replace(" _", "_"),
            "",
            f"Documents: {', '.join(p.name for p in docs)}, ingested into a plain and an encrypted KB (SQLite3 Multiple"
            f" Ciphers, ChaCha20-Poly1305, 128 MiB page cache when encrypted, 32 MiB plain) with the hashing encoder"
            f" at {args.dim}-d (no model: the figures are the store's own cost; with the real encoder ingest time is"
            " the encoder's). Each search opens its own connection, as the CLI and TUI do (for the encrypted KB that"
            " includes the key derivation, PBKDF2-SHA256), and reads through a cold SQLite page cache.",
            "",
            *rows,
            "",
            f"Each encrypted search costs about one open more than a plain one ({extra:.0f} ms of"
            f" {statistics.median(enc['search']['hybrid']) * 1000:.0f} ms for hybrid; the open is"  # type: ignore[index]
            f" {statistics.median(enc['open']) * 1000:.0f} ms): mostly the key derivation each new connection runs,"  # type: ignore[arg-type]
            " the rest the decryption of pages read. The runs are in order plain, then encrypted; the ingest ratio is"
            " within the noise of a shared machine.",
            END,
        ]
    )
    write_section(args.out, BEGIN, END, section)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
