"""Retrieval with and without atomic questions on a multi-hop subset, from an enriched pooled KB.

The KB comes from ``pikelocal eval retrieval DATA --set S --limit 50 --seed 7 --pool --kb KB`` followed by
``pikelocal enrich KB``. When enrichment has not finished, the evaluation keeps the first questions of the seeded
sample whose pooled paragraphs are all enriched, and scores them on a copy of the KB cut down to their paragraphs
(so no paragraph without questions competes). Modes: dense, chunks (hybrid of BM25, dense and late, as before
atomic questions were added), questions (the atomic-question path alone) and hybrid (both fused).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.eval import datasets as ds  # noqa: E402
from pikelocal.eval.retrieval import EVAL_KEY, evaluate, format_table  # noqa: E402
from pikelocal.store import db  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kb", type=Path)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "multihop")
    parser.add_argument("--set", dest="which", choices=["hotpotqa", "2wiki"], required=True)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--modes", default="dense,chunks,questions,hybrid")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    evalset = ds.load_multihop(*ds.find_multihop(args.data, args.which))
    sample = ds.subset(evalset.queries, args.limit, args.seed)
    with Store.open_existing(args.kb) as store:
        failed = {
            (f.path, f.chunk_ord) for f in store.enrichment.enrich_failures()
        }  # failed for good: the run is over for them
        done = {
            d.path.removeprefix(EVAL_KEY)
            for d in store.docs.documents()
            if all(store.chunks.questions_of(c.id) or (d.path, c.ord) in failed for c in store.chunks.chunks_of(d.id))
        }
    complete = []
    for q in sample:  # the first questions whose pools are enriched, in sample order
        if not set(q.pool or q.relevant) <= done:
            break
        complete.append(q)
    if not complete:
        print("no question of the sample has all its paragraphs enriched yet", file=sys.stderr)
        return 1
    keep = ds.pooled(evalset, complete)
    cut = args.kb.with_name(f"{args.kb.stem}-first{len(complete)}.kb")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{cut}{suffix}").unlink(missing_ok=True)
    conn = db.connect(args.kb, readonly=True)
    conn.execute("VACUUM INTO ?", (str(cut),))
    db.close(conn, readonly=True)
    settings = load_settings()
    encoder = open_encoder(settings)
    with Store.open(cut, encoder_id=encoder.model_id, dim=encoder.dim, create=False) as store:
        wanted = {f"{EVAL_KEY}{d.doc_id}" for d in keep.docs}
        for d in store.docs.documents():
            if d.path not in wanted:
                store.docs.delete_document(d.id)
        modes = [m.strip() for m in args.modes.split(",")]
        scores = evaluate(store, encoder, complete, modes=modes, ks=(1, 2, 5, 10), weights=settings.search.weights())
        counts = store.enrichment.enrichment_counts()
    title = (
        f"{evalset.name}: the first {len(complete)} of {len(sample)} seeded questions (seed {args.seed}),"
        f" {len(keep.docs)} pooled paragraphs, {counts.questions} atomic questions, {encoder.model_id}"
    )
    table = format_table(title, scores, (1, 2, 5, 10))
    print(table)
    if args.out:
        with args.out.open("a", encoding="utf-8") as fh:
            fh.write(table + "\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
