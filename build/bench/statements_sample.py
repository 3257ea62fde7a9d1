"""A seeded random sample of stored statements for judging by hand: is the value read right, and is the subject what
the value is of? Writes the sample as a Markdown table; the judgements (``--judged``: a JSON file of
``{"index": [value_ok, subject_ok, note]}``) are filled in and the precision counted when given.

    python build/bench/statements_sample.py [--n 100] [--seed 53] [--judged build/statements_judged.json] \
        [--out build/statements_sample.md]

The documents: the shared tender (../shared/data/pdfs/zh_tender/*.pdf, half the sample) and two of
tests/data/review/ (tw-req-tourism-elearning.docx and supply-agreement-long.md, a quarter each); the held-out review
documents (tw-tender-ntpc-dispatch.pdf, tw-rfp-moea-warehouse.pdf, tw-contract-ntpc-dispatch.txt) are not read.
Each is ingested into a temporary KB with the hashing encoder (statements need no model; their vectors are not
judged here), and the sample is drawn from the stored statements.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.domain.statements import Statement  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.kb.options import ingest_options  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

REVIEW = ROOT / "tests" / "data" / "review"
SOURCES: list[tuple[Path, float]] = [
    (next((ROOT.parent / "shared" / "data" / "pdfs" / "zh_tender").glob("*.pdf")), 0.5),
    (REVIEW / "tw-req-tourism-elearning.docx", 0.25),
    (REVIEW / "supply-agreement-long.md", 0.25),
]


def stored(path: Path) -> list[Statement]:
    encoder = HashEncoder()
    with tempfile.TemporaryDirectory() as tmp:
        kb = Path(tmp) / "sample.kb"
        with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim) as store:
            Ingestor(store, encoder, ingest_options(load_settings(environ={}))).ingest_paths([path])
            [doc] = store.docs.documents()
            return store.statements.of_document(doc.id)


def _commit() -> str:
    """The checked-out commit the sample was drawn with (the statements depend on the code)."""
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--judged", type=Path)
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "statements_sample.md")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    sample: list[tuple[str, Statement]] = []
    totals: list[str] = []
    for path, share in SOURCES:
        found = stored(path)
        totals.append(f"{path.name}: {len(found)} statements")
        sample += [(path.name, s) for s in rng.sample(found, min(len(found), round(args.n * share)))]
    judged: dict[str, list[object]] = json.loads(args.judged.read_text("utf-8")) if args.judged else {}
    lines = [
        "# Statements: a hand-checked sample",
        "",
        f"`python build/bench/statements_sample.py --n {args.n} --seed {args.seed}` at commit {_commit()}"
        f" — {'; '.join(totals)}.",
        "",
        "Value: is the value read right (kind, number, unit, as the document means it)? Subject: is the subject what",
        "the value is of, read with the sentence? Where the subject is empty the statement's line shows the heading",
        "(`Statement.line`), so the heading is judged in its place.",
        "",
        "| # | doc | p. | line | value | normal | subject | heading | sentence | value ok | subject ok | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ok_value = ok_subject = ok_both = 0
    for i, (name, s) in enumerate(sample, start=1):
        value_ok, subject_ok, note = judged.get(str(i), ["", "", ""])
        ok_value += value_ok is True
        ok_subject += subject_ok is True
        ok_both += value_ok is True and subject_ok is True
        mark = {True: "✓", False: "✗", "": ""}
        lines.append(
            f"| {i} | {name[:12]} | {s.page or ''} | {s.line_start} | {cell(s.value.text)} | {cell(s.value.normal)}"
            f" | {cell(s.subject)} | {cell(s.heading)[:30]} | {cell(s.sentence)[:140]}"
            f" | {mark[value_ok]} | {mark[subject_ok]} | {cell(str(note))} |"  # type: ignore[index]
        )
    if judged:
        n = len(sample)
        lines += [
            "",
            f"Precision (value read right and subject right): **{ok_both}/{n} = {ok_both / n:.0%}**; value alone"
            f" {ok_value}/{n}, subject alone {ok_subject}/{n}.",
        ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
