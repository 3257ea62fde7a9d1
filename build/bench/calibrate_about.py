"""Calibrating "is this sentence about the question?" on labelled pairs, without the LLM.

    .venv/bin/python build/bench/calibrate_about.py [--gold SHEET:CHECKLIST[:SCRIPT] …] [--encoder default] [--json OUT]

A pair is a checklist item's question and a sentence of the document, labelled *about* when the sentence is the
gold sheet's quote for that item and *not about* when it is the quote of another item of the same sheet (the hard
negatives: sentences of the same document, about something else, often holding a value of the same kind). For each
pair it computes what the checks decide on:

- ``lexical``: the share of the question's focus terms in the sentence, words only (the check before concepts);
- ``aligned``: the same share with the concept groups aligning the vocabularies (text/concepts.py);
- ``cosine``: the encoder's similarity between the question and the sentence;
- ``cosine_topic``: the same with the item's label and hints read with the question.

It prints, per sheet and overall, how many *about* pairs each rule keeps (a right answer it would let stand) and how
many *not about* pairs it accepts (an invention it would let through), at several thresholds. A sheet marked held out
(``--held-out SHEET``) is reported apart and never used to choose a threshold.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.domain.answers import Source  # noqa: E402
from pikelocal.domain.review import ChecklistScript  # noqa: E402
from pikelocal.query.verify.about import MAX_TEXT_CHARS, topical_query  # noqa: E402
from pikelocal.query.verify.support import FOCUS_SHARE, Question, focus_share, span_unit  # noqa: E402
from pikelocal.review.checklist import load_checklist, question_for  # noqa: E402
from pikelocal.text import concepts  # noqa: E402

THRESHOLDS = (0.30, 0.35, 0.40, 0.45, 0.50, 0.55)
SECTION = "about_pairs"


@dataclass(frozen=True)
class Pair:
    sheet: str
    item: str
    question: str
    topic: tuple[str, ...]
    sentence: str
    about: bool
    held_out: bool


def pairs_of(sheet: Path, checklist: str, script: ChecklistScript, held_out: bool) -> list[Pair]:
    cl = load_checklist(checklist)
    items = {i.id: i for i in cl.items}
    rows = [json.loads(line) for line in sheet.read_text(encoding="utf-8").splitlines() if line.strip()]
    quoted = [(r["item"], r["quote"]) for r in rows if r.get("quote") and r.get("value") is not None]
    out: list[Pair] = []
    for item_id, quote in quoted:
        item = items.get(item_id)
        if item is None:
            continue
        question = question_for(item, script)
        topic = (item.label, *item.hints)
        out.append(Pair(sheet.stem, item_id, question, topic, quote, True, held_out))
        for other_id, other in quoted:
            if other_id != item_id and other != quote:
                out.append(Pair(sheet.stem, item_id, question, topic, other, False, held_out))
    return out


def _source(text: str) -> Source:
    return Source(number=1, doc_id=1, path="doc.txt", title="", chunk_ids=(), page_start=None, page_end=None,
                  line_start=None, line_end=None, section=(), text=text)  # fmt: skip


def features(pairs: Sequence[Pair], encoder_name: str) -> list[dict[str, object]]:
    """Each pair's term shares and cosines; every distinct sentence and question is encoded once (the product's
    ``Meaning`` reads the same vectors: a question as a query, with the topic in brackets, a sentence as a
    passage)."""
    from pikelocal.config import load_settings
    from pikelocal.embed.factory import open_encoder  # the product's own loading, as a KB session does

    encoder = open_encoder(load_settings(overrides={"encoder.model": encoder_name}))
    sentences = list(dict.fromkeys(" ".join(p.sentence.split())[:MAX_TEXT_CHARS] for p in pairs))
    asked = list(dict.fromkeys(q for p in pairs for q in (p.question, _with_topic(p))))
    s_vec = dict(zip(sentences, encoder.encode(sentences, role="passage"), strict=True))
    q_vec = dict(zip(asked, encoder.encode(asked, role="query"), strict=True))
    out: list[dict[str, object]] = []
    for p in pairs:
        unit = span_unit(_source(p.sentence), 0, len(p.sentence), table_row=False)
        aligned = focus_share(Question.of(p.question), unit, frozenset())
        concepts.use_groups(concepts.ConceptGroups({}))  # words only: the check before the concept groups
        lexical = focus_share(Question.of(p.question), span_unit(_source(p.sentence), 0, len(p.sentence),
                                                                 table_row=False), frozenset())  # fmt: skip
        concepts.use_groups(None)
        sentence = s_vec[" ".join(p.sentence.split())[:MAX_TEXT_CHARS]]
        out.append({
            "sheet": p.sheet, "item": p.item, "about": p.about, "held_out": p.held_out,
            "lexical": lexical, "aligned": aligned,
            "cosine": float(sentence @ q_vec[p.question]), "cosine_topic": float(sentence @ q_vec[_with_topic(p)]),
            "question": p.question, "sentence": p.sentence[:120],
        })  # fmt: skip
    return out


def _with_topic(p: Pair) -> str:
    return topical_query(p.question, p.topic)


Row = dict[str, object]


def _num(row: Row, key: str) -> float:
    value = row[key]
    assert isinstance(value, float | int)
    return float(value)


def report(rows: Sequence[Row], thresholds: Sequence[float] = THRESHOLDS) -> str:
    """One table: each rule's about-pairs kept and not-about pairs accepted, on the rule-writing sheets, the
    held-out ones, and each sheet."""
    sheets = sorted({str(r["sheet"]) for r in rows}, key=lambda s: (any(r["held_out"] for r in rows if r["sheet"] ==
                    s), s))  # fmt: skip
    groups = {"rule-writing": [r for r in rows if not r["held_out"]], "held out": [r for r in rows if r["held_out"]]}
    groups |= {s + (" (held out)" if any(r["held_out"] for r in rows if r["sheet"] == s) else ""):
               [r for r in rows if r["sheet"] == s] for s in sheets}  # fmt: skip
    rules: list[tuple[str, Callable[[Row], bool]]] = [
        (f"words ≥ {FOCUS_SHARE}", lambda r: _num(r, "lexical") >= FOCUS_SHARE),
        (f"concepts ≥ {FOCUS_SHARE}", lambda r: _num(r, "aligned") >= FOCUS_SHARE),
    ]
    rules += [(f"concepts ≥ {FOCUS_SHARE} or cosine ≥ {t}",
               lambda r, t=t: _num(r, "aligned") >= FOCUS_SHARE or _num(r, "cosine_topic") >= t)
              for t in thresholds]  # fmt: skip
    lines = ["| rule | " + " | ".join(groups) + " |", "|---|" + "---|" * len(groups)]
    for name, test in rules:
        cells = []
        for group in groups.values():
            pos = [r for r in group if r["about"]]
            neg = [r for r in group if not r["about"]]
            kept, acc = sum(test(r) for r in pos), sum(test(r) for r in neg)
            cells.append(f"{kept / max(1, len(pos)):.0%} / {acc / max(1, len(neg)):.1%}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    sizes = ", ".join(f"{name}: {sum(bool(r['about']) for r in g)} about, {sum(not r['about'] for r in g)} not"
                      for name, g in groups.items())  # fmt: skip
    return "\n".join(lines) + f"\n\nPairs per group: {sizes}."


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--gold", action="append", default=[], metavar="SHEET:CHECKLIST[:SCRIPT]",
                    help="a gold sheet, its checklist and the questions' script (default hans)")  # fmt: skip
    ap.add_argument("--held-out", action="append", default=[], metavar="SHEET", help="a sheet's file stem")
    ap.add_argument("--encoder", default="default")
    ap.add_argument("--json", type=Path, help="write every pair's features here")
    ap.add_argument("--out", type=Path, help="write the section to the benchmark pages (docs/BENCHMARKS.md)")
    args = ap.parse_args(argv)
    gold = args.gold or [
        f"{ROOT}/tests/data/review/tender-zh-gold.jsonl:tender-zh:hans",
        f"{ROOT}/tests/data/review/tender-zh-gold.jsonl:tender-zh:hant",
        f"{ROOT}/tests/data/review/contract-en-gold.jsonl:contract-en:en",
    ]
    pairs: list[Pair] = []
    for spec in gold:
        path, checklist, *rest = spec.split(":")
        script: ChecklistScript = rest[0] if rest else "hans"  # type: ignore[assignment]
        sheet = Path(path)
        pairs += pairs_of(sheet, checklist, script, sheet.stem in args.held_out)
    rows = features(pairs, args.encoder)
    if args.json:
        args.json.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    table = report(rows)
    print(table)
    if args.out:
        command = "python build/bench/calibrate_about.py " + " ".join(
            a.replace(str(ROOT) + "/", "") for a in (sys.argv[1:] if argv is None else argv)
        )
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        body = [
            f"<!-- {SECTION}:begin -->",
            "### Checks that know what a sentence is about",
            "",
            f"_`{command}` on {when}; {cpu_summary()}; encoder {args.encoder}; no LLM._",
            "",
            "A pair is a checklist item's question and a sentence of its document: *about* when the sentence is the "
            "gold sheet's quote for the item, *not about* when it is another item's quote (a sentence of the same "
            "document, often holding a value of the same kind). Each cell: the share of *about* pairs the rule "
            "keeps / the share of *not about* pairs it accepts. *Words*: the check before the concept groups "
            "(shared words only); *concepts*: the same share with the vocabularies aligned; *cosine*: the "
            "encoder's similarity between the question with the item's label and hints and the sentence. The "
            "sentences here are bare (no section or label lines above them), so cosines are lower than the check "
            "sees; the review runs below calibrate on real drafts.",
            "",
            table,
            f"<!-- {SECTION}:end -->",
        ]
        write_section(args.out, body[0], body[-1], "\n".join(body))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
