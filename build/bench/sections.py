"""Replace one marked section of the benchmark pages (between its begin and end markers), leaving the rest alone.

docs/BENCHMARKS.md is the headline page; the measurements are in one file per topic under docs/benchmarks/
(:data:`TOPICS`). A script names the headline page as its ``--out`` (``--out docs/BENCHMARKS.md``) and calls
:func:`write_section`, which writes where the section's ``<!-- NAME:begin -->`` marker already stands: in that page
or in any topic file beside it. A section that no file holds yet goes to the topic file ``topic`` names, else to the
one :data:`HOMES` gives for the start of its marker name, else to the end of the page itself; moved by hand to its
topic file, it is found there next time.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# The topic files under docs/benchmarks/, in reading order, each with its title.
TOPICS = {
    "machines-and-setup": "Machines, set-up and raw speed",
    "ingesting": "Ingesting and enriching documents",
    "search": "Search and retrieval",
    "answering": "Answering questions",
    "reviewing": "Reviewing documents",
}

# Where a section that no file holds yet goes: the topic of the longest of these that its marker name starts with.
HOMES = {
    "bench_core": "machines-and-setup",
    "bench_quantization": "machines-and-setup",
    "export_stages": "machines-and-setup",
    "bench_llm": "machines-and-setup",
    "bench_encryption": "machines-and-setup",
    "issue15_": "machines-and-setup",
    "bench_ingest": "ingesting",
    "ingest_": "ingesting",
    "bench_enrich": "ingesting",
    "enrich_": "ingesting",
    "time_to_searchable": "ingesting",
    "bench_formats": "ingesting",
    "bench_ocr": "ingesting",
    "bench_late": "ingesting",
    "bench_contextual": "ingesting",
    "eval_retrieval": "search",
    "eval_atoms": "search",
    "retrieval_": "search",
    "bench_rerank": "search",
    "tune_fusion": "search",
    "bench_fusion_tuning": "search",
    "bench_graph": "search",
    "graph_": "search",
    "bench_bit_recall": "search",
    "bench_refs": "search",
    "lawbench_refs": "search",
    "bench_fact_hops": "search",
    "eval_qa": "answering",
    "qa_": "answering",
    "honesty": "answering",
    "cite_grammar": "answering",
    "bench_context": "answering",
    "quote_then_answer": "answering",
    "choice_": "answering",
    "compress_budget": "answering",
    "bench_quote_budget": "answering",
    "second_hop": "answering",
    "bench_cross_vocab": "answering",
    "about_": "answering",
    "bench_review": "reviewing",
    "review_": "reviewing",
}

_NAME = re.compile(r"<!-- (.+):begin -->")


def topic_folder(page: Path) -> Path:
    """The folder of the topic files beside the headline page ``page``."""
    return page.parent / "benchmarks"


def topic_files(page: Path) -> list[Path]:
    """The topic files beside ``page``: those of :data:`TOPICS` in their order, then any other, by name."""
    found = sorted(topic_folder(page).glob("*.md"))
    order = {name: i for i, name in enumerate(TOPICS)}
    return sorted(found, key=lambda p: (order.get(p.stem, len(order)), p.name))


def holder(page: Path, begin: str, end: str) -> Path | None:
    """The file that holds the section between ``begin`` and ``end``: ``page`` itself or a topic file beside it."""
    for path in [page, *topic_files(page)]:
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if begin in text and end in text:
                return path
    return None


def home(page: Path, begin: str, topic: str | None = None) -> Path:
    """Where a new section goes: the topic file ``topic`` names, else the one :data:`HOMES` gives for its marker
    name, else ``page`` itself (also when ``page`` has no topic folder beside it)."""
    m = _NAME.match(begin.strip())
    name = m.group(1) if m else ""
    if topic is None:
        starts = [k for k in HOMES if name.startswith(k)]
        topic = HOMES[max(starts, key=len)] if starts else None
    if topic is None or not topic_folder(page).is_dir():
        return page
    return topic_folder(page) / f"{topic}.md"


def write_section(out: Path, begin: str, end: str, section: str, topic: str | None = None) -> Path:
    """``section`` must start with ``begin`` and end with ``end``; it replaces the old one wherever it stands (``out``
    or a topic file beside it) or is appended to its :func:`home`. Returns the file written."""
    target = holder(out, begin, end) or home(out, begin, topic)
    title = "# Benchmarks" if target == out else f"# {TOPICS.get(target.stem, target.stem)}"
    text = target.read_text(encoding="utf-8") if target.exists() else title + "\n"
    if begin in text and end in text:
        text = text.split(begin)[0] + section + text.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    target.write_text(text, encoding="utf-8")
    if target != out:
        print(f"[sections] {begin.strip()} → {target}", file=sys.stderr)
    return target
