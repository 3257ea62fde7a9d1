"""The headline results at the top of docs/BENCHMARKS.md (and the shipped defaults' rows in the README), and their
plots, from docs/results.json alone.

    .venv/bin/python build/bench/bench_headline.py [--json docs/results.json] [--out docs/BENCHMARKS.md]
        [--readme README.md] [--plots docs/plots | --no-plots] [--dry-run]

The table goes between ``<!-- headline:begin -->`` and ``<!-- headline:end -->``, right under the page's title
(moved back there if it stood elsewhere). It shows the latest record of each (benchmark, data set, mode): how
accurate (QA, honesty and checklist-review sets, the shipped defaults first: records marked ``"shipped": true``),
how fast an answer comes on 2 CPU cores and on a GPU ("not measured" where no record says), how fast documents are
ingested, the peak memory and the set-up time. The README gets the same block without the other modes' rows
(``--readme``; by default the README.md above the page's folder, when it has the markers). Each cell's figures
link to the section that measured them, in the topic file under docs/benchmarks/ that holds it: a record's
optional ``"section"`` (a marker name, ``<!-- NAME:begin -->``, or a heading's text), else the ``--section NAME``
of its command, else the benchmark's own section (``SECTIONS``). A record's optional ``"source"`` says where a
backfilled figure was copied from. Nothing here is measured: rerun the benchmark that writes a record to change a
figure. record_result writes a record anew, without these optional keys: mark a rerun of a shipped default
``"shipped": true`` again. The page's index of the topic files is made anew too (build/bench/sections.py).

The plots (SVG, with matplotlib, the ``bench`` extra) go to ``docs/plots/``: accuracy per data set and mode,
answer time against prompt tokens, ingest speed per format. The output depends only on results.json and the
headings of the benchmark pages (no dates, no random ids), so a rerun on the same records changes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "build" / "bench"))  # sections.py, also when a test loads this file by path

# anchors and slug are GitHub's anchors, used here through section_link and read by the tests from this module
from sections import PAGE, anchors, find_anchor, read_pages, section_link, slug, write_index  # noqa: E402, F401

BEGIN, END = "<!-- headline:begin -->", "<!-- headline:end -->"
KEY = ("benchmark", "dataset", "mode")

# A benchmark's own section (marker name), for records that name none.
SECTIONS = {
    "honesty": "honesty",
    "qa": "quote_then_answer_sets",
    "quote_budget": "compress_budget_450",
    "review": "bench_review_tender_zh",
    "review_views": "bench_review_views",
    "review_side_by_side": "bench_side_by_side",
    "bid_check": "bench_review_bid_check",
    "hop_chains": "hop_chains",
    "cross_vocab": "bench_cross_vocab",
    "statements_cost": "statements_cost",
    "typed_honesty": "typed_honesty",
    "ingest": "bench_ingest",
    "ingest_format": "bench_formats",
    "setup": "export_stages",
    "demo": "export_stages",
}
ACCURACY_BENCHMARKS = ("qa", "honesty", "review")
SPEED_BENCHMARKS = ("ingest", "demo", "setup")

# metric name -> (label before the figure, format of the figure, unit after it)
FIGURES: dict[str, tuple[str, str, str]] = {
    "accuracy": ("accuracy ", "{:.3f}", ""),
    "f1": ("F1 ", "{:.3f}", ""),
    "em": ("EM ", "{:.3f}", ""),
    "answerable_accuracy": ("answerable right ", "{:.3f}", ""),
    "item_accuracy": ("items right ", "{:.3f}", ""),
    "not_stated": ("", "{:.3f}", ""),
    "not_stated_accuracy": ("", "{:.3f}", ""),
    "median_total_s": ("", "{:.1f}", " s"),
    "median_prompt_tokens": ("", "{:,.0f}", " prompt tokens"),
    "wall_s": ("", "{:,.0f}", " s"),
    "pages_per_s": ("", "{:.2f}", " pages/s"),
    "to_searchable_s": ("searchable in ", "{:,.0f}", " s"),
    "to_complete_s": ("complete in ", "{:,.0f}", " s"),
    "total_s": ("total ", "{:,.1f}", " s"),
    "stage_s_per_1k_tokens": ("", "{:.2f}", " s per 1k tokens"),
    "whole_add_s": ("whole add ", "{:.1f}", " s"),
    "peak_rss_mb": ("", "{:,.0f}", " MB"),
    "peak_rss_gb": ("", "{:.1f}", " GB"),
    "setup_min": ("", "{:.1f}", " min"),
    "disk_left_gb": ("", "{:.1f}", " GB left on disk"),
}


# --- records ------------------------------------------------------------------------------------------------------


def read_records(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise SystemExit(f"{path}: a JSON list of records is expected")
    return [r for r in data if isinstance(r, dict) and isinstance(r.get("metrics"), dict)]


def latest(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The newest record of each (benchmark, dataset, mode) (by date; of equal dates the later in the file), in a
    fixed order: by benchmark, dataset, then the shipped default first, then mode."""
    newest: dict[tuple[str, ...], tuple[str, int, Mapping[str, Any]]] = {}
    for i, r in enumerate(records):
        key = tuple(str(r.get(k, "")) for k in KEY)
        cand = (str(r.get("date", "")), i, r)
        if key not in newest or cand[:2] > newest[key][:2]:
            newest[key] = cand
    return sorted((v[2] for v in newest.values()), key=_order)


