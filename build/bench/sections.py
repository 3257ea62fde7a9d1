"""Replace one marked section of the benchmark pages (between its begin and end markers), leaving the rest alone.

docs/BENCHMARKS.md is the headline page; the measurements are in one file per topic under docs/benchmarks/
(:data:`TOPICS`). A script names the headline page as its ``--out`` (``--out docs/BENCHMARKS.md``) and calls
:func:`write_section`, which writes where the section's ``<!-- NAME:begin -->`` marker already stands: in that page
or in any topic file beside it. A section that no file holds yet goes to the topic file ``topic`` names, else to the
one :data:`HOMES` gives for the start of its marker name, else to the end of the page itself; moved by hand to its
topic file, it is found there next time.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
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
    "statements_sample": "ingesting",
    "statements_cost": "ingesting",
    "typed_honesty": "answering",
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
    "select_reader": "answering",
    "honesty": "answering",
    "cite_grammar": "answering",
    "bench_context": "answering",
    "quote_then_answer": "answering",
    "choice_": "answering",
    "compress_budget": "answering",
    "bench_quote_budget": "answering",
    "second_hop": "answering",
    "hop_chains": "answering",
    "bench_cross_vocab": "answering",
    "about_": "answering",
    "bench_review": "reviewing",
    "review_": "reviewing",
    "bench_side_by_side": "reviewing",
}

_NAME = re.compile(r"<!-- (.+):begin -->")
PAGE = "BENCHMARKS.md"  # the headline page's key in :func:`read_pages`
INDEX_BEGIN, INDEX_END = "<!-- index:begin -->", "<!-- index:end -->"


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
    write_index(out)
    return target


# --- headings, anchors and links ------------------------------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (not '-' or '_'), spaces to hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def headings(markdown: str) -> dict[int, tuple[int, str, str]]:
    """Each heading's line number -> (level, text, anchor); a repeated anchor gets -1, -2 … as on GitHub, and a
    fenced code block holds no heading."""
    seen: dict[str, int] = {}
    out: dict[int, tuple[int, str, str]] = {}
    fence = False
    for n, line in enumerate(markdown.splitlines()):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"(#{1,6}) (.+)$", line)
        if not m:
            continue
        base = slug(m.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out[n] = (len(m.group(1)), m.group(2).strip(), base if count == 0 else f"{base}-{count}")
    return out


def anchors(markdown: str) -> dict[int, str]:
    """Each heading's line number -> its anchor."""
    return {n: anchor for n, (_, _, anchor) in headings(markdown).items()}


def find_anchor(name: str, markdown: str) -> str | None:
    """The anchor of a marked section's first heading (``<!-- NAME:begin -->``) or of the heading ``NAME``; None
    when ``markdown`` has neither."""
    lines = markdown.splitlines()
    heads = anchors(markdown)
    begin = f"<!-- {name}:begin -->"
    for n, line in enumerate(lines):
        if line.strip() == begin:
            after = [h for h in heads if h > n]
            if after:
                return heads[min(after)]
    for n, line in enumerate(lines):
        if n in heads and line.lstrip("#").strip() == name:
            return heads[n]
    return None


def read_pages(page: Path) -> dict[str, str]:
    """The headline page and its topic files, as {path relative to the page's folder: text}; the page is
    :data:`PAGE`."""
    pages = {PAGE: page.read_text(encoding="utf-8")} if page.exists() else {}
    for path in topic_files(page):
        pages[path.relative_to(page.parent).as_posix()] = path.read_text(encoding="utf-8")
    return pages


def section_link(name: str, pages: Mapping[str, str], here: str | None = PAGE, prefix: str = "") -> str:
    """The link to section ``name`` (a marker name or a heading's text) from the file ``here`` (a key of
    ``pages``): ``#anchor`` within it, else ``prefix`` + the file's path + ``#anchor``."""
    for path, text in pages.items():
        anchor = find_anchor(name, text)
        if anchor is not None:
            return f"#{anchor}" if path == here else f"{prefix}{path}#{anchor}"
    raise SystemExit(f"the benchmark pages have no section {name!r} (neither a marker nor a heading)")


def heading_link(start: str, pages: Mapping[str, str], prefix: str = "") -> tuple[str, str] | None:
    """(heading, link) of the heading that is ``start`` or, failing that, the first that begins with it, in the
    order of ``pages``; None when none does."""
    found = [(path, h) for path, text in pages.items() for h in headings(text).values()]
    for exact in (True, False):
        for path, (_, text, anchor) in found:
            if text == start if exact else text.startswith(start):
                return text, f"{prefix}{path}#{anchor}"
    return None


# --- the index of the headline page -------------------------------------------------------------------------------


def index(pages: Mapping[str, str]) -> str:
    """The marked block listing every topic file and its sections (level 2 and 3 headings), linked."""
    lines = [INDEX_BEGIN, "## Index", ""]
    for path, text in pages.items():
        if path == PAGE:
            continue
        heads = list(headings(text).values())
        title = next((t for level, t, _ in heads if level == 1), path)
        lines.append(f"- [{title}]({path})")
        under = False  # a level-3 heading is listed under the level-2 one before it, if the file has one yet
        for level, t, a in heads:
            if level in (2, 3):
                under = level == 2 or under
                lines.append(f"{'    ' if level == 3 and under else '  '}- [{t}]({path}#{a})")
    return "\n".join([*lines, INDEX_END])


def with_index(text: str, pages: Mapping[str, str]) -> str:
    """``text`` (the headline page) with its index block made anew; unchanged when it has no index markers."""
    if INDEX_BEGIN not in text or INDEX_END not in text:
        return text
    head, rest = text.split(INDEX_BEGIN, 1)
    return head + index(pages) + rest.split(INDEX_END, 1)[1]


def write_index(page: Path) -> None:
    """Make the index of the headline page ``page`` anew, when it has one."""
    if not page.exists():
        return
    text = page.read_text(encoding="utf-8")
    new = with_index(text, read_pages(page))
    if new != text:
        page.write_text(new, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Make the index of docs/BENCHMARKS.md anew (after editing a topic file).")
    ap.add_argument("--page", type=Path, default=Path(__file__).resolve().parents[2] / "docs" / PAGE)
    ap.add_argument("--check", action="store_true", help="only say whether the index is in step (exit 1 if not)")
    args = ap.parse_args(argv)
    text = args.page.read_text(encoding="utf-8")
    if args.check:
        return 0 if with_index(text, read_pages(args.page)) == text else 1
    write_index(args.page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
