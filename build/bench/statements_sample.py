"""A seeded random sample of stored statements for judging by hand: is the value read right, and is the subject what
the value is of? Writes the sample as a Markdown table; the judgements (``--judged``: a JSON file of
``{"index": [value_ok, subject_ok, note]}``) are filled in and the precision counted when given.

    python build/bench/statements_sample.py [--documents rule-writing|held-out] [--n 100] [--seed 53] \
        [--judged build/statements_judged.json] [--out build/statements_sample.md] \
        [--carry OLD_SAMPLE.md OLD_JUDGED.json --carry-out NEW_JUDGED.json]

Two sets of documents. ``rule-writing`` (the default): the documents the statement reader's rules were written on —
the shared tender (../shared/data/pdfs/zh_tender/*.pdf, half the sample) and two of tests/data/review/
(tw-req-tourism-elearning.docx and supply-agreement-long.md, a quarter each). ``held-out``: the three held-out review
documents no rule was written on (tw-tender-ntpc-dispatch.pdf, tw-rfp-moea-warehouse.pdf,
tw-contract-ntpc-dispatch.txt), a third of the sample each (34, 33, 33 of 100), so that each document's own style
counts alike whatever its length. Each is ingested into a temporary KB with the hashing encoder (statements need no
model; their vectors are not judged here), and the sample is drawn from the stored statements.

``--carry``: a sample drawn the same way at an earlier commit and its judgements; a row of the new draw whose
statement is shown unchanged (document, page, line, value, normal, subject and heading as the table prints them)
keeps the earlier judgement, and ``--carry-out`` writes the new draw's judgements so far (the rows left empty are the
ones to judge by hand).
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


def rule_writing() -> list[tuple[Path, float]]:
    """The documents the statement reader's rules were written on, with their share of the sample."""
    return [
        (next((ROOT.parent / "shared" / "data" / "pdfs" / "zh_tender").glob("*.pdf")), 0.5),
        (REVIEW / "tw-req-tourism-elearning.docx", 0.25),
        (REVIEW / "supply-agreement-long.md", 0.25),
    ]


def held_out() -> list[tuple[Path, float]]:
    """The held-out review documents, a third of the sample each."""
    names = ("tw-tender-ntpc-dispatch.pdf", "tw-rfp-moea-warehouse.pdf", "tw-contract-ntpc-dispatch.txt")
    return [(REVIEW / name, 1 / 3) for name in names]


DOCUMENTS = {"rule-writing": rule_writing, "held-out": held_out}
OUT = {
    "rule-writing": ROOT / "build" / "statements_sample.md",
    "held-out": ROOT / "build" / "statements_sample_heldout.md",
}


def quotas(n: int, shares: list[float]) -> list[int]:
    """``n`` split by ``shares`` in whole rows (largest remainder, the earlier document first on a tie), so the
    quotas add up to ``n``: 100 in thirds is 34, 33, 33."""
    exact = [n * share for share in shares]
    counts = [int(x) for x in exact]
    order = sorted(range(len(shares)), key=lambda i: (-(exact[i] - counts[i]), i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    return counts


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


Key = tuple[str, ...]


def row_key(name: str, s: Statement) -> Key:
    """A row as the table shows the statement (the columns a judgement rests on, the sentence aside: it is cut)."""
    return (
        name[:12],
        str(s.page or ""),
        str(s.line_start),
        cell(s.value.text),
        cell(s.value.normal),
        cell(s.subject),
        cell(s.heading)[:30],
    )


def table_rows(sample: Path) -> dict[str, Key]:
    """The rows of an earlier sample's table by their number, as :func:`row_key` keys them."""
    rows: dict[str, Key] = {}
    for line in sample.read_text("utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("| # "):
            continue
        cells = [c.strip().replace("\x00", "|") for c in line.replace("\\|", "\x00")[1:-1].split("|")]
        if cells[0].isdigit():
            rows[cells[0]] = tuple(c.replace("|", "\\|") for c in cells[1:8])
    return rows


def carried(sample: Path, judged: Path) -> dict[Key, list[object]]:
    """An earlier sample's judgements by the row each was made on."""
    verdicts: dict[str, list[object]] = json.loads(judged.read_text("utf-8"))
    return {key: verdicts[number] for number, key in table_rows(sample).items() if number in verdicts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", choices=sorted(DOCUMENTS), default="rule-writing")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--judged", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--carry", type=Path, nargs=2, metavar=("SAMPLE_MD", "JUDGED_JSON"))
    parser.add_argument("--carry-out", type=Path)
    args = parser.parse_args()
    out: Path = args.out or OUT[args.documents]
    rng = random.Random(args.seed)
    sample: list[tuple[str, Statement]] = []
    totals: list[str] = []
    sources = DOCUMENTS[args.documents]()
    for (path, _), quota in zip(sources, quotas(args.n, [share for _, share in sources]), strict=True):
        found = stored(path)
        totals.append(f"{path.name}: {len(found)} statements")
        sample += [(path.name, s) for s in rng.sample(found, min(len(found), quota))]
    judged: dict[str, list[object]] = json.loads(args.judged.read_text("utf-8")) if args.judged else {}
    if args.carry:
        earlier = carried(*args.carry)
        keys = {str(i): row_key(name, s) for i, (name, s) in enumerate(sample, start=1)}
        kept = {number: earlier[key] for number, key in keys.items() if key in earlier}
        judged = {**kept, **judged}
        print(f"{len(kept)} of {len(sample)} rows unchanged, their judgements kept", file=sys.stderr)
        if args.carry_out:
            full = {str(i): judged.get(str(i), ["", "", ""]) for i in range(1, len(sample) + 1)}
            args.carry_out.write_text(json.dumps(full, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    flag = "" if args.documents == "rule-writing" else f" --documents {args.documents}"
    lines = [
        "# Statements: a hand-checked sample" + ("" if args.documents == "rule-writing" else f" ({args.documents})"),
        "",
        f"`python build/bench/statements_sample.py{flag} --n {args.n} --seed {args.seed}` at commit {_commit()}"
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
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