def _order(r: Mapping[str, Any]) -> tuple[str, str, bool, str]:
    return (str(r.get("benchmark")), str(r.get("dataset")), not r.get("shipped"), str(r.get("mode")))


def is_gpu(r: Mapping[str, Any]) -> bool:
    return "gpu" in str(r.get("mode", "")).lower() or "GPU" in str(r.get("machine", ""))


# --- sections and anchors -----------------------------------------------------------------------------------------


def section_anchor(name: str, markdown: str) -> str:
    """The anchor of a marked section's first heading (``<!-- NAME:begin -->``) or of the heading ``NAME``."""
    anchor = find_anchor(name, markdown)
    if anchor is None:
        raise SystemExit(f"BENCHMARKS.md has no section {name!r} (neither a marker nor a heading)")
    return anchor


def section_of(r: Mapping[str, Any]) -> str:
    named = re.search(r"--section[ =](\S+)", str(r.get("command", "")))
    return str(r.get("section") or (named.group(1) if named else SECTIONS.get(str(r.get("benchmark")), "")))


# --- the table ----------------------------------------------------------------------------------------------------


def figure(metrics: Mapping[str, Any], name: str) -> str:
    label, fmt, unit = FIGURES[name]
    return f"{label}{fmt.format(metrics[name])}{unit}"


def figures(metrics: Mapping[str, Any], names: Sequence[str], link: str, absent: str = "–", tail: str = "") -> str:
    """The named metrics that ``metrics`` has, as one link to their section; ``absent`` where it has none."""
    shown = [figure(metrics, n) for n in names if n in metrics]
    return f"[{', '.join(shown)}{tail}]({link})" if shown else absent


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _machine(r: Mapping[str, Any]) -> str:
    """The machine, shortened to its CPU's name and what follows the flag list (cores, GPU)."""
    parts = [p.strip() for p in str(r.get("machine", "")).split(",")]
    kept = [p for p in parts if p and (re.search(r"\d (cores?|threads?)$", p) or not re.fullmatch(r"[a-z0-9_ ]+", p))]
    return ", ".join(kept) or "–"


def accuracy_row(r: Mapping[str, Any], gpu: Mapping[str, Any] | None, link: str) -> str:
    m = r["metrics"]
    bench = r["benchmark"]
    if bench == "qa":
        acc = figures(m, ["accuracy", "f1", "em"], link)
        stated = figures(m, ["not_stated"], link)
        time = figures(m, ["median_total_s", "median_prompt_tokens"], link, "not recorded")
    elif bench == "honesty":
        acc = figures(m, ["answerable_accuracy"], link)
        stated = figures(m, ["not_stated"], link)
        time = figures(m, ["median_total_s", "median_prompt_tokens"], link, "not recorded")
    else:
        acc = figures(m, ["item_accuracy"], link)
        stated = figures(m, ["not_stated_accuracy"], link)
        time = figures(m, ["wall_s"], link, "not recorded", " the whole checklist")
    on_gpu = "not measured"
    if gpu is not None:
        on_gpu = figures(gpu["metrics"], ["median_total_s", "wall_s"], link, "not recorded")
    cells = [_cell(r["dataset"]), bench, str(r.get("n", "")), _cell(r["mode"]), acc, stated, time, on_gpu,
             str(r.get("date", ""))]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


