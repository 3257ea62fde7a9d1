"""Enrich a KB with a real model decoding calls side by side: ``python enrich_batched_worker.py KB LOG MODEL``.

SmolLM2 in process with a batch width of 2, behind the KB's own LLM cache (``CachedLLM``). Before a request reaches
the model, ``<cache key> <0|1>`` is appended to LOG: 1 when its completion is already in the KB's ``llm_cache``,
i.e. a finished completion requested a second time. Exits 0 when the run finishes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions  # noqa: E402
from pikelocal.llm.base import Completion, GenParams, Message  # noqa: E402
from pikelocal.llm.cached import CachedLLM, cache_key  # noqa: E402
from pikelocal.llm.llama_cpp import LlamaCppLLM  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from tests.support.enrich_llm import in_cache  # noqa: E402


class Checked:
    """``inner`` (a real model), each request logged before it runs."""

    def __init__(self, inner: LlamaCppLLM, kb: Path, log: Path) -> None:
        self.inner, self.kb, self.log = inner, kb, log
        self.model_id, self.context_tokens, self.max_parallel = inner.model_id, inner.context_tokens, inner.max_parallel

    def complete(self, messages: Sequence[Message], params: GenParams) -> Completion:
        key = cache_key(self.model_id, messages, params)
        with self.log.open("a", encoding="utf-8") as f:
            f.write(f"{key} {int(in_cache(self.kb, key))}\n")
        return self.inner.complete(messages, params)

    def stream(self, messages: Sequence[Message], params: GenParams):  # type: ignore[no-untyped-def]
        raise NotImplementedError  # enrichment does not stream

    def close(self) -> None:
        self.inner.close()


def main(argv: Sequence[str]) -> int:
    kb, log, model = Path(argv[1]), Path(argv[2]), Path(argv[3])
    encoder = HashEncoder()
    llm = LlamaCppLLM(model, n_ctx=2048, n_threads=1, adapt_threads=False, batch_width=2)
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, create=False) as store:
        cached = CachedLLM(Checked(llm, kb, log), store.cache)  # type: ignore[arg-type]
        report = Enricher(store, encoder, cached, EnrichOptions.from_settings(Settings(), max_questions=2)).run()
        print(json.dumps({"atomized": report.atomized, "failed": len(report.failures)}), flush=True)
    llm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
