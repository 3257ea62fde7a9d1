"""Fusion tuning with the default encoder (EmbeddingGemma) on a real SQLite KB with late vectors: ``enrich``
stores weights chosen on the KB's atomic questions, and search and the CLI then use them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from pikelocal.api import open_kb
from pikelocal.config import load_settings
from pikelocal.domain.requests import AddRequest
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.retrieve.fusion_tuning import BM25_GRID, LATE_GRID, MIN_QUERIES, stored_tuning
from pikelocal.store.store import Store
from tests.support.cli import run_cli
from tests.support.embed_models import GEMMA_DIR, load_encoder
from tests.support.enrich_corpus import passage_of, write_corpus

pytestmark = pytest.mark.slow

COMPANIES = [
    "Velmont", "Arkwell", "Brisco", "Corvane", "Dunmere", "Eskholt", "Farrow", "Galden", "Hestia Marine",
    "Ibsen Tools", "Jorvik Rail", "Kestrel Foods", "Lindqvist", "Morrow Textiles", "Norland Paper",
    "Oakridge Glass", "Pellham", "Quarry Hill", "Rosmarin", "Stavanger Cables", "Tamsin Bakeries", "Ulverton",
    "Varga Pharma", "Westerly Boats", "Xanthe Optics", "Yardley Steel", "Zephyr Mills", "Ashgrove", "Birchfield",
    "Coldharbour",
]  # fmt: skip
CITIES = [
    "Tromsø", "Porto", "Gdańsk", "Leeds", "Lyon", "Turku", "Graz", "Bilbao", "Cork", "Utrecht", "Brno", "Malmö",
    "Genoa", "Riga", "Ghent", "Aarhus", "Kraków", "Seville", "Bergen", "Dresden", "Tartu", "Zadar", "Nantes",
    "Basel", "Split", "Plzeň", "Tampere", "Kaunas", "Ljubljana", "Galway",
]  # fmt: skip
WORK = ["maintain ferry engines", "bake rye bread", "repair tram signals", "weave wool carpets", "grind lenses"]


def facts() -> list[tuple[str, str, str, list[str]]]:
    """(file name, text, held-out question, the questions enrichment writes) per company."""
    out = []
    for n, (company, city) in enumerate(zip(COMPANIES, CITIES, strict=True)):
        year, staff, work = 1950 + 2 * n, 12 + 7 * n, WORK[n % len(WORK)]
        text = (
            f"# {company} in {city}\n\n{company} opened its office in {city} in {year}. The office employs {staff}"
            f" people who {work} for customers along the coast.\n"
        )
        asked = [
            f"In which year did {company} open an office in {city}?",
            f"How many people work at {company}'s {city} office?",
        ]
        out.append(
            (f"{company.lower().replace(' ', '_')}.md", text, f"What do the {company} staff in {city} do?", asked)
        )
    return out


def test_enrich_tunes_the_weights_on_real_vectors_and_search_uses_them(tmp_path: Path) -> None:
    rows = facts()
    assert 2 * len(rows) >= MIN_QUERIES
    questions_of = {text.strip(): asked for _, text, _, asked in rows}

    def atomize(messages: Sequence[Message], params: GenParams) -> str:
        _, passage = passage_of(messages)
        return json.dumps({"questions": questions_of[passage.strip()]})

    settings = load_settings(environ={})
    settings = replace(settings, enrich=replace(settings.enrich, summaries=False))
    encoder = load_encoder(GEMMA_DIR)
    folder = write_corpus(tmp_path / "docs", {name: text for name, text, _, _ in rows})
    kb = tmp_path / "tuned.kb"
    with open_kb(kb, settings, encoder=encoder, llm=FakeLLM({"atomize": atomize})) as knowledge_base:
        knowledge_base.add([folder], AddRequest(late=True))
        report = knowledge_base.enrich()
        assert report.questions == 2 * len(rows), report.failures
        tuning = report.fusion
        assert tuning is not None, report
        assert tuning.queries == 2 * len(rows) and tuning.encoder_id == encoder.model_id
        assert tuning.bm25_weight in BM25_GRID and tuning.late_weight in LATE_GRID  # the KB has late vectors
        assert tuning.ndcg >= 0.8  # questions that name their company and city are easy for both rankings
        assert tuning.best_ndcg - tuning.ndcg <= 0.05
        for name, _, held_out, _ in rows[:5]:  # questions enrichment did not write
            assert knowledge_base.search(held_out)[0].document.path.endswith(name)
    with Store.open_existing(kb) as store:
        assert stored_tuning(store) == tuning
    # the CLI searches with the KB's weights: a held-out question finds its company's page first
    name, _, held_out, _ = rows[7]
    proc = run_cli("search", str(kb), held_out, "-k", "3")
    assert proc.returncode == 0, proc.stderr
    assert f"[1] {name}" in proc.stdout
