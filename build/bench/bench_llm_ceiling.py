"""The LLM ceiling on the machine at hand: what llama.cpp itself does, with nothing of ours in the way.

- prompt tokens/s, 512 tokens decoded in one batch (flash attention on, and off);
- generation tokens/s aggregated over 1/2/4/8 sequences batched together (greedy, llama.cpp's batch API);
- the same GGUF requantized by llama.cpp's ``llama_model_quantize`` (Q4_0, Q8_0): speed, and as a quality check the
  perplexity of a fixed tender text (the bundled samples) and the share of positions where its top token agrees
  with the default model's;
- thread settings under one competing CPU-bound process (a Python busy loop): 1-sequence generation and prompt
  tokens/s with 2 and 1 threads, quiet and contended.

The answer-speed targets (e.g. median time per question within 1.15x of the ceiling time) are ratios to these
figures. Writes its section of docs/BENCHMARKS.md and, with ``--json``, the figures for scripts that compute
ceiling times.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.assets import resolve_gguf  # noqa: E402
from pikelocal.config import available_cpus  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.llm.base import GenParams, Message  # noqa: E402
from pikelocal.llm.ceiling import Ceiling, measure, quantize, raw_model  # noqa: E402

BEGIN, END = "<!-- bench_llm_ceiling:begin -->", "<!-- bench_llm_ceiling:end -->"
SAMPLES = ROOT / "pikelocal" / "samples"


def sample_text() -> str:
    """The bundled tender and agreement samples (Chinese then English), twice: ≥ 1,024 tokens."""
    tender = (SAMPLES / "道路改造工程招标文件（示例）.md").read_text(encoding="utf-8")
    agreement = (SAMPLES / "supply-agreement-sample.md").read_text(encoding="utf-8")
    return (tender + "\n\n" + agreement + "\n\n") * 2


COMPETITORS = {
    # one single-threaded CPU-bound process
    "busy loop": "while True: pass",
    # one process with two busy threads (numpy's BLAS), like a second llama.cpp or a test run beside us
    "2-thread BLAS": "import numpy as np\na = np.random.rand(700, 700)\nwhile True: a @ a",
}


@contextmanager
def competing(kind: str = "busy loop", settle_s: float = 0.5) -> Iterator[None]:
    """One competing process of ``kind`` running for the length of the block."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
    busy = subprocess.Popen([sys.executable, "-c", COMPETITORS[kind]], env=env)
    try:
        time.sleep(settle_s)
        yield
    finally:
        busy.kill()
        busy.wait()


def backend_under_contention(path: Path, threads: int) -> list[str]:
    """One constrained call through our backend, quiet and contended, adaptive and fixed thread counts."""
    from pikelocal.llm.llama_cpp import LlamaCppLLM
    from pikelocal.prompts.atomize import atomize_prompt

    prompt = atomize_prompt(4)
    tender = (SAMPLES / "道路改造工程招标文件（示例）.md").read_text(encoding="utf-8")
    fields = {"max_q": 4, "title": "道路改造工程招标文件（示例）", "section": "—", "context": "", "text": tender[:700]}
    messages = prompt.messages("zh", fields)
    params = replace(prompt.params(), max_tokens=120)
    rows = []
    for adapt in (True, False):
        llm = LlamaCppLLM(path, n_ctx=2048, n_threads=threads, adapt_threads=adapt)
        try:
            llm.raw.reset()  # the whole prompt runs each time
            quiet = llm.complete(messages, params)
            for kind in COMPETITORS:
                llm.raw.reset()
                with competing(kind, settle_s=1.0):
                    c = llm.complete(messages, params)
                label = f"adaptive (up to {threads})" if adapt else f"fixed {threads}"
                rows.append(
                    f"| {label} | {kind} | {quiet.seconds:.1f} | {c.seconds:.1f} | {c.seconds / quiet.seconds:.1f}× |"
                    f" {quiet.completion_tokens} / {c.completion_tokens} |"
                )
                print(rows[-1], flush=True)
        finally:
            llm.close()
    return rows


