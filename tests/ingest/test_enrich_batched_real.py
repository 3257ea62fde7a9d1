"""Enrichment with the real default LLM decoding two calls together (llm.batch = 2) into a real KB (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.eval.atoms import check_atoms
from pikelocal.store.store import Store
from tests.support.enrich_llm import cache_rows
from tests.support.paths import installed_model

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
CHUNKS = 4


def asked(report: api.EnrichReport) -> int:
    """Completions of ``report`` that reached the model (not answered from the KB's cache)."""
    costs = [c for c in (report.summary_cost, report.question_cost) if c is not None]
    return sum(c.calls - c.cached for c in costs)


def test_batched_enrichment_stores_every_completion_once_and_goes_on_where_it_stopped(
    tmp_path: Path, shared_data: Path
) -> None:
    installed_model("minilm-l6-v2/model.onnx")
    pdf = next((shared_data / "pdfs" / "zh_tender").glob("*.pdf"))
    kb = tmp_path / "tender.kb"
    overrides = {"encoder.model": "minilm", "ingest.late": False, "llm.batch": 2}
    settings = api.load_settings(environ={}, overrides=overrides)
    with api.open_kb(kb, settings) as knowledge_base:
        knowledge_base.add([pdf])
        first = knowledge_base.enrich(api.EnrichRequest(limit=CHUNKS))
    assert first.summarized == 1 and first.atomized == CHUNKS and not first.failures
    with Store.open_existing(kb) as store:
        check = check_atoms(store)
        assert check.chunks == CHUNKS and check.questions >= CHUNKS and check.chinese == check.questions
        assert store.integrity_check() == []
    assert asked(first) >= CHUNKS + 1 and cache_rows(kb) == asked(first)  # each stored as it came, once

    with api.open_kb(kb, settings) as knowledge_base:  # the next chunks: the summary is not asked for again
        second = knowledge_base.enrich(api.EnrichRequest(limit=CHUNKS))
    assert second.summarized == 0 and second.atomized == CHUNKS
    assert cache_rows(kb) == asked(first) + asked(second)
    with Store.open_existing(kb) as store:
        assert check_atoms(store).chunks == 2 * CHUNKS and store.integrity_check() == []
