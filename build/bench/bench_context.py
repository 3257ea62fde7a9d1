"""Answer context assembly, neighbours against relevant segments, without the LLM.

    .venv/bin/python build/bench/bench_context.py [--kb KB] [--out docs/BENCHMARKS.md]

For each of the tender's 30 page questions (``tests/data/tender_retrieval_qa.jsonl``) the sources naive answering
would send are assembled as ``query.answer.modes.ask`` does (hybrid search, the first ``answer.k`` chunks gathered, the
context budget of the default LLM), once per ``answer.context`` and segment preset. Measured: the context's
tokens (the tokenizer-free estimate the budget uses), the number of sources, and whether a gold page lies inside
a source (context recall: the model can only cite what it is given). The KB is the one ``build/bench/tune_fusion.py``
builds for the tender set. Section written between markers in the output file.

Contextual compression (``answer.compress_tokens``) is measured on top of the neighbours context at a few budgets:
then the pages of the kept sentences count (a compressed source keeps its page range, so the page test reads
where its pieces stand), and for every row, whether all of a question's evidence quotes (exact text of the gold
page, whitespace aside) are still in the context: what the model needs to answer, not only where it stands.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.answers import Source  # noqa: E402
from pikelocal.domain.kinds import SEGMENT_PRESETS  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.datasets.tender import load_tender_questions  # noqa: E402
from pikelocal.kb.options import ask_options  # noqa: E402
from pikelocal.query.answer.modes import ranking_depth  # noqa: E402
from pikelocal.query.context.compress import compress_sources  # noqa: E402
from pikelocal.query.context.expand import Budget, Ranking, assemble, estimate_tokens  # noqa: E402
from pikelocal.query.context.locate import store_locator  # noqa: E402
from pikelocal.query.context.segments import PRESETS  # noqa: E402
from pikelocal.query.retrieve.search import search  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_context:begin -->", "<!-- bench_context:end -->"
QA = ROOT / "tests" / "data" / "tender_retrieval_qa.jsonl"
BUDGET_TOKENS = 2000  # answer.context_tokens; the default 8,192-token LLM context leaves it whole
COMPRESS = (1000, 700, 500)  # answer.compress_tokens measured on the neighbours context


def squash(text: str) -> str:
    return "".join(text.split())


def pages_read(store: Store, sources: list[Source]) -> set[int]:
    """The pages the context's text stands on: a whole source's range, a compressed one's pieces' pages."""
    locate = store_locator(store)
    out: set[int] = set()
    for s in sources:
        if not s.pieces:
            out |= set(range(s.page_start or 0, (s.page_end or s.page_start or 0) + 1))
            continue
        for start, _origin, length in s.pieces:
            where = locate(s, start, start + length)
            if where is not None and where[0] is not None:
                out |= set(range(where[0], (where[1] or where[0]) + 1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval" / "tender.kb")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    if not args.kb.exists():
        sys.exit(f"{args.kb}: no KB; build it with build/bench/tune_fusion.py --sets tender")
    settings = load_settings()
    options = ask_options(settings)
    encoder = open_encoder(settings)
    questions = load_tender_questions(QA)
    variants: list[tuple[str, Budget]] = [("neighbours ±1", Budget(BUDGET_TOKENS, 1, "neighbours"))]
    variants += [(f"segments, {p}", Budget(BUDGET_TOKENS, 1, "segments", PRESETS[p])) for p in SEGMENT_PRESETS]
    names = [name for name, _ in variants] + [f"neighbours ±1, compressed to {n:,}" for n in COMPRESS]
    rows: dict[str, list[tuple[int, int, bool, bool]]] = {name: [] for name in names}
    compress_s: dict[str, list[float]] = {name: [] for name in names}
    with Store.open_existing(args.kb) as store:
        weights = {**settings.search.weights(), "questions": 0.0}
        for q in questions:
            depth = ranking_depth(replace(options, context="segments"))  # neighbours reads only the first k
            hits = search(store, encoder, q.question, k=depth, weights=weights, fusion=options.fusion)
            priority = [h.chunk.id for h in hits[: options.k]]
            ranking: Ranking = [(h.chunk.id, h.score) for h in hits]
            contexts: dict[str, list[Source]] = {}
            for name, budget in variants:
                contexts[name] = assemble(store, priority, budget, ranking=ranking)
            for n in COMPRESS:
                t0 = time.perf_counter()
                contexts[f"neighbours ±1, compressed to {n:,}"] = compress_sources(
                    contexts["neighbours ±1"], encoder, [q.question], n
                )
                compress_s[f"neighbours ±1, compressed to {n:,}"].append(time.perf_counter() - t0)
            for name, sources in contexts.items():
                tokens = sum(estimate_tokens(s.text) for s in sources)
                pages = pages_read(store, sources)
                text = squash("\n".join(s.text for s in sources))
                evidence = all(squash(e) in text for e in q.evidence)
                rows[name].append((tokens, len(sources), bool(pages & set(q.gold_pages)), evidence))
    lines = [
        "## Answer context: neighbours, relevant segments and compression, without the LLM",
        "",
        "_`.venv/bin/python build/bench/bench_context.py`"
        f" on {dt.datetime.now():%Y-%m-%d %H:%M}; {cpu_summary()}; Python"
        f" {platform.python_version()}. The tender's 30 page questions; hybrid search ({options.fusion},"
        f" weights {weights['bm25']:g} / {weights['dense']:g} / {weights['late']:g}), the first {options.k} chunks"
        f" gathered, {BUDGET_TOKENS:,}-token budget._",
        "",
        "| context | median tokens | mean tokens | median sources | gold page in the context |"
        " all evidence quotes in the context | compression s (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in names:
        r = rows[name]
        recall = sum(1 for _, _, hit, _ in r if hit)
        quoted = sum(1 for *_, ev in r if ev)
        secs = f"{statistics.median(compress_s[name]):.2f}" if compress_s[name] else "–"
        lines.append(
            f"| {name} | {statistics.median(t for t, *_ in r):,.0f} | {statistics.mean(t for t, *_ in r):,.0f} |"
            f" {statistics.median(n for _, n, *_ in r):g} | {recall}/{len(r)} ({recall / len(r):.0%}) |"
            f" {quoted}/{len(r)} ({quoted / len(r):.0%}) | {secs} |"
        )
    write_section(args.out, BEGIN, END, BEGIN + "\n" + "\n".join(lines) + "\n" + END)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
