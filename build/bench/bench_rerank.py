"""The local LLM as a listwise reranker of the fused top hits, on the tender's 30 page questions.

    .venv/bin/python build/bench/bench_rerank.py [--kb KB] [--top 10] [--out docs/BENCHMARKS.md]

For every question, the default hybrid search (atomic questions left out) ranks the tender KB of
``build/bench/tune_fusion.py``; the first ``--top`` hits are reordered by the default LLM (``query.retrieve.rerank``,
one call), and both rankings are scored by page (a chunk counts for every page it spans): nDCG@10, R@1, R@5. The LLM's
seconds, prompt tokens and output tokens per question are the price. The replies are cached in a file beside the
KB (``<kb>.rerank-cache.kb``), so a killed run goes on where it stopped. Section written between markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval.datasets.tender import load_tender_questions  # noqa: E402
from pikelocal.eval.retrieval import chunk_page_keys, score_ranking  # noqa: E402
from pikelocal.llm.base import LLM, Completion, GenParams, Message  # noqa: E402
from pikelocal.llm.cached import CachedLLM  # noqa: E402
from pikelocal.llm.factory import open_llm  # noqa: E402
from pikelocal.query.retrieve.rerank import rerank  # noqa: E402
from pikelocal.query.retrieve.search import search  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_rerank:begin -->", "<!-- bench_rerank:end -->"
QA = ROOT / "tests" / "data" / "tender_retrieval_qa.jsonl"
KS = (1, 5)


class Counting:
    """An LLM wrapper keeping the completions of the current question."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.done: list[Completion] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.llm, name)

    def complete(self, messages: list[Message], params: GenParams) -> Completion:
        c = self.llm.complete(messages, params)
        self.done.append(c)
        return c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kb", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "retrieval" / "tender.kb")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--questions", type=int, default=None, help="only the first N questions (a partial run)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    if not args.kb.exists():
        sys.exit(f"{args.kb}: no KB; build it with build/bench/tune_fusion.py --sets tender")
    settings = api.load_settings()
    encoder = open_encoder(settings)
    weights = {**settings.search.weights(), "questions": 0.0}
    questions = load_tender_questions(QA)[: args.questions]
    before = [0.0, 0.0, 0.0]
    after = [0.0, 0.0, 0.0]
    seconds: list[float] = []
    prompt: list[int] = []
    output: list[int] = []
    cache_kb = args.kb.with_name(args.kb.stem + ".rerank-cache.kb")
    model = open_llm(settings)
    try:
        with (
            Store.open_existing(args.kb, readonly=True) as store,
            Store.open(cache_kb, encoder_id=encoder.model_id, dim=encoder.dim) as cache_store,
        ):
            llm = Counting(CachedLLM(model, cache_store.cache))
            key_of = chunk_page_keys(store)
            for n, q in enumerate(questions, start=1):
                hits = search(store, encoder, q.question, k=max(10, args.top), weights=weights)
                fused = [h.chunk.id for h in hits]
                llm.done = []
                reranked = rerank(llm, q.question, [h.chunk for h in hits], args.top)  # type: ignore[arg-type]
                for sums, ids in ((before, fused), (after, reranked)):
                    ndcg, recalls, _ = score_ranking(ids, q.query, key_of, (*KS, 10), hit_only=True)
                    sums[0] += ndcg
                    sums[1] += recalls[1]
                    sums[2] += recalls[5]
                seconds.append(sum(c.seconds for c in llm.done))
                prompt.append(sum(c.prompt_tokens for c in llm.done))
                output.append(sum(c.completion_tokens for c in llm.done))
                print(f"[rerank] {n}/{len(questions)} {seconds[-1]:.1f} s", flush=True)
    finally:
        model.close()
    m = len(questions)
    lines = [
        BEGIN,
        "## Reranking the fused top hits with the local LLM",
        "",
        f"_`.venv/bin/python build/bench/bench_rerank.py --top {args.top}"
        + (f" --questions {args.questions}" if args.questions else "")
        + f"` on {dt.datetime.now():%Y-%m-%d %H:%M};"
        f" {cpu_summary()}; Python {platform.python_version()}. The first {m} of the tender's page questions;"
        f" default hybrid search (atomic questions left out), its first {args.top} hits reordered by the default"
        " LLM in one call; scored by page._",
        "",
        "| ranking | nDCG@10 | R@1 | R@5 |",
        "|---|---|---|---|",
        f"| hybrid | {before[0] / m:.3f} | {before[1] / m:.3f} | {before[2] / m:.3f} |",
        f"| hybrid + LLM rerank of the top {args.top} | {after[0] / m:.3f} | {after[1] / m:.3f} | {after[2] / m:.3f} |",
        "",
        f"Per question: median {statistics.median(seconds):.1f} s of LLM time when it ran (mean"
        f" {statistics.mean(seconds):.1f}; a reply from the cache counts the seconds it took when it ran),"
        f" {statistics.median(prompt):,.0f} prompt and {statistics.median(output):,.0f} output tokens.",
        END,
    ]
    write_section(args.out, BEGIN, END, "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