def batched_under_contention(path: Path, threads: int, width: int) -> list[str]:
    """``width`` atomize calls at once on the batch engine (adaptive threads), quiet and beside each competitor.

    Each call's wall time is compared with the same call's quiet time, since the issue's bound is per call."""
    from pikelocal.llm.llama_cpp import LlamaCppLLM
    from pikelocal.llm.parallel import complete_many
    from pikelocal.prompts.atomize import atomize_prompt

    prompt = atomize_prompt(4)
    tender = (SAMPLES / "道路改造工程招标文件（示例）.md").read_text(encoding="utf-8")
    params = replace(prompt.params(), max_tokens=120)
    texts = [tender[i * 700 : (i + 1) * 700] for i in range(width)]

    def requests(run: int) -> list[tuple[list[Message], GenParams]]:
        """The same chunks under a section name of their own per run: the shared instruction prefix stays
        cached between runs (as in enrichment), the chunks are read again."""
        fields = {"max_q": 4, "title": "道路改造工程招标文件（示例）", "context": ""}
        return [(prompt.messages("zh", {**fields, "section": f"第{run}节", "text": t}), params) for t in texts]

    rows = []
    llm = LlamaCppLLM(path, n_ctx=4096, n_threads=threads, batch_width=width)
    try:

        def timed(run: int) -> tuple[float, list[float], int]:
            starts = time.perf_counter()
            walls: dict[int, float] = {}

            def finished(i: int, _c: object) -> None:
                walls[i] = time.perf_counter() - starts

            done = complete_many(llm, requests(run), on_done=finished)
            return (
                time.perf_counter() - starts,
                [walls[i] for i in range(width)],
                sum(c.completion_tokens for c in done),
            )

        llm.complete(*requests(0)[0])  # warm the engine (its context and the shared instruction prefix)
        quiet_total, quiet_calls, quiet_out = timed(1)
        for run, kind in enumerate(COMPETITORS, start=2):
            with competing(kind, settle_s=1.0):
                busy_total, busy_calls, busy_out = timed(run)
            worst = max(b / q for b, q in zip(busy_calls, quiet_calls, strict=True))
            rows.append(
                f"| batch engine, width {width}, adaptive (up to {threads}) | {kind} | {quiet_total:.1f} | "
                f"{busy_total:.1f} | {busy_total / quiet_total:.1f}× | {worst:.1f}× | {quiet_out} / {busy_out} |"
            )
            print(rows[-1], flush=True)
    finally:
        llm.close()
    return rows


def row(name: str, c: Ceiling, widths: Sequence[int] = (1, 2, 4, 8)) -> str:
    gens = " | ".join(f"{c.generation_tps.get(w, 0):.1f}" for w in widths)
    return f"| {name} | {c.threads} | {c.prompt_tps:.1f} | {gens} |"


