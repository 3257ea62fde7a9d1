"""A Word tender and an Excel price schedule through the real pipeline (the default encoder, EmbeddingGemma) into a
real KB; `pikelocal search` finds the scoring-table row and the price row and names no page for either (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.store.store import Store
from tests.support import office
from tests.support.cli import run_cli
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow


def row(*cells: object) -> str:
    return "| " + " | ".join(map(str, cells)) + " |"


@pytest.fixture(scope="module")
def office_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("embeddinggemma-300m/model.onnx")
    folder = tmp_path_factory.mktemp("office")
    files = [office.write(folder, "tender.docx", office.tender_docx()),
             office.write(folder, "prices.xlsx", office.price_xlsx())]  # fmt: skip
    kb = folder / "office.kb"
    with api.open_kb(kb, api.load_settings(environ={})) as knowledge_base:
        report = knowledge_base.add(files).ingest
    assert [o.status for o in report.outcomes] == ["ingested", "ingested"], report.outcomes
    return kb


def test_both_files_are_ready_and_unpaged(office_kb: Path) -> None:
    with Store.open_existing(office_kb) as store:
        docs = {Path(d.path).name: d for d in store.docs.documents()}
        assert {n: (d.kind, d.stage) for n, d in docs.items()} == {
            "tender.docx": ("docx", "ready"),
            "prices.xlsx": ("xlsx", "ready"),
        }
        for doc in docs.values():
            chunks = store.chunks.chunks_of(doc.id)
            assert chunks and all(c.page_start is None and c.page_end is None for c in chunks)
        assert store.integrity_check() == []


@pytest.mark.parametrize(
    ("query", "name", "line"),
    [
        ("投标报价的分值和评分标准是什么？", "tender.docx", row(*office.SCORING[4])),
        (
            "服务器 型号 S17 的单价",
            "prices.xlsx",
            row(17, *office.ITEMS[16], office.ITEMS[16][1] * office.ITEMS[16][2]),
        ),
    ],
)
def test_search_finds_the_row_and_shows_no_page(office_kb: Path, query: str, name: str, line: str) -> None:
    with api.open_kb(office_kb, api.load_settings(environ={})) as knowledge_base:
        hits = knowledge_base.search(query, api.SearchRequest(k=3))
    found = [h for h in hits if line in h.chunk.text]
    assert found and Path(found[0].document.path).name == name, [h.chunk.text[:80] for h in hits]
    proc = run_cli("search", str(office_kb), query, "-k", "3")
    assert proc.returncode == 0, proc.stderr
    heads = [ln for ln in proc.stdout.splitlines() if ln.startswith("[")]
    mine = [ln for ln in heads if f"] {name}, lines " in ln]
    assert mine, proc.stdout  # "[1] tender.docx, lines 30–34  score …": no "p. 1", no "p. None"
    assert not any("p. " in ln for ln in heads), heads
