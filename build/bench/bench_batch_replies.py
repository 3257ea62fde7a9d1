"""Are batched replies the replies one at a time? Atomize prompts of an enriched KB's first chunks, run greedy
through llama-cpp-python's own path, through the batch engine side by side (``--width``), and through the engine one
at a time; prints how many replies are identical and the ones that are not.

    python build/bench/bench_batch_replies.py [--kb build/bench-enrich.kb] [--chunks 12] [--width 4]

The KB is one ``build/bench/bench_enrich.py`` left (its document summary is part of every prompt). Decoded side by side,
a sequence's logits are summed in another order than alone, so near ties may flip: this measures how often.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from pikelocal.assets import resolve_gguf  # noqa: E402
from pikelocal.config import Settings, load_settings  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions  # noqa: E402
from pikelocal.llm.base import Completion  # noqa: E402
from pikelocal.llm.llama_cpp import LlamaCppLLM  # noqa: E402
from pikelocal.llm.parallel import complete_many  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=ROOT / "build" / "bench-enrich.kb")
    parser.add_argument("--chunks", type=int, default=12)
    parser.add_argument("--width", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    with Store.open_existing(args.kb) as store:
        doc = store.docs.documents()[0]
        chunks = store.chunks.chunks_of(doc.id)[: args.chunks]
        enricher = Enricher(store, HashEncoder(), None, EnrichOptions.from_settings(Settings()))  # type: ignore[arg-type]  (no call made)
        jobs = [enricher._atoms_job(c, doc) for c in chunks]
    requests = [(j.prompt.messages(j.lang, j.fields), j.prompt.params()) for j in jobs]
    model = resolve_gguf("default", load_settings().models_path())
    kw = {"n_threads": args.threads, "adapt_threads": False}  # one thread count for all: no flips from it
    alone = LlamaCppLLM(model, **kw)  # type: ignore[arg-type]
    reference = [alone.complete(*r) for r in requests]
    alone.close()
    batched = LlamaCppLLM(model, batch_width=args.width, **kw)  # type: ignore[arg-type]
    together = complete_many(batched, requests)
    one_by_one = [batched.complete(*r) for r in requests]
    batched.close()

    def same(xs: list[Completion]) -> int:
        return sum(a.text == b.text for a, b in zip(reference, xs, strict=True))

    print(f"{len(requests)} atomize prompts of {args.kb.name}, model {model.name}, {args.threads} threads")
    print(f"identical to llama-cpp-python's own path: side by side (width {args.width}) {same(together)},"
          f" on the engine one at a time {same(one_by_one)}")  # fmt: skip
    for a, b in zip(reference, together, strict=True):
        if a.text != b.text:
            print(f"- alone ({a.completion_tokens} tokens): {a.text}\n  side by side ({b.completion_tokens}): {b.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
