"""Legal cross-references on a real statute corpus and the sample tender.

    .venv/bin/python build/bench/bench_refs.py [--kb-dir DIR] [--sample 15] [--out docs/BENCHMARKS.md]

1. The 1,586 Markdown files of ``../shared/data/legal_zh/laws_lawrefbook`` (laws, regulations, judicial
   interpretations; 28 MB) are ingested into ``DIR/lawrefbook.kb`` with the product's pipeline and its hashing
   stand-in encoder (no model: citations need none; late vectors off). Ingesting again skips what is there.
2. The product's citation grammar and resolver (``ingest`` runs them; ``store.refs``) then give: how many
   citations, of which kind (another law's article, a whole law, the document's own article), how many reached
   their article's chunk, and why the others did not (law not in the corpus, or article not found in it); the
   most cited laws that are missing; the reading speed of the grammar; and a random sample of resolved citations
   of another law's article with the first characters of the chunk each reached, for a reader to check by eye.
3. The sample tender with the statutes it cites that the corpus holds: each of its citations and where it leads.

Section written between markers in the output file.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import platform
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "build" / "bench"))

from sections import write_section  # noqa: E402

from pikelocal.config import Settings  # noqa: E402
from pikelocal.cpu import cpu_summary  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.pipeline import IngestOptions, Ingestor  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from pikelocal.text.legal_refs import find_refs  # noqa: E402
from pikelocal.text.numerals import han_number  # noqa: E402

BEGIN, END = "<!-- bench_refs:begin -->", "<!-- bench_refs:end -->"
SHARED = ROOT.parent / "shared" / "data"
LAWS = SHARED / "legal_zh" / "laws_lawrefbook"
TENDER = SHARED / "pdfs" / "zh_tender" / "黄梅县长江干流洲滩民垸团洲圩治理工程勘察设计招标文件.pdf"
TENDER_LAWS = ("行政法规/招标投标法实施条例(2019-03-02).md", "民法商法/招标投标法(2017-12-27).md")
ENC = HashEncoder()
OPTIONS = IngestOptions.from_settings(Settings(), late=False)


def ingest(kb: Path, paths: list[Path]) -> float:
    t0 = time.perf_counter()
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        report = Ingestor(store, ENC, OPTIONS).ingest_paths(paths)
        failed = [o for o in report.outcomes if o.status == "failed"]
        if failed:
            print(f"[refs] {len(failed)} file(s) failed: {failed[0]}", flush=True)
    return time.perf_counter() - t0


CHECKED = 1000  # resolved citations of another law's article checked by a second reading, independent of the resolver
_HEADING = re.compile(r"第([一二三四五六七八九十百千零〇两]+)条(?:之([一二三四五六七八九十]+))?")


def headings(text: str) -> set[str]:
    """The article keys ('262', '262-1') of every 第N条 / 第N条之M heading in a chunk, read by a regex of its own."""
    keys = set()
    for m in _HEADING.finditer(text):
        number, sub = han_number(m.group(1)), han_number(m.group(2)) if m.group(2) else None
        keys.add(f"{number}-{sub}" if sub else f"{number}")
    return keys


def names_agree(cited: str, title: str) -> bool:
    """The reached document's title, without 中华人民共和国 and a trailing date, ends the cited name, or the reverse
    (a citation's name may carry words before it: 应当认定为刑法)."""
    core = re.sub(r"^中华人民共和国", "", re.sub(r"\s*[（(]\d{4}[-年][^）)]*[）)]\s*$", "", title))
    return bool(core) and (cited.endswith(core) or core.endswith(re.sub(r"^中华人民共和国", "", cited)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kb-dir", type=Path, default=Path.home() / ".cache" / "pikelocal-eval" / "refs")
    ap.add_argument("--sample", type=int, default=15)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    args = ap.parse_args()
    args.kb_dir.mkdir(parents=True, exist_ok=True)
    kb = args.kb_dir / "lawrefbook.kb"
    seconds = ingest(kb, [LAWS])
    print(f"[refs] corpus ingested (or found) in {seconds:.0f} s", flush=True)
    with Store.open_existing(kb) as store:
        refs = store.refs.refs()
        counts = store.refs.counts()
        docs = store.docs.documents()
        texts = [c.text for d in docs[:200] for c in store.chunks.chunks_of(d.id)]
    t0 = time.perf_counter()
    found = sum(len(find_refs(t)) for t in texts)
    chars = sum(len(t) for t in texts)
    grammar_s = time.perf_counter() - t0
    kinds: collections.Counter[str] = collections.Counter()
    outcome: collections.Counter[tuple[str, str]] = collections.Counter()
    missing: collections.Counter[str] = collections.Counter()
    for r in refs:
        kind = (
            "own article" if r.ref.law is None else ("whole law" if r.ref.article is None else "another law's article")
        )
        kinds[kind] += 1
        if r.resolved:
            why = "resolved"
        elif r.target_doc is not None:
            why = "law found, article not"
        else:
            why = "not in the corpus" if r.ref.law is not None else "no such article of its own"
            if r.ref.law is not None:
                missing[r.ref.law] += 1
        outcome[(kind, why)] += 1
    rng = random.Random(0)
    cross = [r for r in refs if r.resolved and r.ref.law is not None and r.ref.article is not None]
    sample = rng.sample(cross, min(args.sample, len(cross)))
    with Store.open_existing(kb) as store:
        reached = {r.id: store.chunks.get_chunks([r.target_chunk])[0].text for r in sample if r.target_chunk}
        titles = {d.id: d.title for d in store.docs.documents()}
        checked = rng.sample(cross, min(CHECKED, len(cross)))
        heading_ok = sum(
            r.target_chunk is not None and r.ref.article in headings(store.chunks.get_chunks([r.target_chunk])[0].text)
            for r in checked
        )
        law_ok = sum(names_agree(r.ref.law or "", titles.get(r.target_doc or -1, "")) for r in checked)
    tender_kb = args.kb_dir / "tender.kb"
    ingest(tender_kb, [TENDER, *(LAWS / p for p in TENDER_LAWS)])
    with Store.open_existing(tender_kb) as store:
        tender_id = next(d.id for d in store.docs.documents() if d.path.endswith(".pdf"))
        tender_refs = store.refs.refs(tender_id)
    when = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    body = [
        "### Legal cross-references",
        "",
        f"_`.venv/bin/python build/bench/bench_refs.py` on {when}; {cpu_summary()}; Python {platform.python_version()}."
        f" The {len(docs):,} Markdown files of `laws_lawrefbook` ingested with the product's pipeline (hashing"
        " stand-in encoder: citations need no model); citations read and resolved by `store.refs`._",
        "",
        f"{counts.refs:,} citations in {len(docs):,} documents; {counts.resolved:,} resolved"
        f" ({counts.resolved / max(1, counts.refs):.1%}); {counts.articles:,} article starts known. The grammar read"
        f" {chars / max(grammar_s, 1e-9) / 1e6:.1f} M characters/s ({found:,} citations in the first 200 documents'"
        f" {chars / 1e6:.1f} M characters).",
        "",
        "| kind | citations | resolved | law found, article not | law not in the corpus / no such own article |",
        "|---|---|---|---|---|",
    ]
    for kind in ("another law's article", "whole law", "own article"):
        resolved, partly = outcome[(kind, "resolved")], outcome[(kind, "law found, article not")]
        absent = outcome[(kind, "not in the corpus")] + outcome[(kind, "no such article of its own")]
        body.append(f"| {kind} | {kinds[kind]:,} | {resolved:,} | {partly:,} | {absent:,} |")
    body += [
        "",
        f"A second reading of {len(checked):,} resolved citations of another law's article drawn at random (a regex"
        " of its own, not the resolver's): the reached chunk holds the cited article's heading in"
        f" **{heading_ok:,}**, and the reached document's title agrees with the cited law's name in"
        f" **{law_ok:,}**.",
        "",
        "Most cited laws the corpus lacks (or names otherwise): "
        + "; ".join(f"{name} ({n})" for name, n in missing.most_common(12))
        + ".",
        "",
        f"A random sample of {len(sample)} resolved citations of another law's article, with the start of the chunk"
        " each reached (for checking by eye):",
        "",
        "| citation | reached chunk begins |",
        "|---|---|",
    ]
    for r in sample:
        start = " ".join(reached.get(r.id, "").split())[:40]
        body.append(f"| {' '.join(r.text.split())} | {start} |")  # a citation may span a line break
    body += [
        "",
        f"The sample tender with {', '.join(p.split('/')[-1] for p in TENDER_LAWS)}: {len(tender_refs)} citations,"
        f" {sum(r.resolved for r in tender_refs)} resolved.",
        "",
        "| page | citation | leads to |",
        "|---|---|---|",
        *(f"| {r.page} | {' '.join(r.text.split())} | {r.destination()} |" for r in tender_refs),
        "",
    ]
    write_section(args.out, BEGIN, END, "\n".join([BEGIN, *body, END]))
    print(f"[refs] {counts.refs:,} citations, {counts.resolved:,} resolved; section written to {args.out}")


if __name__ == "__main__":
    main()