SPEED_FIGURES = {
    "ingest": ["pages_per_s", "to_searchable_s", "to_complete_s", "total_s", "stage_s_per_1k_tokens", "whole_add_s"],
    "demo": ["wall_s"],
    "setup": ["setup_min"],
}
MEMORY_FIGURES = ["peak_rss_mb", "peak_rss_gb"]


def speed_row(r: Mapping[str, Any], gpu: Mapping[str, Any] | None, link: str) -> str:
    m = r["metrics"]
    cells = [
        _cell(r["dataset"]),
        str(r["benchmark"]),
        _cell(r["mode"]) + (" **(default)**" if r.get("shipped") and "default" not in str(r["mode"]) else ""),
        figures(m, SPEED_FIGURES[str(r["benchmark"])], link),
        figures(m, MEMORY_FIGURES, link, "not recorded"),
        "not measured" if gpu is None else figures(gpu["metrics"], SPEED_FIGURES[str(r["benchmark"])], link),
        _cell(_machine(r)),
        str(r.get("date", "")),
    ]
    return "| " + " | ".join(cells) + " |"


def render(
    records: Sequence[Mapping[str, Any]],
    pages: str | Mapping[str, str],
    *,
    here: str | None = PAGE,
    prefix: str = "",
    brief: bool = False,
) -> str:
    """The headline section, markers included, from ``records`` (all of results.json) and the benchmark pages
    (:func:`sections.read_pages`; a string is the headline page alone). Links are written from the file ``here``
    (a key of ``pages``; None: another file, whose links start with ``prefix``, e.g. ``docs/`` for the README).
    ``brief``: the shipped defaults only, for the README (the other modes and the plots are on the page)."""
    pages = {PAGE: pages} if isinstance(pages, str) else pages
    rows = latest(records)
    links = {s: section_link(s, pages, here, prefix) for s in sorted({section_of(r) for r in rows})}
    gpu_of = {(r["benchmark"], r["dataset"]): r for r in rows if is_gpu(r)}
    cpu = [r for r in rows if not is_gpu(r)]
    accuracy = [r for r in cpu if r["benchmark"] in ACCURACY_BENCHMARKS]
    order = {b: i for i, b in enumerate(SPEED_BENCHMARKS)}
    speed = sorted(
        (r for r in cpu if r["benchmark"] in order),
        key=lambda r: (order[r["benchmark"]], not r.get("shipped"), str(r["dataset"]), str(r["mode"])),
    )
    machines = sorted({re.sub(r", \d+ (cores?|threads?)$", "", _machine(r)) for r in accuracy})
    head = [
        "| data set | benchmark | n | mode | accuracy | not stated | answer time, 2 CPU cores | answer time, GPU"
        " | date |",
        "|---|---|---:|---|---|---|---|---|---|",
    ]

    def acc_rows(shipped: bool) -> list[str]:
        return [
            accuracy_row(r, gpu_of.get((r["benchmark"], r["dataset"])), links[section_of(r)])
            for r in accuracy
            if bool(r.get("shipped")) == shipped
        ]

    lines = [
        BEGIN,
        "## Headline results",
        "",
        "_Generated by `python build/bench/bench_headline.py` (part of `make bench`) from docs/results.json alone: the"
        " latest record of each benchmark, data set and mode. Do not edit between the markers; rerun the benchmark"
        " that writes a record. Each cell links to the section that measured it and says how; plots of the"
        " same records are in docs/plots/. Rates are fractions of 1._",
        "",
        "### How accurate, and how fast an answer comes: the shipped defaults",
        "",
        "Accuracy: QA sets F1 and exact match (true/false and multiple choice: accuracy), the honesty set the"
        " answerable questions answered right, a checklist review the items answered with an accepted value."
        ' *Not stated*: on the QA sets, whose questions all have an answer, the share answered "not stated"'
        " (lower is better); on the honesty set and in a review, the share of unanswerable questions or items"
        " rightly left not stated (higher is better). Answer time: the median per question, with the prompt tokens"
        " the model read (a review: the whole checklist's wall time), on 2 cores of "
        + "; ".join(machines)
        + ' (often shared with other runs: upper bounds). "Not recorded": the run replayed cached'
        " replies; its section gives the first run's costs.",
        "",
        *head,
        *acc_rows(True),
        "",
        *(
            [f"Other modes measured on the same sets, and plots: [docs/BENCHMARKS.md]({prefix}{PAGE}).", ""]
            if brief
            else [
                "Other modes measured on the same sets, for comparison (settings that are not the default):",
                "",
                *head,
                *acc_rows(False),
                "",
            ]
        ),
        "### Ingest speed, memory and set-up time",
        "",
        "Ingest: the PDF pages made searchable a second (the default settings build no late vectors), or the"
        " seconds per 1,000 tokens of chunk text; `pikelocal demo`: the bundled sample ingested, searched and"
        " answered with both default models loaded; set-up: `make setup` from a fresh clone with an empty pip"
        " cache (the llama.cpp compile and the encoder's export included). Peak memory: the largest resident set"
        " of the run's processes.",
        "",
        "| data set | benchmark | mode | speed | peak memory (RSS) | on a GPU | machine | date |",
        "|---|---|---|---|---|---|---|---|",
        *(speed_row(r, gpu_of.get((r["benchmark"], r["dataset"])), links[section_of(r)]) for r in speed),
        END,
    ]
    return "\n".join(lines)


