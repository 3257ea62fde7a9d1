"""Asked in another region's words: one fact asked in the document's own words and again in the other vocabulary
(mainland words about a Taiwanese document, Taiwan's about a mainland one, and English), answered and searched.

    .venv/bin/python build/bench/bench_cross_vocab.py --kb tw1=KB --kb tw3=KB … [--held-out tw1 …] [--run]
        [--data tests/data/vocab/cross_vocab_qa.jsonl] [--label naive] [--section bench_cross_vocab]
        [--out docs/BENCHMARKS.md] [--json docs/results.json] [--dry-run]

Each ``--kb DOC=PATH`` names the KB holding that document alone (its questions say "this tender" and mean it). Per
document and variant it reports:

- answerable questions answered right, and unanswerable ones left not stated (the honesty set's scoring,
  ``eval/honesty.py``, on the checked answer and on the model's draft);
- reader failures: wrong or "not stated" with the gold fact in the sources sent;
- recall@5: the gold fact (letters and digits compared) in one of the first five chunks of a hybrid search.

With ``--run`` the questions are asked (resumable: one JSON line per answer under ~/.cache/pikelocal-eval/vocab/);
without, the stored answers are read. The gap the issue measures is per pair: the "own" variant against each other
variant over the same facts. Documents named by ``--held-out`` had no rule written on them and are reported apart
(``"held_out": true`` in results.json).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.requests import SearchRequest  # noqa: E402
from pikelocal.eval.honesty import load_honesty, read_answers, run_honesty  # noqa: E402
from pikelocal.eval.results_file import record_result  # noqa: E402
from pikelocal.kb.knowledge_base import open_kb  # noqa: E402
from pikelocal.query.verify.quotes import fold  # noqa: E402

CACHE = Path.home() / ".cache" / "pikelocal-eval" / "vocab"
RECALL_K = 5


@dataclass(frozen=True)
class Question:
    id: str
    pair: str
    doc: str
    variant: str
    answerable: bool
    fact: str
    raw: dict[str, Any]


def load(path: Path) -> list[Question]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            out.append(Question(r["id"], r["pair"], r["doc"], r["variant"], bool(r["answerable"]), r.get("fact", ""),
                                r))  # fmt: skip
    return out


def recall_at_k(kb: Path, questions: Sequence[Question]) -> dict[str, bool]:
    """Whether the gold fact stands in one of the first ``RECALL_K`` chunks of the question's hybrid search."""
    out: dict[str, bool] = {}
    with open_kb(kb, load_settings()) as knowledge_base:
        for q in questions:
            if not q.answerable or not q.fact:
                continue
            hits = knowledge_base.search(q.raw["question"], SearchRequest(k=RECALL_K))
            fact = fold(q.fact).text
            out[q.id] = any(fact in fold(h.chunk.text).text for h in hits)
    return out


def answers(doc: str, kb: Path, questions: Sequence[Question], run: bool) -> dict[str, dict[str, Any]]:
    """The answer rows of a document's questions (asked now with ``run``), by question id."""
    CACHE.mkdir(parents=True, exist_ok=True)
    results = CACHE / f"{doc}-{kb.stem}.jsonl"
    if run:
        subset = CACHE / f"{doc}.questions.jsonl"
        rows = [{**q.raw, "source_pdf": q.raw.get("source", "")} for q in questions]
        subset.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        load_honesty(subset)  # refuses a malformed question before any model loads
        run_honesty(load_settings(), subset, kb, results_file=results, on_result=lambda r: print(_line(r)))
    return {item_id: row for (item_id, _mode), row in read_answers(results).items()}


def _line(row: dict[str, Any]) -> str:
    verdict = "not stated" if row["not_stated"] else "right" if row["correct"] else "wrong"
    return f"  {row['item_id']:<28} {verdict:<10} {row['total_s']:5.1f} s  {str(row['answer'])[:60]}"


