"""Ingest cost per 1,000 tokens of each chunking and late-vector variant.

    .venv/bin/python build/bench/bench_ingest_cost.py [--corpora tender,law] [--repeat 2] [--out docs/BENCHMARKS.md]
        [--json docs/results.json]

Each corpus is ingested into a fresh KB once per variant, with the default encoder, through the product's own
pipeline (``KnowledgeBase.add``). A stage's seconds are those of its ``StageFinished`` event; each variant keeps
its fastest of ``--repeat`` runs (by total). Tokens: the corpus's chunk texts counted by the encoder's tokenizer
in the first variant's KB, so every variant is divided by the same count. Run it on a quiet machine: a job beside it
inflates every figure. The semantic splitter embeds every sentence inside the parse stage, so its extra cost shows
there.

Section written between markers in the output file; the default variant's figures of each corpus also go to
docs/results.json (benchmark "ingest", the corpus's title as data set).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.events import Event, StageFinished  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_ingest_cost:begin -->", "<!-- bench_ingest_cost:end -->"
DATA = ROOT.parent / "shared" / "data"
TENDER = DATA / "pdfs" / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
LAW = DATA / "legal_zh" / "laws_lawrefbook" / "民法商法" / "公司法(2023-12-29).md"
CORPORA: dict[str, tuple[str, Path]] = {
    "tender": ("the tender PDF", TENDER),
    "law": ("公司法 (2023), one long law of LawBench's collection", LAW),
}
VARIANTS: dict[str, dict[str, Any]] = {  # each says whether it builds late vectors: not the default's business
    "structure, no late vectors (the default)": {"ingest.late": False},
    "structure, late plain": {"ingest.late": True, "ingest.late_context": "off"},
    "structure, late with the header as prefix": {"ingest.late": True, "ingest.late_context": "prefix"},
    "structure, late mixed with the header": {"ingest.late": True, "ingest.late_context": "mix"},
    "semantic, late mixed with the header": {
        "ingest.late": True,
        "ingest.splitter": "semantic",
        "ingest.late_context": "mix",
    },
}
STAGES = ("parse", "embed", "late")


@dataclass(frozen=True)
class Run:
    chunks: int
    stages: Mapping[str, float]  # StageFinished seconds by stage
    total: float  # wall seconds of the whole add


def ingest_once(path: Path, overrides: Mapping[str, Any], kb: Path) -> Run:
    seconds: dict[str, float] = {}

    def sink(event: Event) -> None:
        if isinstance(event, StageFinished):
            seconds[event.stage] = seconds.get(event.stage, 0.0) + event.seconds

    settings = api.load_settings(environ={}, overrides=dict(overrides))
    started = time.perf_counter()
    with api.open_kb(kb, settings) as knowledge_base:
        report = knowledge_base.add([path], sink=sink).ingest
    total = time.perf_counter() - started
    if report.count("ingested") != 1:
        raise SystemExit(f"bench_ingest_cost: {path.name}: not ingested ({report})")
    with Store.open_existing(kb) as store:
        chunks = sum(len(store.chunks.chunks_of(d.id)) for d in store.docs.documents())
    return Run(chunks, seconds, total)


def corpus_tokens(kb: Path) -> int:
    encoder = open_encoder(api.load_settings(environ={}))
    with Store.open_existing(kb) as store:
        return sum(encoder.count_tokens(c.text) for d in store.docs.documents() for c in store.chunks.chunks_of(d.id))


def run_corpus(name: str, repeat: int, scratch: Path) -> tuple[str, dict[str, float]]:
    """The corpus's table, and the default variant's figures for docs/results.json."""
    title, path = CORPORA[name]
    best: dict[str, Run] = {}
    tokens = 0
    for n, (variant, overrides) in enumerate(VARIANTS.items()):
        for r in range(repeat):
            kb = scratch / f"{name}-{n}-{r}.kb"
            run = ingest_once(path, overrides, kb)
            print(f"[ingest_cost] {name} · {variant} · run {r + 1}: {run.total:.1f} s", flush=True)
            if variant not in best or run.total < best[variant].total:
                best[variant] = run
            if not tokens:
                tokens = corpus_tokens(kb)
    per_k = 1000 / max(1, tokens)
    lines = [
        f"**{title}** ({tokens:,} tokens in its chunk texts)",
        "",
        "| variant | chunks | parse s | embed s | late s | stages s per 1k tokens | whole add s | × no late |",
        "|---|---|---|---|---|---|---|---|",
    ]
    base = best[next(iter(VARIANTS))].total
    for variant, run in best.items():
        cells = [f"{run.stages[s]:.1f}" if s in run.stages else "–" for s in STAGES]
        lines.append(
            f"| {variant} | {run.chunks:,} | " + " | ".join(cells) + f" | {sum(run.stages.values()) * per_k:.2f} |"
            f" {run.total:.1f} | {run.total / base:.2f} |"
        )
    default = best[next(iter(VARIANTS))]
    figures = {
        "tokens": tokens,
        "chunks": default.chunks,
        **{f"{s}_s": default.stages[s] for s in STAGES if s in default.stages},
        "stage_s_per_1k_tokens": sum(default.stages.values()) * per_k,
        "whole_add_s": default.total,
    }
    return "\n".join(lines), figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", default="tender,law", help=f"comma-separated, of {', '.join(CORPORA)}")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    args = ap.parse_args()
    names = [n for n in args.corpora.split(",") if n]
    unknown = [n for n in names if n not in CORPORA]
    if unknown or args.repeat < 1:
        raise SystemExit(f"bench_ingest_cost: unknown corpora {unknown} or --repeat {args.repeat} < 1")
    started = dt.datetime.now()
    with tempfile.TemporaryDirectory(prefix="ingest-cost-") as scratch:
        runs = {n: run_corpus(n, args.repeat, Path(scratch)) for n in names}
    parts = [table for table, _ in runs.values()]
    section = "\n".join(
        [
            "## Ingest cost per 1k tokens, per chunking and late-vector variant",
            "",
            f"_`.venv/bin/python build/bench/bench_ingest_cost.py --corpora {args.corpora} --repeat {args.repeat}` on"
            f" {started:%Y-%m-%d %H:%M}; {cpu_summary()}; Python {platform.python_version()}. Each variant ingested"
            " into a fresh KB with the default encoder (`KnowledgeBase.add`), the fastest of the runs; stage seconds"
            ' from the pipeline\'s own events; "whole add" also holds opening the models and the KB._',
            "",
            "\n\n".join(parts),
            "",
        ]
    )
    write_section(args.out, BEGIN, END, BEGIN + "\n" + section + END)
    for name, (_, figures) in runs.items():  # the default variant's figures
        record_result(
            args.json,
            benchmark="ingest",
            dataset=CORPORA[name][0],
            mode=next(iter(VARIANTS)),
            n=int(figures["chunks"]),
            metrics=figures,
            command=".venv/bin/python build/bench/bench_ingest_cost.py"
            f" --corpora {args.corpora} --repeat {args.repeat}",
        )
    print(f"[ingest_cost] section written to {args.out}; the default's figures to {args.json}")


if __name__ == "__main__":
    main()
