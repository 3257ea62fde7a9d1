"""The conflict check alone, scored against the review gold sheets: for every valued item of each sheet, the gold
answer (or "not stated") is set against every statement of the item in the document, as the review sets a row
(``review/runner.cross_checked``, with the KB encoder's meaning filter), and a row shown conflicting is scored
against the gold's conflicts. No LLM.

    .venv/bin/python build/bench/bench_conflicts.py [--kbs DIR] [--sheet NAME …] [--held-out NAME …]

The sheets are the tender sheets of ``build/bench/bench_readers.py`` and the two contracts' (the long supply
agreement, the Taiwanese contract), each under its checklist. The KBs are bench_readers' (``DIR/NAME.kb``, ingested
with the hashing encoder when not there): the statements are read from the text, and the meaning filter encodes the
sentences with the bundled encoder on the fly. An item the system reads without the model is read so
(``review/runner.answer_item``); for the others the row is the gold's own, its value and its quote, as a right draft
makes it, so what this counts is the check's errors with a right answer in hand (in a review, a wrong answer also
meets the statements that state the right one, and is rightly shown conflicting). Prints per sheet the valued items
judged, the false conflicts (shown where the gold holds none, with the values set against the gold's), and the
gold's conflicts caught; ``--json`` writes every row shown conflicting."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from bench_readers import DEFAULT_KBS, _ask, _Asked, sheets  # noqa: E402

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.domain.review import ChecklistItem, Located, ReviewQuote, ReviewRow  # noqa: E402
from pikelocal.embed.base import Encoder  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.eval.review_score import GoldItem, load_gold  # noqa: E402
from pikelocal.query.verify.about import Meaning  # noqa: E402
from pikelocal.review.checklist import load_checklist  # noqa: E402
from pikelocal.review.conflicts import VALUED, Corpus  # noqa: E402
from pikelocal.review.runner import answer_item, cross_checked  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from pikelocal.text.values import normalise  # noqa: E402

NOWHERE = Located(0, "gold", None, None, None)
REVIEW_DATA = ROOT / "tests" / "data" / "review"
# The contracts' sheets, each with its document and checklist (the tender sheets are bench_readers'), and the script
# the items are asked in.
CONTRACTS = {
    "contract-en": (REVIEW_DATA / "supply-agreement-long.md", REVIEW_DATA / "contract-en-gold.jsonl", "contract-en"),
    "tw-contract-ntpc-dispatch": (
        REVIEW_DATA / "tw-contract-ntpc-dispatch.txt", REVIEW_DATA / "tw-contract-ntpc-dispatch-gold.jsonl",
        "contract-zh",
    ),
}  # fmt: skip


class Shown(NamedTuple):
    """A row the check showed conflicting: its sheet, item, the gold's value and the values set against it."""

    sheet: str
    item: str
    gold: str
    values: tuple[str, ...]
    sentences: tuple[str, ...]
    expected: bool  # the gold holds a conflict here


def every_sheet() -> dict[str, tuple[Path, Path, str]]:
    """Every gold sheet: name → (document, gold, checklist)."""
    found = {name: (doc, gold, "tender-zh") for name, (doc, gold) in sheets().items()}
    return found | CONTRACTS


def gold_row(item: ChecklistItem, gold: GoldItem, question: str) -> ReviewRow:
    """The row a right answer makes: the gold value, quoted from the gold's sentence; "not stated" with none."""
    value = normalise(gold.value[0], item.kind) if gold.value else None
    if value is None:
        return ReviewRow("gold", item.id, item.label, item.section, item.kind, question, "not stated",
                         "not_stated", (), ())  # fmt: skip
    quote = ReviewQuote(gold.quote, NOWHERE, value)
    return ReviewRow("gold", item.id, item.label, item.section, item.kind, question, value.text, "found",
                     (value,), (quote,) if gold.quote else ())  # fmt: skip


