"""Documents side by side measured on real documents: a checklist run once per document of a KB (the default: the
shared Taiwanese tender KB, copied, with the contract of the same procurement added), its wall time and the LLM
calls it made (completions added to the KB's cache), then the same run again (nothing should be asked).

    nice -n 15 python build/bench/bench_side_by_side.py [--kb KB] [--add FILE ...] [--work DIR]
        [--checklist tender-zh] [--out docs/BENCHMARKS.md] [--results docs/results.json]

The source KB is copied into --work and never written; a copy already there is reused, so a run stopped midway
resumes (the rows it stored are kept; the section then says how many were kept rather than asked).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402

EVAL = Path.home() / ".cache" / "pikelocal-eval"
BEGIN, END = "<!-- bench_side_by_side:begin -->", "<!-- bench_side_by_side:end -->"


def completions(kb: Path) -> int:
    """The LLM completions the KB's cache holds: each call the model answered (a cached one is not a call)."""
    import apsw

    conn = apsw.Connection(f"file:{kb}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        return int(next(iter(conn.execute("SELECT count(*) FROM llm_cache")))[0])
    finally:
        conn.close()


def timed_run(kb: Path, checklist: str) -> tuple[api.SideBySide, float, int]:
    before = completions(kb)
    t0 = time.perf_counter()
    with api.open_kb(kb, api.load_settings()) as knowledge_base:
        table = knowledge_base.side_by_side(api.SideBySideRequest(checklist))
    return table, time.perf_counter() - t0, completions(kb) - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=EVAL / "review" / "tw-tender.kb")
    parser.add_argument(
        "--add", type=Path, nargs="*", default=[ROOT / "tests/data/review/tw-contract-ntpc-dispatch.txt"]
    )
    parser.add_argument("--work", type=Path, default=EVAL / "side")
    parser.add_argument("--checklist", default="tender-zh")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    parser.add_argument("--results", type=Path, default=ROOT / "docs" / "results.json")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    kb = args.work / args.kb.name
    if not kb.exists():
        shutil.copy2(args.kb, kb)  # the source KB is never opened for writing
    if args.add:
        with api.open_kb(kb, api.load_settings()) as knowledge_base:
            knowledge_base.add(args.add)
    first, seconds, calls = timed_run(kb, args.checklist)
    again, seconds_again, calls_again = timed_run(kb, args.checklist)
    source = f"a copy of `{args.kb.name}`" + (f" with {', '.join(p.name for p in args.add)} added" if args.add else "")
    lines = report(source, first, seconds, calls, again, seconds_again, calls_again)
    print("\n".join(lines))
    write_section(args.out, BEGIN, END, "\n".join([BEGIN, *lines, END]), topic="reviewing")
    cells = len(first.rows) * len(first.documents)
    record_result(
        args.results, benchmark="review_side_by_side", dataset="+".join([args.kb.stem, *(p.stem for p in args.add)]),
        mode="per-document",
        n=cells, metrics={"seconds": seconds, "llm_calls": calls, "asked": first.asked, "kept": first.kept,
                          "rerun_seconds": seconds_again, "rerun_llm_calls": calls_again},
        command=command(), held_out=False,
    )  # fmt: skip


def command() -> str:
    """This run's command line, as the section shows it (the home folder as ~)."""
    args = " ".join(sys.argv[1:]).replace(str(Path.home()), "~")
    return f"nice -n 15 python build/bench/bench_side_by_side.py {args}".rstrip()


def report(
    source: str,
    first: api.SideBySide,
    seconds: float,
    calls: int,
    again: api.SideBySide,
    seconds_again: float,
    calls_again: int,
) -> list[str]:
    docs = ", ".join(d.heading for d in first.documents)
    agree = {a: sum(r.agreement == a for r in first.rows) for a in api.AGREEMENTS}
    return [
        "## Documents side by side: a checklist per document",
        "",
        f"`pikelocal review KB --checklist {first.checklist.name} --per-document` on {source}"
        f" ({len(first.documents)} document{'s' if len(first.documents) != 1 else ''}: {docs}); each document"
        " answered from its own chunks (the search filtered inside each ranking), its rows stored under the document."
        " LLM calls: completions added to the KB's cache (an answer the cache already held, from the whole-KB review"
        " of the same chunks, is not a call). Measured on 2 cores shared with other work under `nice -n 15`: the"
        " seconds are an upper bound.",
        "",
        f"Command: `{command()}`",
        "",
        "| run | item × document cells | asked | kept | LLM calls | wall (s) |",
        "|---|---|---|---|---|---|",
        f"| first | {len(first.rows) * len(first.documents)} | {first.asked} | {first.kept} | {calls} |"
        f" {seconds:.0f} |",
        f"| again | {len(again.rows) * len(again.documents)} | {again.asked} | {again.kept} | {calls_again} |"
        f" {seconds_again:.1f} |",
        "",
        f"Items whose found values agree across the documents: {agree['same']}; differ: {agree['differs']};"
        f" undecided (fewer than two documents state them): {agree['']}.",
    ]


if __name__ == "__main__":
    main()