def width_header(widths: Sequence[int]) -> list[str]:
    """The main table's header for the widths measured (``--widths``); 1/2/4/8 unless asked otherwise."""
    names = [
        "gen 1 seq" if w == 1 else f"gen {w} seqs (aggregate)" if i == 1 else f"gen {w}" for i, w in enumerate(widths)
    ]
    return [
        "| model | threads | prompt tok/s | " + " | ".join(names) + " |",
        "|---|---|---|" + "---|" * len(widths),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", default="default")
    parser.add_argument("--threads", type=int, default=available_cpus())
    parser.add_argument("--quant", default="Q4_0,Q8_0", help="comma-separated; empty for none")
    parser.add_argument("--no-contention", action="store_true")
    parser.add_argument("--steps", type=int, default=48, help="generated tokens per sequence")
    parser.add_argument("--gpu-layers", type=int, default=0, help="layers offloaded (-1: all; a GPU build)")
    parser.add_argument("--widths", default="1,2,4,8", help="batched sequence counts to time (up to 16)")
    parser.add_argument("--batch-width", type=int, default=4, help="width of the batch engine under contention")
    parser.add_argument(
        "--batched-contention-only",
        action="store_true",
        help="only the batch engine under contention (its own section of --out)",
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    path = resolve_gguf(args.model)
    if args.batched_contention_only:
        return batched_contention_section(path, args)
    text = sample_text()
    figures: dict[str, object] = {"model": path.name, "threads": args.threads, "cpu": cpu_summary()}

    widths = tuple(int(w) for w in args.widths.split(","))
    gpu = {"gpu_layers": args.gpu_layers}
    figures["gpu_layers"] = args.gpu_layers
    with raw_model(path, threads=args.threads, n_seq_max=max(widths), **gpu) as m:
        tokens = m.tokenize(text)[:512]
        base = measure(m, text, widths=widths, steps=args.steps)
        reference = m.score(tokens)
        print(row(path.name, base, widths), flush=True)
        print("generation tok/s by width:", {w: round(t, 1) for w, t in base.generation_tps.items()}, flush=True)
    with raw_model(path, threads=args.threads, flash_attn=False, **gpu) as m:
        no_fa = m.prompt_rate(tokens)
    print(f"flash attention off: prompt {no_fa:.1f} tok/s", flush=True)
    figures.update(
        prompt_tps=base.prompt_tps,
        generation_tps=base.generation_tps,
        best_width=base.best_width(),
        prompt_tps_no_flash_attn=no_fa,
    )

    quant_rows = []
    cache = ROOT / "build" / "cache" / "quant"
    cache.mkdir(parents=True, exist_ok=True)
    for ftype in [q for q in args.quant.split(",") if q]:
        target = cache / f"{path.stem}.{ftype.lower()}.gguf"
        t0 = time.perf_counter()
        if not target.exists():
            quantize(path, target, ftype, args.threads)
        took = time.perf_counter() - t0
        with raw_model(target, threads=args.threads, **gpu) as m:
            c = measure(m, text, widths=(1, 2), steps=args.steps)
            s = m.score(tokens)
        agree = float(np.mean(s.top1 == reference.top1))
        size = target.stat().st_size / 2**20
        quant_rows.append(
            f"| {ftype} | {size:.0f} MiB | {c.prompt_tps:.1f} | {c.generation_tps[1]:.1f} | "
            f"{c.generation_tps[2]:.1f} | {s.perplexity:.2f} | {agree:.1%} | {took:.0f} s |"
        )
        print(quant_rows[-1], flush=True)

    contention_rows = []
    if not args.no_contention:
        for threads in sorted({args.threads, 1}, reverse=True):
            # one repetition and 16 tokens: two threads on a contended core can run 50x slower
            with raw_model(path, threads=threads) as m:
                quiet_p = m.prompt_rate(tokens[:256], reps=1)
                quiet_g = m.generation_rate([tokens[:32]], 16)
                with competing():
                    busy_p = m.prompt_rate(tokens[:256], reps=1)
                    busy_g = m.generation_rate([tokens[:32]], 16)
            contention_rows.append(
                f"| {threads} | {quiet_p:.1f} | {busy_p:.1f} ({quiet_p / busy_p:.1f}× slower) | "
                f"{quiet_g:.1f} | {busy_g:.1f} ({quiet_g / busy_g:.1f}× slower) |"
            )
            print(contention_rows[-1], flush=True)

    backend_rows = []
    if not args.no_contention:
        backend_rows = backend_under_contention(path, args.threads)

    if args.json:
        args.json.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
    if args.out:
        cmd = "python build/bench/bench_llm_ceiling.py --out docs/BENCHMARKS.md"
        section = "\n".join(
            [
                BEGIN,
                "## The LLM ceiling on this machine",
                "",
                f"`{cmd}` (`make bench`) on {platform.machine()}, {dt.date.today()}: {cpu_summary()}, "
                f"{available_cpus()} cores usable; llama.cpp's batch API, greedy, no sampler chain, no grammar, "
                f"model `{path.name}`, flash attention on, {args.steps} generated tokens per sequence, prompt = "
                "512 tokens of the bundled samples in one batch.",
                "",
                *width_header(widths),
                row(path.name, base, widths),
                "",
                f"Flash attention off: prompt {no_fa:.1f} tok/s. Batch width chosen by the rule of "
                f"`Ceiling.best_width` (narrowest width within 5 % of the best, and only when it gains ≥ 10 % over "
                f"one sequence): **{base.best_width()}**.",
                "",
                "Requantized by `llama_model_quantize` from the Q4_K_M file (so Q8_0 cannot be better than the "
                "Q4_K_M it came from; it shows the speed of the Q8_0 kernels). Quality check: perplexity of the "
                f"same 512 tokens (Q4_K_M: **{reference.perplexity:.2f}**) and the share of positions whose top "
                "token equals Q4_K_M's:",
                "",
                "| type | size | prompt tok/s | gen 1 seq | gen 2 seqs | perplexity | top-1 = Q4_K_M | quantize time |",
                "|---|---|---|---|---|---|---|---|",
                *quant_rows,
                "",
                "Thread settings under one competing CPU-bound process (a Python busy loop); prompt = 256 tokens,"
                " generation = 16 tokens of one sequence, one repetition each:",
                "",
                "| threads | prompt quiet | prompt contended | gen quiet | gen contended |",
                "|---|---|---|---|---|",
                *contention_rows,
                "",
                "pikelocal's backend (`LlamaCppLLM.complete`, one atomize call on the bundled tender sample: JSON"
                " schema, ~400 prompt tokens, up to 120 generated), quiet and beside one competing process, with the"
                " thread count following the load (`llm.adapt_threads`, the default) and fixed. The token counts"
                " may differ: a different thread count sums in another order, and a near tie can flip:",
                "",
                "| threads | competitor | quiet s | contended s | contended / quiet | output tokens (quiet / busy) |",
                "|---|---|---|---|---|---|",
                *backend_rows,
                END,
            ]
        )
        write_section(args.out, BEGIN, END, section)
    return 0


BATCHED_BEGIN = "<!-- bench_llm_contention_batched:begin -->"
BATCHED_END = "<!-- bench_llm_contention_batched:end -->"


def batched_contention_section(path: Path, args: argparse.Namespace) -> int:
    rows = batched_under_contention(path, args.threads, args.batch_width)
    if args.out:
        cmd = (
            "python build/bench/bench_llm_ceiling.py --batched-contention-only "
            f"--batch-width {args.batch_width} --out docs/BENCHMARKS.md"
        )
        section = "\n".join(
            [
                BATCHED_BEGIN,
                "## The batch engine beside one competing process",
                "",
                f"`{cmd}` on {platform.machine()}, {dt.date.today()}: {cpu_summary()}, {available_cpus()} cores"
                f" usable; model `{path.name}`. {args.batch_width} atomize calls at once (JSON schema, 700 characters"
                " of the bundled tender each, up to 120 generated tokens), the shared instruction prefix cached;"
                " thread count following the load (`llm.adapt_threads`, the default). 'worst call': the largest"
                " ratio of one call's contended wall time to the same call's quiet wall time.",
                "",
                "| path | competitor | quiet s (all calls) | contended s | contended / quiet | worst call |"
                " output tokens (quiet / busy) |",
                "|---|---|---|---|---|---|---|",
                *rows,
                BATCHED_END,
            ]
        )
        write_section(args.out, BATCHED_BEGIN, BATCHED_END, section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
