"""The about-check's thresholds against real review runs: each KB's checklist asked again with its model replies
replayed from the KB's completion cache (no model runs when the prompts are unchanged), under each pair of
thresholds, and scored against its gold sheet.

    .venv/bin/python build/bench/calibrate_review.py --run KB:CHECKLIST:GOLD [--run …] [--held-out KB_STEM …]
        [--about 0.40,0.45,0.50] [--to-check 0.30,0.35] [--words-only]

For each setting it prints, per KB and summed over the rule-writing and the held-out KBs: items right, not-stated
items left not stated, rows to check (right), and the checks' two error rates (right drafts removed; inventions kept,
of the drafts that gave a value the gold does not accept). ``--words-only`` adds the check as it was before the
concept groups and the encoder's about-check (no concepts in the checks, thresholds out of reach) on the same
replies: the search still expands its queries, so the prompts and replies are the run's. The KBs' stored rows are
replaced by each run; use copies.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal import api  # noqa: E402
from pikelocal.config import load_settings  # noqa: E402
from pikelocal.eval.review_score import ReviewScore, load_gold, score  # noqa: E402
from pikelocal.query.retrieve import search as search_module  # noqa: E402
from pikelocal.query.verify import about  # noqa: E402
from pikelocal.text import concepts  # noqa: E402


class _SearchConcepts:
    """What the search sees of the concept groups in the words-only variant: the built-in ones, so its queries
    (and the prompts, and the cached replies) stay those of the run; only the checks lose the groups."""

    @staticmethod
    def active() -> concepts.ConceptGroups:
        return concepts.builtin_groups()


@dataclass(frozen=True)
class Run:
    kb: Path
    checklist: str
    gold: Path


def replay(run: Run, overrides: dict[str, object]) -> ReviewScore:
    settings = load_settings(overrides=overrides)
    with api.open_kb(run.kb, settings) as kb:
        report = kb.review(api.ReviewRequest(run.checklist, fresh=True))
    return score(report.rows, load_gold(run.gold))


def line(name: str, scores: Sequence[ReviewScore]) -> str:
    right = sum(s.answerable_right for s in scores)
    stated = sum(s.answerable for s in scores)
    ns_right = sum(s.not_stated_right for s in scores)
    ns = sum(s.not_stated for s in scores)
    to_check = sum(s.to_check for s in scores)
    tc_right = sum(s.to_check_right for s in scores)
    removed = sum(len(s.right_drafts_removed) for s in scores)
    drafts = sum(s.right_drafts for s in scores)
    kept = sum(len(s.inventions_kept) for s in scores)
    invented = sum(s.inventions_drafted for s in scores)
    misread = sum(len(s.wrong_drafts_kept) for s in scores)
    wrong = sum(s.wrong_drafts for s in scores)
    return (
        f"| {name} | {right}/{stated} | {ns_right}/{ns} | {tc_right}/{to_check} | {removed}/{drafts} "
        f"| {kept}/{invented} | {misread}/{wrong} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--run", action="append", required=True, metavar="KB:CHECKLIST:GOLD")
    ap.add_argument("--held-out", action="append", default=[], metavar="KB_STEM")
    ap.add_argument("--about", default="0.40,0.45,0.50")
    ap.add_argument("--to-check", default="0.30,0.35")
    ap.add_argument("--words-only", action="store_true")
    args = ap.parse_args(argv)
    runs = [Run(Path(k), c, Path(g)) for k, c, g in (r.split(":") for r in args.run)]
    grid = [(float(a), float(t)) for a, t in itertools.product(args.about.split(","), args.to_check.split(","))]
    print("| setting · KB | items right | not stated | to check right | right drafts removed | inventions kept "
          "| misreadings kept |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    variants: list[tuple[str, dict[str, object], float, float]] = [
        (f"about {a}, to check {t}", {}, a, t) for a, t in grid if t < a
    ]
    if args.words_only:
        variants.insert(0, ("words only", {"answer.concepts": "none"}, 9.0, 9.0))
    for name, overrides, a, t in variants:
        about.ABOUT_COSINE, about.TO_CHECK_COSINE = a, t
        search_module.concepts = _SearchConcepts if overrides else concepts  # type: ignore[assignment]
        by_kb = {run.kb.stem: replay(run, overrides) for run in runs}
        for stem, s in by_kb.items():
            print(line(f"{name} · {stem}" + (" (held out)" if stem in args.held_out else ""), [s]))
        dev = [s for k, s in by_kb.items() if k not in args.held_out]
        held = [s for k, s in by_kb.items() if k in args.held_out]
        print(line(f"**{name} · rule-writing**", dev))
        if held:
            print(line(f"**{name} · held out**", held))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
