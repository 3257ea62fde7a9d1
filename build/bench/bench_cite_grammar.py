"""Does a grammar that forces ``[n]`` after every sentence pay on the CPU? Same prompt, free text vs the grammar.

The answering prompt over a tender text of our own (tests/data/tender_rfp_zh_hant.txt, two numbered sources),
three questions, each answered by the default GGUF in-process with and without ``cite_each_sentence_grammar``.
Reports seconds, output tokens and tokens/s per run, and the text, into docs/BENCHMARKS.md (section
``cite_grammar``). The KV cache is reset before each run, so every run reads the whole prompt.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.assets import resolve_gguf  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402

BEGIN, END = "<!-- cite_grammar:begin -->", "<!-- cite_grammar:end -->"
QUESTIONS = ("廠商簡報時間是多久？", "評分項目「執行計畫與預期成果」的配分是多少？", "本案押標金金額是多少？")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default="default")
    ap.add_argument("--max-tokens", type=int, default=96)
    ap.add_argument("--questions", type=int, default=len(QUESTIONS), help="the first N of the three questions")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()

    from pikelocal.llm.llama_cpp import LlamaCppLLM
    from pikelocal.prompts.answer import answer_messages, answer_params

    llm = LlamaCppLLM(resolve_gguf(args.model), n_ctx=4096)
    text = (ROOT / "tests" / "data" / "tender_rfp_zh_hant.txt").read_text(encoding="utf-8")
    half = text.index("肆、評選方式")
    sources = [(1, "需求說明書 › 壹–參", text[:half]), (2, "需求說明書 › 肆–陸", text[half:])]
    rows = []
    for question in QUESTIONS[: args.questions]:
        messages = answer_messages(question, "zh", sources, script="hant")
        for grammar in (False, True):
            llm.raw.reset()
            start = time.perf_counter()
            parts = []
            stream = llm.stream(messages, answer_params(args.max_tokens, len(sources), cite_grammar=grammar))
            try:
                while True:
                    parts.append(next(stream))
            except StopIteration as stop:
                done = stop.value
            seconds = time.perf_counter() - start
            out_tokens = done.completion_tokens if done is not None else len(parts)
            rows.append((question, grammar, seconds, done.prompt_tokens, out_tokens, "".join(parts)))
            print(f"{question} grammar={grammar}: {seconds:.1f} s, {out_tokens} tokens: {''.join(parts)!r}")
    lines = [
        BEGIN,
        "## Forcing [n] after every sentence with a grammar",
        "",
        f"`.venv/bin/python build/bench/bench_cite_grammar.py` on {cpu_summary()}, Python {platform.python_version()};"
        f" model {args.model}, at most {args.max_tokens} output tokens, KV cache reset before each run.",
        "",
        "| question | grammar | seconds | prompt tok | output tok | output tok per second of the whole call | text |",
        "|---|---|---|---|---|---|---|",
    ]
    for question, grammar, seconds, prompt, out_tokens, answer in rows:
        flat = " ".join(answer.split()).replace("|", "\\|")
        lines.append(
            f"| {question} | {'yes' if grammar else 'no'} | {seconds:.1f} | {prompt} | {out_tokens}"
            f" | {out_tokens / seconds:.2f} | {flat[:120]} |"
        )
    lines += ["", END]
    write_section(args.out, BEGIN, END, "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