def shown(
    name: str, kb: Path, document: Path, gold_path: Path, checklist_name: str, encoder: Encoder | None
) -> tuple[int, list[Shown]]:
    """The valued items judged on one sheet, and the rows the check shows conflicting."""
    if not kb.exists():
        with api.open_kb(kb, load_settings(environ={}), encoder=HashEncoder()) as knowledge_base:
            if knowledge_base.add([document]).ingest.failed:
                raise SystemExit(f"{document}: could not be ingested")
    with Store.open_existing(kb) as store:
        corpus = Corpus.read(store)
    checklist = load_checklist(checklist_name)
    items = {i.id: i for i in checklist.items}
    script = "en" if checklist_name.endswith("-en") else "hant" if document.name.startswith("tw-") else "hans"
    judged, out = 0, []
    for gold in load_gold(gold_path):
        item = items.get(gold.item)
        if item is None or item.kind not in VALUED:
            continue
        judged += 1
        question = item.questions.get(script) or next(iter(item.questions.values()))
        try:  # read by the system, as the review reads it (set against the statements, or not, as there)
            row = answer_item(checklist, item, _ask, script, corpus, encoder)  # type: ignore[arg-type]
        except _Asked:  # left to the model: its draft taken to be right
            meaning = Meaning(encoder, question, (item.label, *item.hints)) if encoder is not None else None
            row = cross_checked(gold_row(item, gold, question), item, corpus, meaning)
        if row.verdict == "conflicting":
            sentences = tuple(q.text for q in row.quotes if q.where is not NOWHERE)
            out.append(Shown(name, item.id, gold.shown(), tuple(v.normal for v in row.values), sentences,
                             gold.conflict))  # fmt: skip
    return judged, out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--kbs", type=Path, default=DEFAULT_KBS, help="where the KBs are kept")
    ap.add_argument("--sheet", action="append", default=[], help="only this sheet (repeatable)")
    ap.add_argument("--held-out", action="append", default=[], help="a held-out sheet, marked so (repeatable)")
    ap.add_argument("--skip", action="append", default=[], help="leave this sheet out, unread (repeatable)")
    ap.add_argument("--no-meaning", action="store_true", help="leave the encoder's meaning filter out")
    ap.add_argument("--json", type=Path, help="also write every row shown conflicting as JSON")
    args = ap.parse_args(argv)
    args.kbs.mkdir(parents=True, exist_ok=True)
    encoder = None
    if not args.no_meaning:
        from pikelocal.embed.factory import open_encoder

        encoder = open_encoder(load_settings(environ={}))
    print("| sheet | held out | valued items | false conflicts | conflicts caught |\n|---|---|---|---|---|")
    every: list[Shown] = []
    totals = [0, 0, 0, 0]
    for name, (document, gold_path, checklist) in every_sheet().items():
        if (args.sheet and name not in args.sheet) or name in args.skip:
            continue
        judged, found = shown(name, args.kbs / f"{name}.kb", document, gold_path, checklist, encoder)
        expected = sum(1 for g in load_gold(gold_path) if g.conflict)
        false = [s for s in found if not s.expected]
        caught = [s for s in found if s.expected]
        held = "yes" if name in args.held_out else "no"
        print(f"| {name} | {held} | {judged} | {len(false)} | {len(caught)}/{expected} |")
        totals = [totals[0] + judged, totals[1] + len(false), totals[2] + len(caught), totals[3] + expected]
        every += found
    print(f"| all | | {totals[0]} | {totals[1]} | {totals[2]}/{totals[3]} |")
    print("\n| sheet | item | gold | values shown | expected | sentences |\n|---|---|---|---|---|---|")
    for s in every:
        said = " / ".join(" ".join(t.split())[:80] for t in s.sentences)
        print(f"| {s.sheet} | {s.item} | {s.gold} | {' / '.join(s.values)} | {'yes' if s.expected else 'no'} | "
              f"{said} |")  # fmt: skip
    if args.json:
        records = [s._asdict() | {"held_out": s.sheet in args.held_out} for s in every]
        args.json.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