def write_headline(out: Path, section: str) -> None:
    """Put the headline section right under the page's title (its first line), replacing the old one wherever it
    stands."""
    text = out.read_text(encoding="utf-8")
    if BEGIN in text and END in text:
        before, rest = text.split(BEGIN, 1)
        text = before.rstrip("\n") + "\n\n" + rest.split(END, 1)[1].lstrip("\n")
    title, _, rest = text.partition("\n")
    out.write_text(f"{title}\n\n{section}\n\n{rest.lstrip(chr(10))}", encoding="utf-8")


# --- plots --------------------------------------------------------------------------------------------------------

PRIMARY = ("accuracy", "f1", "answerable_accuracy", "item_accuracy")
CJK_FONTS = ("Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "SimHei")


def accuracy_points(records: Sequence[Mapping[str, Any]]) -> list[tuple[str, float, str, bool]]:
    """(label, value, metric, shipped) of each accuracy record's main figure."""
    out = []
    for r in latest(records):
        if r["benchmark"] not in ACCURACY_BENCHMARKS:
            continue
        name = next((k for k in PRIMARY if k in r["metrics"]), None)
        if name is not None:
            out.append((f"{r['dataset']} · {r['mode']}", float(r["metrics"][name]), name, bool(r.get("shipped"))))
    return out


def time_points(records: Sequence[Mapping[str, Any]]) -> list[tuple[str, float, float]]:
    """(label, median prompt tokens, median seconds) of each record that has both."""
    return [
        (f"{r['dataset']} · {r['mode']}", float(r["metrics"]["median_prompt_tokens"]),
         float(r["metrics"]["median_total_s"]))
        for r in latest(records)
        if "median_total_s" in r["metrics"] and "median_prompt_tokens" in r["metrics"]
    ]  # fmt: skip


def format_points(records: Sequence[Mapping[str, Any]]) -> list[tuple[str, float, float | None]]:
    """(label, characters/s, pages/s or None) of each ingest-per-format record."""
    return [
        (f"{r['dataset']} · {r['mode']}".replace("`", ""), float(r["metrics"]["chars_per_s"]),
         float(r["metrics"]["pages_per_s"]) if "pages_per_s" in r["metrics"] else None)
        for r in latest(records)
        if r["benchmark"] == "ingest_format" and "chars_per_s" in r["metrics"]
    ]  # fmt: skip


def _short(label: str, width: int = 70) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def write_plots(records: Sequence[Mapping[str, Any]], folder: Path) -> list[Path]:
    """The three SVGs; matplotlib is imported here only (the ``bench`` extra), never by pikelocal."""
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt
    from matplotlib import font_manager

    plt.rcParams["svg.hashsalt"] = "pikelocal"  # fixed ids: the same records give the same file
    plt.rcParams["svg.fonttype"] = "none"  # text stays text: the viewer's fonts draw the Chinese file names
    installed = {f.name for f in font_manager.fontManager.ttflist}
    plt.rcParams["font.family"] = ["DejaVu Sans", *(f for f in CJK_FONTS if f in installed)]  # CJK glyph fallback
    plt.rcParams["font.size"] = 8
    folder.mkdir(parents=True, exist_ok=True)
    written = []

    def save(fig: Any, name: str) -> None:
        path = folder / name
        meta = {"Date": None, "Creator": "build/bench/bench_headline.py"}
        fig.savefig(path, format="svg", bbox_inches="tight", metadata=meta)
        plt.close(fig)
        written.append(path)

    acc = accuracy_points(records)
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(acc) + 1.2))
    ys = list(range(len(acc)))
    ax.barh(ys, [v for _, v, _, _ in acc], color=["#2b6cb0" if s else "#a0aec0" for *_, s in acc])
    for y, (_, v, _, _) in zip(ys, acc, strict=True):
        ax.annotate(f"{v:.3f}", (v, y), fontsize=6, xytext=(3, -2), textcoords="offset points")
    ax.set_yticks(ys, [_short(f"{lab} ({name})", 75) for lab, _, name, _ in acc])
    ax.invert_yaxis()
    ax.set_xlim(0, 1.08)
    ax.set_xlabel("accuracy (the metric in brackets; dark: the shipped default)")
    ax.set_title("Accuracy per data set and mode (docs/results.json)")
    save(fig, "accuracy.svg")

    pts = time_points(records)
    fig, ax = plt.subplots(figsize=(10, 5))
    colours = plt.get_cmap("tab20").colors
    for i, (lab, t, sec) in enumerate(pts):
        ax.scatter([t], [sec], color=colours[i % len(colours)], marker="osD^v<>"[i % 7], label=_short(lab, 80))
    ax.set_xlabel("median prompt tokens read by the model")
    ax.set_ylabel("median seconds per answer (2 CPU cores)")
    ax.set_ylim(bottom=0)
    ax.set_title("Answer time against prompt tokens (docs/results.json)")
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    save(fig, "answer_time.svg")

    fmt = format_points(records)
    fig, ax = plt.subplots(figsize=(10, 0.35 * len(fmt) + 1.2))
    ys = list(range(len(fmt)))
    ax.barh(ys, [c for _, c, _ in fmt], color="#2b6cb0")
    ax.set_yticks(ys, [_short(lab, 60) for lab, _, _ in fmt])
    for y, (_, c, p) in zip(ys, fmt, strict=True):
        ax.annotate(f"{c:,.0f} chars/s" + (f", {p:.1f} pages/s" if p is not None else ""), (c, y), fontsize=6,
                    xytext=(3, -2), textcoords="offset points")  # fmt: skip
    ax.set_xlim(0, max((c for _, c, _ in fmt), default=1) * 1.3)
    ax.invert_yaxis()
    ax.set_xlabel("characters a second, parse stage (2 CPU threads; pages/s where the file has pages)")
    ax.set_title("Ingest speed per format (docs/results.json)")
    save(fig, "ingest_formats.svg")
    return written