@dataclass
class Tally:
    answerable: int = 0
    right: int = 0
    draft_right: int = 0
    unanswerable: int = 0
    not_stated: int = 0
    reader_failures: int = 0
    recalled: int = 0
    searched: int = 0

    def add(self, q: Question, row: dict[str, Any] | None, recalled: bool | None) -> None:
        if recalled is not None:
            self.searched += 1
            self.recalled += recalled
        if row is None:
            return
        if q.answerable:
            self.answerable += 1
            self.right += bool(row["correct"])
            self.draft_right += bool(row["draft_correct"])
            self.reader_failures += bool(row.get("gold_sent")) and not row["correct"]
        else:
            self.unanswerable += 1
            self.not_stated += bool(row["not_stated"])

    def cells(self) -> list[str]:
        return [_rate(self.right, self.answerable), _rate(self.draft_right, self.answerable),
                _rate(self.not_stated, self.unanswerable), _rate(self.reader_failures, self.answerable),
                _rate(self.recalled, self.searched)]  # fmt: skip

    def metrics(self) -> dict[str, float]:
        out = {}
        if self.answerable:
            out |= {"answerable_accuracy": self.right / self.answerable, "draft_accuracy": self.draft_right /
                    self.answerable, "reader_failures": self.reader_failures / self.answerable}  # fmt: skip
        if self.unanswerable:
            out["not_stated"] = self.not_stated / self.unanswerable
        if self.searched:
            out[f"recall_at_{RECALL_K}"] = self.recalled / self.searched
        return out


def _rate(num: int, den: int) -> str:
    return f"{num / den:.0%} ({num}/{den})" if den else "–"


def report(
    questions: Sequence[Question], rows: dict[str, dict[str, Any]], recall: dict[str, bool], held_out: set[str]
) -> tuple[list[str], dict[tuple[str, str], Tally]]:
    tallies: dict[tuple[str, str], Tally] = {}
    for q in questions:
        for key in ((q.doc, q.variant), ("held out" if q.doc in held_out else "rule-writing", q.variant)):
            tallies.setdefault(key, Tally()).add(q, rows.get(q.id), recall.get(q.id))
    lines = ["| documents | variant | answerable right | drafts right | unanswerable → not stated | reader failures "
             f"| recall@{RECALL_K} |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    for (doc, variant), t in sorted(tallies.items(), key=lambda kv: (kv[0][0] in ("held out", "rule-writing"), kv[0])):
        name = f"{doc} (held out)" if doc in held_out else doc
        lines.append(f"| {name} | {variant} | " + " | ".join(t.cells()) + " |")
    return lines, tallies


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--kb", action="append", default=[], metavar="DOC=PATH", required=True)
    ap.add_argument("--held-out", action="append", default=[], metavar="DOC")
    ap.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "vocab" / "cross_vocab_qa.jsonl")
    ap.add_argument("--run", action="store_true", help="ask the questions now (loads the models)")
    ap.add_argument("--label", default="naive", help="what was run: results.json's mode")
    ap.add_argument("--section", default="bench_cross_vocab")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    ap.add_argument("--dry-run", action="store_true", help="print the section; write neither file")
    args = ap.parse_args(argv)
    kbs = {doc: Path(path) for doc, _, path in (s.partition("=") for s in args.kb)}
    questions = [q for q in load(args.data) if q.doc in kbs]
    held_out = set(args.held_out)
    rows: dict[str, dict[str, Any]] = {}
    recall: dict[str, bool] = {}
    for doc, kb in kbs.items():
        mine = [q for q in questions if q.doc == doc]
        recall |= recall_at_k(kb, mine)
        rows |= answers(doc, kb, mine, args.run)
    table, tallies = report(questions, rows, recall, held_out)
    command = "python build/bench/bench_cross_vocab.py " + " ".join(sys.argv[1:] if argv is None else argv)
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        "### Asked in another region's words: cross-vocabulary question pairs", "",
        f"_`{command}` on {when}; {cpu_summary()}; Python {platform.python_version()}._", "",
        f"{len({q.pair for q in questions})} facts, each asked in the document's own words and in the other "
        "vocabulary (mainland words about a Taiwanese document, Taiwan's about the mainland tender, and English); "
        f"{len(questions)} questions. Held out (no rule written on them): {', '.join(sorted(held_out)) or 'none'}.",
        "", *table,
    ]  # fmt: skip
    print("\n".join(body))
    if args.dry_run:
        return 0
    begin, end = f"<!-- {args.section}:begin -->", f"<!-- {args.section}:end -->"
    write_section(args.out, begin, end, "\n".join([begin, *body, end]))
    for (doc, variant), t in tallies.items():
        if doc in ("held out", "rule-writing"):
            continue
        n = t.answerable + t.unanswerable
        if n:
            record_result(args.json, benchmark="cross_vocab", dataset=f"{doc}:{variant}", mode=args.label, n=n,
                          metrics=t.metrics(), command=command, held_out=doc in held_out)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
