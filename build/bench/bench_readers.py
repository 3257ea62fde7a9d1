"""The rows the system reads without the model, scored against the review gold sheets: a dry run of every reader of
``review/read_rows.py`` (ticked boxes, score tables, labelled fields, copies, the award rule, a term to an end
date, bonds not asked for, a fixed price, the procurement method, a clarification's deadline …) over every item of
each sheet, in the runner's own order, with no model.

    .venv/bin/python build/bench/bench_readers.py [--kbs DIR] [--sheet NAME …] [--held-out NAME …]

Each document of ``tests/data/review`` with a gold sheet is ingested once into ``DIR/NAME.kb`` (default
``~/.cache/pikelocal-eval/readers``) with the hashing test encoder: the readers read the documents' text, not their
vectors, so no model loads. An item the readers leave to the model is counted as asked. Without the KB's encoder, a
labelled figure is set against every other statement of it (the review also weighs them by meaning), so a row shown
conflicting here may be found in the review. Prints, per reader, the rows it read and how many were right, wrong
(another value, or a value where the gold states none), and to check; then every row read, with its sheet, item,
answer and the gold's value, the wrong ones first. Sheets named by ``--held-out`` are counted apart; ``--skip``
leaves a sheet unread (one kept from the rule writer's eyes while rules are written).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.domain.review import ReviewRow  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.eval.review_score import load_gold, score_item  # noqa: E402
from pikelocal.review.checklist import load_checklist  # noqa: E402
from pikelocal.review.conflicts import Corpus  # noqa: E402
from pikelocal.review.runner import answer_item  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

REVIEW_DATA = ROOT / "tests" / "data" / "review"
SHARED_TENDER = (
    ROOT.parent / "shared" / "data" / "pdfs" / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
)
DEFAULT_KBS = Path.home() / ".cache" / "pikelocal-eval" / "readers"


class _Asked(Exception):
    """The readers left the item to the model."""


def _ask(*_args: object, **_kwargs: object) -> object:
    raise _Asked


def sheets() -> dict[str, tuple[Path, Path]]:
    """Every tender-zh gold sheet of ``tests/data/review`` with its document: name → (document, gold)."""
    found: dict[str, tuple[Path, Path]] = {}
    for gold in sorted(REVIEW_DATA.glob("*-gold.jsonl")):
        name = gold.name.removesuffix("-gold.jsonl")
        docs = [p for p in REVIEW_DATA.glob(f"{name}.*") if p.suffix in (".pdf", ".docx", ".txt", ".md")]
        if len(docs) == 1 and not name.startswith(("contract-", "tw-contract")):
            found[name] = (docs[0], gold)
    if SHARED_TENDER.is_file():  # the shared tender's sheet, where ../shared is beside the checkout
        found["tender-zh"] = (SHARED_TENDER, REVIEW_DATA / "tender-zh-gold.jsonl")
    return dict(sorted(found.items()))


def read_rows(kb: Path, document: Path) -> dict[str, ReviewRow]:
    """The rows the readers read on ``document`` (ingested into ``kb`` first when it is not there): item → row."""
    settings = load_settings(environ={})
    if not kb.exists():
        with api.open_kb(kb, settings, encoder=HashEncoder()) as knowledge_base:
            if knowledge_base.add([document]).ingest.failed:
                raise SystemExit(f"{document}: could not be ingested")
    checklist = load_checklist("tender-zh")
    with Store.open_existing(kb) as store:
        corpus = Corpus.read(store)
    script = "hant" if document.name.startswith("tw-") else "hans"
    rows: dict[str, ReviewRow] = {}
    for item in checklist.items:
        try:
            rows[item.id] = answer_item(checklist, item, _ask, script, corpus)  # type: ignore[arg-type]
        except _Asked:
            continue
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--kbs", type=Path, default=DEFAULT_KBS, help="where the KBs are kept")
    ap.add_argument("--sheet", action="append", default=[], help="only this sheet (repeatable)")
    ap.add_argument("--held-out", action="append", default=[], help="a held-out sheet, counted apart (repeatable)")
    ap.add_argument("--skip", action="append", default=[], help="leave this sheet out, unread (repeatable)")
    ap.add_argument("--json", type=Path, help="also write every row read as JSON: sheet, item, reader, outcome, answer")
    args = ap.parse_args(argv)
    args.kbs.mkdir(parents=True, exist_ok=True)
    tally: dict[tuple[str, bool], Counter[str]] = defaultdict(Counter)
    lines: list[tuple[int, str]] = []
    records: list[dict[str, object]] = []
    for name, (document, gold_path) in sheets().items():
        if (args.sheet and name not in args.sheet) or name in args.skip:
            continue
        held_out = name in args.held_out
        rows = read_rows(args.kbs / f"{name}.kb", document)
        for gold in load_gold(gold_path):
            row = rows.get(gold.item)
            if row is None:
                continue
            outcome = score_item(row, gold).outcome
            reader = str(row.extra.get("read", "?"))
            group = ("right" if outcome in ("right", "not_stated") else "to check" if outcome.startswith("to_check")
                     else "wrong")  # fmt: skip
            tally[(reader, held_out)][group] += 1
            expected = gold.value if gold.stated else "not stated"
            answer = " ".join(row.answer.split())[:70]
            mark = " (held out)" if held_out else ""
            records.append({"sheet": name, "item": gold.item, "reader": reader, "outcome": outcome,
                            "held_out": held_out, "answer": row.answer})  # fmt: skip
            lines.append(
                (group != "wrong", f"| {name}{mark} | {gold.item} | {reader} | {group} | {answer} | {expected} |")
            )
    print("| reader | held out | read | right | wrong | to check |\n|---|---|---|---|---|---|")
    for (reader, held_out), counts in sorted(tally.items()):
        read = sum(counts.values())
        print(f"| {reader} | {'yes' if held_out else 'no'} | {read} | {counts['right']} | {counts['wrong']} | "
              f"{counts['to check']} |")  # fmt: skip
    print("\n| sheet | item | reader | outcome | answer | gold |\n|---|---|---|---|---|---|")
    for _, line in sorted(lines, key=lambda x: x[0]):
        print(line)
    if args.json:
        args.json.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