def write_between(path: Path, section: str) -> None:
    """Replace the headline block of ``path`` (the README) in place, between its markers."""
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    path.write_text(head + section + rest.split(END, 1)[1], encoding="utf-8")


def readme_of(out: Path, named: Path | None) -> Path | None:
    """The README that shows the brief table: ``named``, else the README.md one folder above ``out``'s folder when
    it has the headline markers (so a page written elsewhere, as a test's, leaves the repository's README alone)."""
    path = named or out.resolve().parent.parent / "README.md"
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    return path if BEGIN in text and END in text else None


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=ROOT / "docs" / "results.json")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    ap.add_argument("--readme", type=Path, help="the README for the brief table (default: above --out's folder)")
    ap.add_argument("--plots", type=Path, default=ROOT / "docs" / "plots")
    ap.add_argument("--no-plots", action="store_true", help="write the table only (no matplotlib needed)")
    ap.add_argument("--dry-run", action="store_true", help="print the table; write nothing")
    args = ap.parse_args(argv)
    records = read_records(args.json)
    pages = read_pages(args.out)
    section = render(records, pages)
    if args.dry_run:
        print(section)
        return 0
    write_headline(args.out, section)
    write_index(args.out)
    print(f"[headline] {len(latest(records))} record(s) → {args.out}")
    readme = readme_of(args.out, args.readme)
    if readme is not None:
        prefix = Path(os.path.relpath(args.out.resolve().parent, readme.resolve().parent)).as_posix() + "/"
        write_between(readme, render(records, pages, here=None, prefix=prefix, brief=True))
        print(f"[headline] the shipped defaults → {readme}")
    if not args.no_plots:
        for path in write_plots(records, args.plots):
            print(f"[headline] {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
